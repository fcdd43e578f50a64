import CLibevent

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One worker: an `event_base` and its `evhttp`, run on a thread of its own. Everything libevent
/// owns is touched only on that thread; `execute` is the one way in from other threads.
public final class EventLoop: @unchecked Sendable {
    public let index: Int
    let base: OpaquePointer
    let http: OpaquePointer
    let handler: any HTTPHandler
    let localPort: Int
    /// `host:port` at which this machine reaches the server (for requests a backend sends to
    /// another backend of the same server).
    public let localAuthority: String
    /// `ServerConfiguration.maxUnsentBytes`.
    let maxUnsentBytes: Int
    /// `ServerConfiguration.maxMessageBytes`.
    let maxMessageBytes: Int
    /// `ServerConfiguration.idleTimeout`: also how long a CONNECT tunnel may sit idle.
    let idleTimeout: Duration
    private var boundSocket: OpaquePointer?
    /// The TLS context of a listener that speaks TLS (it lives as long as the process).
    private(set) var tlsContext: OpaquePointer?
    /// `ServerConfiguration.tlsHandshakeTimeout`.
    let tlsHandshakeTimeout: Duration

    // Loop-thread state.
    /// Set once shutdown begins: long waits (a long-poll) answer now instead of holding the loop open.
    /// Unchecked, as `unfinishedRequests`: only the loop thread touches them, and every request
    /// reads them (a dynamic exclusivity check costs ~40 instructions each time).
    @exclusivity(unchecked) public private(set) var isDraining = false
    /// Per-loop caches, used on every request. Behind pointers rather than stored `var`s: the
    /// loop thread is their only user, and class properties would pay a dynamic exclusivity
    /// check on each access.
    let date = UnsafeMutablePointer<HTTPDate>.allocate(capacity: 1)
    private let decoder = UnsafeMutablePointer<RequestDecoder>.allocate(capacity: 1)
    /// Requests handed to the handler whose reply has not been fully written yet.
    @exclusivity(unchecked) private var unfinishedRequests = 0
    private var timers: [ObjectIdentifier: LoopTimer] = [:]
    /// Connections whose whole reply was given during their request's callback this turn, and
    /// the event that writes them when the turn's other events have run (`writeQueuedReplies`).
    @exclusivity(unchecked) private var repliesToWrite: [OpaquePointer] = []
    private var writeEvent: OpaquePointer?
    private var mailboxEvent: OpaquePointer?
    private var dnsBase: OpaquePointer?
    /// Kept-alive connections of outbound requests.
    let outboundPool = OutboundPool()
    /// CONNECT tunnels in progress, ended when the loop drains.
    var openTunnels: [ObjectIdentifier: Tunnel] = [:]
    /// WebSocket channels open on this loop, ended when it drains.
    var openChannels: [ObjectIdentifier: WebSocketChannel] = [:]
    /// Streamed answers in progress, ended when the loop drains.
    var openStreams: [ObjectIdentifier: ResponseStream] = [:]
    private var thread: pthread_t?
    /// The thread running the loop, set by that thread when it starts: what debug builds check
    /// loop-only calls against.
    private var runningThread: pthread_t?

    // Cross-thread wake-up: closures queued under a lock, and a pipe byte to wake the loop. Once
    // the loop has ended the mailbox is closed: its pipe's descriptors may belong to others then.
    private struct Mailbox {
        var work: [@Sendable () -> Void] = []
        var isOpen = true
    }
    private let mailbox = Locked(Mailbox())
    private let wakeRead: Int32
    private let wakeWrite: Int32

