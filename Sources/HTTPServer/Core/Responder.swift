import CLibevent

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The way back to the client for one request. Reply exactly once with `send`, on the loop that
/// received the request, now or later. Not Sendable: it must not leave its loop's thread.
public final class Responder {
    /// The loop this request belongs to: for timers and outbound requests. Loops live as long
    /// as the server, longer than any request.
    public unowned(unsafe) let loop: EventLoop
    private var request: OpaquePointer?
    private let isHead: Bool

    /// For an in-memory exchange (tests): no connection; the answer goes to this instead.
    private var received: ((Response) -> Void)?

    init(loop: EventLoop, request: OpaquePointer, isHead: Bool) {
        self.loop = loop
        self.request = request
        self.isHead = isHead
    }

    /// A responder with no connection behind it, for running a handler in memory (tests): the
    /// first answer (or a fault, as status 0) goes to `received`, on `loop`, as the handler gave
    /// it. The server's framing (`Content-Length`, `Date`, no body for HEAD) is not applied.
    public init(inMemoryOn loop: EventLoop, received: @escaping (Response) -> Void) {
        self.loop = loop
        self.request = nil
        self.isHead = false
        self.received = received
    }

    /// Whether `send` has not been called yet.
    public var isPending: Bool { request != nil || received != nil }

    /// Set when the client closed its connection while its answer was held (a delay, a
    /// long-poll, an upstream fetch): its socket is freed then, and the answer is dropped when it
    /// comes (the caller may still journal it, as it would have been sent).
    public private(set) var clientLeft = false

    /// The read event that notices the client closing while its answer is held (`watchForDeparture`).
    private var departureWatch: OpaquePointer?

    /// Hands `response` to an in-memory responder's receiver, once (a real one has none).
    private func deliverInMemory(_ response: Response) {
        guard let received else { return }
        self.received = nil
        received(response)
    }

    /// The simulated network the answer goes through (`Pacing`); nil for most. Only touched on
    /// the loop's thread (the class is not Sendable): unchecked, so the test every reply makes
    /// costs no dynamic exclusivity check.
    @exclusivity(unchecked) public var pacing: Pacing?

    /// Applies `pacing` once: its rate limit now, and `answer` after its delay. False when there
    /// is no delay and the caller goes on at once.
    private func paced(_ answer: @escaping () -> Void) -> Bool {
        guard let pacing, let request else { return false }
        self.pacing = nil
        if let connection = evhttp_request_get_connection(request), let events = evhttp_connection_get_bufferevent(connection) {
            pacing.apply(to: events)
        }
        guard pacing.delay > .zero else { return false }
        loop.schedule(after: pacing.delay, answer)
        return true
    }

    /// Whether the client has closed its side of the connection while this request waits for its
    /// answer (evhttp reads nothing meanwhile, so it would not notice until it writes). A look at
    /// the socket without taking anything from it: bytes waiting (a next request) mean it is there.
    public var clientHasGone: Bool {
        loop.assertOnLoopThread()
        if request == nil, received != nil { return false }
        guard let socket = clientSocket else { return true }
        return Self.peerHasClosed(socket)
    }

    /// The client's socket while the request is unanswered, nil once it is not (or has none).
    private var clientSocket: Int32? {
        guard let request, let connection = evhttp_request_get_connection(request),
            let events = evhttp_connection_get_bufferevent(connection)
        else { return nil }
        let socket = bufferevent_getfd(events)
        return socket >= 0 ? socket : nil
    }

    private static func peerHasClosed(_ socket: Int32) -> Bool {
        var byte: UInt8 = 0
        let count = recv(socket, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT))
        return count == 0 || (count < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
    }

    /// Watches the client's socket while the answer is held: evhttp reads nothing from a
    /// connection whose request awaits its reply, so a client that gave up (a timeout, a closed
    /// long-poll) would hold its descriptor in CLOSE-WAIT until the answer's delay ran out — a
    /// thousand clients under a minute's latency, a thousand descriptors. One read event, armed
    /// once: the first thing the socket shows decides (see `clientSocketIsReadable`).
    func watchForDeparture() {
        loop.assertOnLoopThread()
        guard departureWatch == nil, let socket = clientSocket else { return }
        departureWatch = event_new(loop.base, socket, Int16(EV_READ), onClientSocketReadable, Unmanaged.passUnretained(self).toOpaque())
        event_add(departureWatch, nil)
    }

    private func stopWatchingForDeparture() {
        guard let departureWatch else { return }
        event_free(departureWatch)
        self.departureWatch = nil
    }