    init(
        index: Int, configuration: ServerConfiguration, handler: any HTTPHandler, listeningSocket: Int32?,
        ownsSocket: Bool, localPort: Int, localAuthority: String
    ) throws {
        self.index = index
        self.handler = handler
        self.localPort = localPort
        self.localAuthority = localAuthority
        maxUnsentBytes = configuration.maxUnsentBytes
        maxMessageBytes = configuration.maxMessageBytes
        tlsHandshakeTimeout = configuration.tlsHandshakeTimeout
        idleTimeout = configuration.idleTimeout
        decoder.initialize(to: RequestDecoder(localPort: localPort, isSecure: configuration.tls != nil))
        date.initialize(to: HTTPDate())

        guard let config = event_config_new() else { throw ServerError.libevent(operation: "event_config_new") }
        // evhttp toggles read/write interest several times per request; the changelist folds
        // those into two epoll_ctl calls (measured: 7.25 → 5.25 syscalls per request).
        event_config_set_flag(config, Int32(EVENT_BASE_FLAG_EPOLL_USE_CHANGELIST.rawValue))
        let madeBase = event_base_new_with_config(config)
        event_config_free(config)
        guard let madeBase else { throw ServerError.libevent(operation: "event_base_new") }
        guard let madeHTTP = evhttp_new(madeBase) else {
            event_base_free(madeBase)
            throw ServerError.libevent(operation: "evhttp_new")
        }
        base = madeBase
        http = madeHTTP

        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { throw ServerError.socketFailed(operation: "pipe", reason: errnoText()) }
        wakeRead = fds[0]
        wakeWrite = fds[1]
        for fd in fds {
            _ = evutil_make_socket_nonblocking(fd)
            _ = evutil_make_socket_closeonexec(fd)
        }

        let me = Unmanaged.passUnretained(self).toOpaque()
        if let tls = configuration.tls {
            // Every accepted connection starts with a TLS handshake (the context lives as long
            // as the process).
            tlsContext = try TLSContexts.server(tls)
            evhttp_set_bevcb(http, onTLSConnection, me)
        }
        evhttp_set_gencb(http, onRequest, me)
        evhttp_set_allowed_methods(http, HTTPMethod.serverMask)
        evhttp_set_max_body_size(http, Int(configuration.maxBodySize))
        evhttp_set_max_headers_size(http, Int(configuration.maxHeaderSize))
        var idle = timeval(configuration.idleTimeout)
        evhttp_set_timeout_tv(http, &idle)
        // No default Content-Type: a response without one goes out without one.
        evhttp_set_default_content_type(http, nil)
        // Read and drop the rest of an oversized body before answering 413, so a client still
        // sending gets the status instead of a connection reset.
        evhttp_set_flags(http, Int32(EVHTTP_SERVER_LINGERING_CLOSE))

        if let listeningSocket {
            let listenerFlags = LEV_OPT_CLOSE_ON_EXEC | (ownsSocket ? LEV_OPT_CLOSE_ON_FREE : 0)
            // Backlog 0: the socket is already listening.
            guard let listener = evconnlistener_new(base, nil, nil, UInt32(listenerFlags), 0, listeningSocket),
                let bound = evhttp_bind_listener(http, listener)
            else {
                throw ServerError.libevent(operation: "evhttp_bind_listener")
            }
            boundSocket = bound
            AcceptBackoff.register(self, http: http, listener: listener)
        }
        mailboxEvent = event_new(base, wakeRead, Int16(EV_READ | EV_PERSIST), onMailbox, me)
        event_add(mailboxEvent, nil)
        writeEvent = event_new(base, -1, 0, onWriteReplies, me)
    }

    /// A loop on a thread of its own that accepts nothing, for a client that only sends
    /// requests (`send`, through `execute`): the loop runs until the process ends.
    public static func startClient() throws -> EventLoop {
        let loop = try EventLoop(
            index: 0, configuration: ServerConfiguration(), handler: DecliningHandler(), listeningSocket: nil,
            ownsSocket: false, localPort: 0, localAuthority: "")
        try loop.startThread()
        return loop
    }

    // MARK: Running

    func startThread() throws {
        let retained = Unmanaged.passRetained(self).toOpaque()
        var tid = pthread_t()
        let status = pthread_create(
            &tid, nil,
            { arg in
                let loop = Unmanaged<EventLoop>.fromOpaque(arg!).takeRetainedValue()
                loop.run()
                return nil
            }, retained)
        guard status == 0 else {
            Unmanaged<EventLoop>.fromOpaque(retained).release()
            throw ServerError.socketFailed(operation: "pthread_create", reason: String(cString: strerror(status)))
        }
        thread = tid
    }

    private func run() {
        runningThread = pthread_self()
        event_base_dispatch(base)
        tearDown()
    }

    /// Whether the caller is on this loop's thread (or the loop has not started: setting up).
    public var isOnLoopThread: Bool {
        guard let runningThread else { return true }
        return pthread_equal(runningThread, pthread_self()) != 0
    }

    /// Traps in debug builds when called off this loop's thread; free in release builds (the
    /// condition is not evaluated there). Every loop-only entry point calls it.
    @inline(__always)
    func assertOnLoopThread(_ function: StaticString = #function, file: StaticString = #fileID, line: UInt = #line) {
        assert(isOnLoopThread, "\(function) called off event loop \(index)'s thread", file: file, line: line)
    }

    func join() {
        if let thread { pthread_join(thread, nil) }
        thread = nil
    }