    /// The watched socket has something to read. An end of stream (or an error) is a client
    /// that left: its connection is freed now, the request with it. Bytes are a next request
    /// sent ahead (or a TLS record): the client is there, and evhttp reads them after this answer.
    fileprivate func clientSocketIsReadable() {
        stopWatchingForDeparture()
        guard let request, let socket = clientSocket, Self.peerHasClosed(socket) else { return }
        self.request = nil
        clientLeft = true
        pacing = nil
        // evhttp calls no completion for a request freed with its connection: counted here, as a fault's is.
        loop.requestCompleted()
        if let connection = evhttp_request_get_connection(request) {
            evhttp_connection_free(connection)
        } else {
            evhttp_request_free(request)
        }
    }

    /// Writes `response`. The server owns message framing: it sets `Content-Length` (and `Date`
    /// unless the response has one), drops any `Content-Length`/`Transfer-Encoding` the response carries, sends no body for
    /// HEAD, 1xx, 204 and 304 (HEAD keeps the length the body would have), and adds
    /// `Connection: close` while the server is shutting down. A second call is ignored.
    public func send(_ response: Response) {
        loop.assertOnLoopThread()
        if pacing != nil, paced({ self.send(response) }) { return }
        guard let request else { return deliverInMemory(response) }
        self.request = nil
        stopWatchingForDeparture()
        var response = response
        var tracked = response.body.count >= UnsentBytes.trackedSize && !isHead && Response.statusAllowsBody(response.status)
        if tracked, !reserveUnsent(response.body) {
            tracked = false
            let (size, cap) = (response.body.count, loop.maxUnsentBytes)
            UnsentBytes.noteRefusal {
                "understudy: an answer of \(size) bytes was refused (503): answers clients have not read hold \(cap >> 20) MiB (--max-unsent-bytes)"
            }
            response = .text(
                "The server holds as many unread answers as it may (\(loop.maxUnsentBytes >> 20) MiB): try again when "
                    + "clients have read theirs.\n", status: 503)
            response.headers.set("Retry-After", "1")
        }
        let hasBody = Response.statusAllowsBody(response.status)
        writeHeaders(of: response, to: request, contentLength: hasBody ? response.body.countText : nil)
        if hasBody && !isHead { Self.append(response.body, to: evhttp_request_get_output_buffer(request), tracked: tracked) }
        if let reason = response.reason {
            reason.withCString { evhttp_send_reply(request, Int32(response.status), $0, nil) }
        } else {
            evhttp_send_reply(request, Int32(response.status), nil, nil)
        }
        repliedInFull = true
    }

    /// Whether `send` has handed evhttp the whole reply (not paced, dribbled, failed or tunnelled).
    @exclusivity(unchecked) private(set) var repliedInFull = false

    /// Counts a body about to be queued against `--max-unsent-bytes`; false when it does not fit.
    private func reserveUnsent(_ body: ResponseBody) -> Bool {
        switch body.storage {
        case .bytes(let bytes): UnsentBytes.reserve(bytes.count, cap: loop.maxUnsentBytes)
        case .shared(let shared): UnsentBytes.hold(shared, cap: loop.maxUnsentBytes)
        case .file: true
        }
    }

    /// Sends `response` with chunked transfer encoding, its body cut into `chunks` pieces spread
    /// evenly over `duration` (timers on the loop): a slow network, as WireMock's
    /// `chunkedDribbleDelay`. A client that goes away meanwhile just gets no more pieces.
    public func sendDribbled(_ response: Response, chunks: Int, over duration: Duration) {
        loop.assertOnLoopThread()
        if pacing != nil, paced({ self.sendDribbled(response, chunks: chunks, over: duration) }) { return }
        guard let request else { return deliverInMemory(response) }
        guard Response.statusAllowsBody(response.status), !isHead, chunks >= 1 else { return send(response) }
        self.request = nil
        stopWatchingForDeparture()
        writeHeaders(of: response, to: request, contentLength: nil)
        if let reason = response.reason {
            reason.withCString { evhttp_send_reply_start(request, Int32(response.status), $0) }
        } else {
            evhttp_send_reply_start(request, Int32(response.status), nil)
        }
        let body = response.body.bytes
        let pieces = (0..<chunks).map { index in body[(body.count * index / chunks)..<(body.count * (index + 1) / chunks)] }
        let interval = duration / chunks
        func sendPiece(_ index: Int) {
            if !pieces[index].isEmpty {
                let buffer = evbuffer_new()
                pieces[index].withUnsafeBytes { _ = evbuffer_add(buffer, $0.baseAddress, $0.count) }
                evhttp_send_reply_chunk(request, buffer)
                evbuffer_free(buffer)
            }
            if index == pieces.count - 1 {
                evhttp_send_reply_end(request)
            } else {
                loop.schedule(after: interval) { sendPiece(index + 1) }
            }
        }
        // Each piece after its share of the time, the first too (as WireMock): the body takes `duration`.
        loop.schedule(after: interval) { sendPiece(0) }
    }

    /// Sends `head`'s status and headers now and returns the stream its body goes out on, piece by
    /// piece (chunked); nil when the client has gone (or the request is HEAD: `head` is sent whole).
    public func startStream(_ head: Response) -> ResponseStream? {
        loop.assertOnLoopThread()
        guard let request, Response.statusAllowsBody(head.status), !isHead else {
            send(head)
            return nil
        }
        self.request = nil
        stopWatchingForDeparture()
        writeHeaders(of: head, to: request, contentLength: nil)
        if let reason = head.reason {
            reason.withCString { evhttp_send_reply_start(request, Int32(head.status), $0) }
        } else {
            evhttp_send_reply_start(request, Int32(head.status), nil)
        }
        // A slow reader may have a few events waiting, never without bound.
        return ResponseStream(loop: loop, request: request, maxUnsentBytes: max(4 << 20, 2 * loop.maxMessageBytes))
    }

    /// Breaks the connection instead of answering, as WireMock's `fault`s do, so clients can be
    /// tested against a network that fails.
    public func fail(with fault: ConnectionFault) {
        loop.assertOnLoopThread()
        guard let request else { return deliverInMemory(Response(status: 0)) }
        self.request = nil
        stopWatchingForDeparture()
        // On its own turn of the loop: freeing a connection inside evhttp's request callback
        // would pull it out from under evhttp. Until then evhttp does not read from it.
        let loop = self.loop
        loop.schedule(after: .zero) { fault.apply(to: request, loop: loop) }
    }

    /// Answers a `CONNECT` with a tunnel: the client's connection is taken from evhttp and
    /// relayed to `destination`; the tunnel sends the `200` once its destination is reached (or a
    /// `502`). `clientAddress`/`clientPort` are the client's, for the requests served inside, and
    /// `scope` the state scope its proxy credentials named.
    public func openTunnel(to destination: TunnelDestination, clientAddress: String, clientPort: Int, scope: String? = nil) {
        let host: String
        switch destination {
        case .intercept(let name, _, _), .relay(let name, _, _), .passThrough(let name, _): host = name
        }
        let origin = TunnelRegistry.Origin(clientAddress: clientAddress, clientPort: clientPort, host: host, scope: scope)
        takeSocket { loop, socket in Tunnel.start(loop: loop, socket: socket, origin: origin, destination: destination) }
    }

    /// Answers a WebSocket upgrade with `handshake`'s 101 and turns the connection into a channel;
    /// `opened` gets it on the loop before its first frame is read. Nothing when the client has gone.
    /// A plain connection's socket is taken from evhttp; a TLS one keeps evhttp's connection (its
    /// bufferevent holds the session), which the channel then drives and frees.
    public func upgradeToWebSocket(_ handshake: WebSocketHandshake, opened: @escaping (WebSocketChannel) -> Void) {
        // A slow reader may have a few messages waiting, never without bound.
        let limits = (message: loop.maxMessageBytes, unsent: max(4 << 20, 2 * loop.maxMessageBytes))
        // A simulated network's down rate holds for the channel's writes as for an answer's bytes.
        let rate = pacing?.bytesPerSecond.map { Pacing(delay: .zero, bytesPerSecond: $0) }
        if let request, let connection = evhttp_request_get_connection(request), let events = evhttp_connection_get_bufferevent(connection),
            bufferevent_openssl_get_ssl(events) != nil
        {
            self.request = nil
            stopWatchingForDeparture()
            let loop = self.loop
            // evhttp reads nothing more; on the next turn, out of its callback, the channel takes the bufferevent.
            bufferevent_disable(events, Int16(EV_READ | EV_WRITE))
            loop.schedule(after: .zero) {
                // The upgrade's request is never answered through evhttp: it is done here.
                loop.requestCompleted()
                rate?.apply(to: events)
                WebSocketChannel.start(
                    loop: loop, events: events, connection: connection, handshake: handshake, maxMessageBytes: limits.message,
                    maxUnsentBytes: limits.unsent, opened: opened)
            }
            return
        }
        takeSocket { loop, socket in
            _ = evutil_make_socket_nonblocking(socket)
            guard let events = bufferevent_socket_new(loop.base, socket, Int32(BEV_OPT_CLOSE_ON_FREE.rawValue)) else {
                close(socket)
                return
            }
            rate?.apply(to: events)
            WebSocketChannel.start(
                loop: loop, events: events, connection: nil, handshake: handshake, maxMessageBytes: limits.message, maxUnsentBytes: limits.unsent,
                opened: opened)
        }
    }