    private func tearDown() {
        AcceptBackoff.unregister(http: http)
        for timer in timers.values { timer.release() }
        timers.removeAll()
        for tunnel in openTunnels.values { tunnel.end() }
        for channel in openChannels.values { channel.end() }
        if let mailboxEvent { event_free(mailboxEvent) }
        mailboxEvent = nil
        if let writeEvent { event_free(writeEvent) }
        writeEvent = nil
        outboundPool.close()
        if let dnsBase { evdns_base_free(dnsBase, 0) }
        dnsBase = nil
        // A reply still outstanding after the grace period keeps its evhttp objects alive: freeing
        // them would leave the handler holding a dangling request. The process is exiting.
        if unfinishedRequests == 0 {
            evhttp_free(http)
            event_base_free(base)
        }
        mailbox.withLock { mailbox in
            mailbox.isOpen = false
            mailbox.work.removeAll()
            close(wakeRead)
            close(wakeWrite)
        }
    }

    deinit {
        decoder.deinitialize(count: 1)
        decoder.deallocate()
        date.deinitialize(count: 1)
        date.deallocate()
    }

    // MARK: Cross-thread

    /// Runs `work` on this loop's thread, soon. Safe from any thread. Once the loop has ended
    /// `work` is not run and `false` is returned; `work` is then released on the caller's thread.
    @discardableResult
    public func execute(_ work: @escaping @Sendable () -> Void) -> Bool {
        mailbox.withLock { mailbox in
            guard mailbox.isOpen else { return false }
            mailbox.work.append(work)
            var one: UInt8 = 1
            _ = write(wakeWrite, &one, 1)
            return true
        }
    }

    fileprivate func drainMailbox() {
        var sink = [UInt8](repeating: 0, count: 64)
        while read(wakeRead, &sink, sink.count) > 0 {}
        let work = mailbox.withLock { mailbox -> [@Sendable () -> Void] in
            defer { mailbox.work.removeAll() }
            return mailbox.work
        }
        for item in work { item() }
    }

    // MARK: Requests

    fileprivate func dispatch(_ evRequest: OpaquePointer) {
        evhttp_request_set_on_complete_cb(evRequest, onRequestComplete, Unmanaged.passUnretained(self).toOpaque())
        unfinishedRequests += 1
        if let problem = RequestDecoder.framingProblem(evRequest) {
            var refusal = Response.text("Bad request: \(problem).\n", status: 400)
            refusal.headers.set("Connection", "close")
            Responder(loop: self, request: evRequest, isHead: false).send(refusal)
            return
        }
        let request = decoder.pointee.decode(evRequest)
        let connection = evhttp_request_get_connection(evRequest)
        let responder = Responder(loop: self, request: evRequest, isHead: request.method == .head)
        // Moved, not copied: without `consume` Swift 6.3 copies the request (a retain of each of
        // its fields) into the handler's argument and then destroys this one.
        handler.handle(consume request, responder: responder)
        // Not on a TLS listener: the output is plaintext for OpenSSL, which writes the socket.
        if responder.repliedInFull, tlsContext == nil, let connection {
            if repliesToWrite.isEmpty { event_active(writeEvent, 0, 0) }
            repliesToWrite.append(connection)
        } else if responder.isPending {
            // Answered later (a delay, a long-poll, an upstream, work off the loop): a client
            // that leaves meanwhile must not hold its socket until then.
            responder.watchForDeparture()
        }
    }

    /// Writes the replies given during this turn's request callbacks, once the turn's other ready
    /// events have run (`writeEvent` is activated behind them): evhttp would instead ask the
    /// poller for writability (an `epoll_ctl` on, an `epoll_wait`, an `epoll_ctl` off) for sockets
    /// that almost always have room. Written together, as evhttp's writer would, so a client gets
    /// a turn's answers in one burst rather than one wake-up each.
    fileprivate func writeQueuedReplies() {
        // By index: iterating the array itself would retain a copy of it each turn.
        var index = 0
        while index < repliesToWrite.count {
            writeReply(on: repliesToWrite[index])
            index += 1
        }
        repliesToWrite.removeAll(keepingCapacity: true)
    }

    /// Writes one reply to the socket; what does not fit is left for evhttp's writer, and so is a
    /// connection with a rate limit (`Pacing`).
    private func writeReply(on connection: OpaquePointer) {
        guard let events = evhttp_connection_get_bufferevent(connection),
            bufferevent_get_write_limit(events) == Int.max
        else { return }
        let output = bufferevent_get_output(events)
        // A socket bufferevent's output is frozen at the front: only its own writer may drain it.
        evbuffer_unfreeze(output, 1)
        let written = evbuffer_write(output, bufferevent_getfd(events))
        evbuffer_freeze(output, 1)
        // All of it gone: evhttp's write callback now (it finishes the request, and reads the
        // next one or closes), as its writer would have called it.
        guard written > 0, evbuffer_get_length(output) == 0 else { return }
        repliesWrittenAtOnce += 1
        bufferevent_trigger(events, Int16(EV_WRITE), 0)
    }