    /// Takes the client's socket from evhttp (which answers nothing more on it) and hands it to
    /// `owner` on the loop's next turn; nothing when the client has gone.
    private func takeSocket(_ owner: @escaping (EventLoop, Int32) -> Void) {
        loop.assertOnLoopThread()
        guard let request else { return }
        self.request = nil
        stopWatchingForDeparture()
        let loop = self.loop
        guard let connection = evhttp_request_get_connection(request), let events = evhttp_connection_get_bufferevent(connection) else {
            loop.requestCompleted()
            evhttp_request_free(request)
            return
        }
        // evhttp must not read what the client sends next. Its events leave the loop's poller on
        // the next turn, while the socket is still the client's; only then is the socket taken.
        bufferevent_disable(events, Int16(EV_READ | EV_WRITE))
        loop.schedule(after: .zero) {
            defer { loop.requestCompleted() }
            let socket = bufferevent_getfd(events)
            let owned = socket >= 0 ? dup(socket) : -1
            // evhttp shuts its socket down and closes it when freed: it gets a stand-in under
            // the same number, and the client's socket lives on in `owned`.
            let standIn = StandInSocket.make()
            if socket >= 0, standIn >= 0 {
                dup2(standIn, socket)
            }
            if standIn >= 0 { close(standIn) }
            evhttp_connection_free(connection)
            if owned >= 0 { owner(loop, owned) }
        }
    }

    private func writeHeaders(of response: Response, to request: OpaquePointer, contentLength: String?) {
        let headers = evhttp_request_get_output_headers(request)
        var hasDate = false
        for field in response.headers.fields {
            switch Self.role(of: field.name) {
            case .framing: continue
            case .date: hasDate = true
            case .other: break
            }
            _ = field.name.withCString { name in
                field.value.withCString { value in evhttp_add_header(headers, name, value) }
            }
        }
        if loop.isDraining {
            evhttp_remove_header(headers, "Connection")
            evhttp_add_header(headers, "Connection", "close")
            // A proxied request's connection closes on this one's absence (RequestDecoder).
            evhttp_remove_header(headers, "Proxy-Connection")
        }
        // Date and Content-Length are ours rather than evhttp's: its printf-based formatting
        // of them costs more than the rest of the reply.
        if !hasDate {
            loop.date.pointee.withCurrent { _ = evhttp_add_header(headers, "Date", $0) }
        }
        if let contentLength {
            contentLength.withCString { _ = evhttp_add_header(headers, "Content-Length", $0) }
        }
    }

    /// A handler that dropped its responder without replying would leave the client hanging (in
    /// memory too: a test waiting for the answer). (A responder that has replied may be released
    /// on any thread: it holds nothing of libevent's.)
    deinit {
        stopWatchingForDeparture()
        if isPending {
            loop.assertOnLoopThread()
            send(.text("The handler for this request finished without replying.\n", status: 500))
        }
    }

    private enum HeaderRole { case framing, date, other }

    private static func role(of name: String) -> HeaderRole {
        // Most names start with neither letter: one byte decides.
        switch name.utf8.first.map({ $0 | 0x20 }) {
        case UInt8(ascii: "c") where HTTPHeaders.namesEqual(name, "Content-Length"): .framing
        case UInt8(ascii: "t") where HTTPHeaders.namesEqual(name, "Transfer-Encoding"): .framing
        case UInt8(ascii: "d") where HTTPHeaders.namesEqual(name, "Date"): .date
        default: .other
        }
    }

    /// `tracked`: the body was counted in `UnsentBytes` by `reserveUnsent`, and is given back when
    /// libevent lets go of it, however that ends.
    private static func append(_ body: ResponseBody, to buffer: OpaquePointer?, tracked: Bool) {
        switch body.storage {
        case .bytes(let bytes) where tracked:
            // Reserved in `send`; released when libevent lets go of the bytes, however that ends.
            let owner = Unmanaged.passRetained(SharedBytes(bytes)).toOpaque()
            let shared = Unmanaged<SharedBytes>.fromOpaque(owner).takeUnretainedValue()
            evbuffer_add_reference(
                buffer, shared.base, shared.count,
                { _, _, owner in
                    let shared = Unmanaged<SharedBytes>.fromOpaque(owner!).takeRetainedValue()
                    UnsentBytes.release(shared.count)
                }, owner)
        case .bytes(let bytes):
            bytes.withUnsafeBytes { _ = evbuffer_add(buffer, $0.baseAddress, $0.count) }
        case .shared(let shared) where shared.count <= 1024:
            // Copying a small body costs less than referencing it (chain + cleanup + refcount).
            _ = evbuffer_add(buffer, shared.base, shared.count)
        case .shared(let shared) where tracked:
            let owner = Unmanaged.passRetained(shared).toOpaque()
            evbuffer_add_reference(
                buffer, shared.base, shared.count,
                { _, _, owner in
                    let shared = Unmanaged<SharedBytes>.fromOpaque(owner!).takeRetainedValue()
                    UnsentBytes.letGo(shared)
                }, owner)
        case .shared(let shared):
            // libevent holds the bytes until written; the retain is dropped in the cleanup callback.
            let owner = Unmanaged.passRetained(shared).toOpaque()
            evbuffer_add_reference(
                buffer, shared.base, shared.count,
                { _, _, owner in
                    Unmanaged<SharedBytes>.fromOpaque(owner!).release()
                }, owner)
        case .file(let file):
            // libevent owns (and closes) the descriptor once added; if it cannot take it, the
            // bytes are read here instead, so the client still gets the Content-Length promised.
            let descriptor = file.openDescriptor()
            if descriptor < 0 || evbuffer_add_file(buffer, descriptor, 0, Int64(file.count)) != 0 {
                if descriptor >= 0 { close(descriptor) }
                let bytes = file.read(at: 0, count: file.count)
                bytes.withUnsafeBytes { _ = evbuffer_add(buffer, $0.baseAddress, $0.count) }
            }
        }
    }
}

@available(*, unavailable)
extension Responder: Sendable {}

private func onClientSocketReadable(_ fd: Int32, _ what: Int16, _ arg: UnsafeMutableRawPointer?) {
    guard let arg else { return }
    Unmanaged<Responder>.fromOpaque(arg).takeUnretainedValue().clientSocketIsReadable()
}

/// Ways to answer with a broken connection instead of a response (WireMock's `fault` values).
public enum ConnectionFault: String, Sendable, CaseIterable {
    /// Close without sending a byte.
    case emptyResponse = "EMPTY_RESPONSE"
    /// Close with a TCP reset (SO_LINGER 0): the client sees "connection reset by peer".
    case connectionResetByPeer = "CONNECTION_RESET_BY_PEER"
    /// Send bytes that are not HTTP, then close.
    case randomDataThenClose = "RANDOM_DATA_THEN_CLOSE"
    /// Send a 200 status line with chunked encoding, then a chunk that is not one, then close.
    case malformedResponseChunk = "MALFORMED_RESPONSE_CHUNK"

    fileprivate func apply(to request: OpaquePointer, loop: EventLoop) {
        defer { loop.requestCompleted() }
        guard let connection = evhttp_request_get_connection(request) else {
            // The client went away first; evhttp left the request to us.
            evhttp_request_free(request)
            return
        }
        let socket = bufferevent_getfd(evhttp_connection_get_bufferevent(connection))
        switch self {
        case .emptyResponse:
            break
        case .connectionResetByPeer:
            // evhttp shuts the socket down (a FIN) before closing it, so the reset must come
            // first: close it abortively now and leave evhttp a stand-in socket under the same
            // number to shut down and close.
            var option = linger(l_onoff: 1, l_linger: 0)
            setsockopt(socket, SOL_SOCKET, SO_LINGER, &option, socklen_t(MemoryLayout<linger>.size))
            let standIn = StandInSocket.make()
            if standIn >= 0 {
                dup2(standIn, socket)
                close(standIn)
            }
        case .randomDataThenClose:
            Self.write((0..<64).map { _ in UInt8.random(in: 0...255) }, to: socket)
        case .malformedResponseChunk:
            Self.write(Array("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nnot a chunk size\r\n@#%\r\n".utf8), to: socket)
        }
        // Frees the request with it and closes the socket (with a reset when lingering 0).
        evhttp_connection_free(connection)
    }

    private static func write(_ bytes: [UInt8], to socket: Int32) {
        _ = bytes.withUnsafeBytes { PortableSocket.send(socket, $0) }
    }
}