    /// Replies `writeQueuedReplies` wrote whole, over the loop's life (read it on the loop's thread).
    @exclusivity(unchecked) public private(set) var repliesWrittenAtOnce = 0

    func requestCompleted() {
        unfinishedRequests -= 1
        if isDraining && unfinishedRequests == 0 { event_base_loopexit(base, nil) }
    }

    /// Stops accepting, lets replies in progress finish, then ends the loop (after `gracePeriod`
    /// at the latest). Runs on the loop thread.
    func beginDraining(gracePeriod: Duration) {
        assertOnLoopThread()
        guard !isDraining else { return }
        isDraining = true
        for tunnel in openTunnels.values { tunnel.end() }
        for channel in openChannels.values { channel.close(code: 1001, reason: "the server is stopping") }
        for stream in openStreams.values { stream.end() }
        if let boundSocket { evhttp_del_accept_socket(http, boundSocket) }
        boundSocket = nil
        if unfinishedRequests == 0 {
            event_base_loopexit(base, nil)
        } else {
            schedule(after: gracePeriod) { [base] in event_base_loopexit(base, nil) }
        }
    }

    /// Stops accepting on `listener` for `pause`, then resumes unless the loop is draining (which
    /// frees the listener). Runs on the loop thread.
    func pauseAccepting(_ listener: OpaquePointer, for pause: Duration) {
        guard !isDraining, let boundSocket, evhttp_bound_socket_get_listener(boundSocket) == listener else { return }
        evconnlistener_disable(listener)
        schedule(after: pause) { [weak self] in
            guard let self, !self.isDraining, let boundSocket = self.boundSocket else { return }
            evconnlistener_enable(evhttp_bound_socket_get_listener(boundSocket))
        }
    }

    // MARK: Timers

    /// Runs `body` on this loop after `delay`. Call on the loop thread.
    @discardableResult
    public func schedule(after delay: Duration, _ body: @escaping () -> Void) -> LoopTimer {
        assertOnLoopThread()
        let timer = LoopTimer(loop: self, body: body)
        timers[ObjectIdentifier(timer)] = timer
        timer.arm(delay)
        return timer
    }

    func forget(_ timer: LoopTimer) {
        timers.removeValue(forKey: ObjectIdentifier(timer))
    }

    // MARK: DNS for outbound requests

    /// The loop's asynchronous resolver (made on first use; reads resolv.conf and /etc/hosts).
    var dns: OpaquePointer? {
        assertOnLoopThread()
        if dnsBase == nil {
            dnsBase =
                evdns_base_new(base, EVDNS_BASE_INITIALIZE_NAMESERVERS)
                ?? evdns_base_new(base, 0)
        }
        return dnsBase
    }
}

private func onRequest(_ request: OpaquePointer?, _ arg: UnsafeMutableRawPointer?) {
    guard let request, let arg else { return }
    Unmanaged<EventLoop>.fromOpaque(arg).takeUnretainedValue().dispatch(request)
}

private func onRequestComplete(_ request: OpaquePointer?, _ arg: UnsafeMutableRawPointer?) {
    guard let arg else { return }
    Unmanaged<EventLoop>.fromOpaque(arg).takeUnretainedValue().requestCompleted()
}

private func onTLSConnection(_ base: OpaquePointer?, _ arg: UnsafeMutableRawPointer?) -> OpaquePointer? {
    guard let arg else { return nil }
    let loop = Unmanaged<EventLoop>.fromOpaque(arg).takeUnretainedValue()
    guard let context = loop.tlsContext, let ssl = SSL_new(context) else { return nil }
    TLSFailures.watch(ssl)
    HandshakeDeadline.start(for: ssl, on: loop)
    return bufferevent_openssl_socket_new(base, -1, ssl, BUFFEREVENT_SSL_ACCEPTING, Int32(BEV_OPT_CLOSE_ON_FREE.rawValue))
}

private func onWriteReplies(_ fd: Int32, _ what: Int16, _ arg: UnsafeMutableRawPointer?) {
    guard let arg else { return }
    Unmanaged<EventLoop>.fromOpaque(arg).takeUnretainedValue().writeQueuedReplies()
}

private func onMailbox(_ fd: Int32, _ what: Int16, _ arg: UnsafeMutableRawPointer?) {
    guard let arg else { return }
    Unmanaged<EventLoop>.fromOpaque(arg).takeUnretainedValue().drainMailbox()
}

extension timeval {
    init(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        self.init(tv_sec: Int(max(0, seconds)), tv_usec: Int(max(0, attoseconds) / 1_000_000_000_000))
    }
}

/// The handler of a loop that accepts no connections, so it is never asked.
private struct DecliningHandler: HTTPHandler {
    func handle(_ request: consuming Request, responder: Responder) {
        responder.send(Response(status: 404))
    }
}
