import CLibevent

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One open WebSocket, server side, on the loop that accepted it: frames in and out, pings
/// answered, the close handshake, and the RFC's close code for whatever the peer gets wrong. Its
/// owner hears each message (`onMessage`) and the end (`onClose`), once. Everything but `loop`
/// is the loop's: call `send` and `close` there (`loop.execute` from elsewhere). Lives until it
/// ends; the loop holds it meanwhile.
public final class WebSocketChannel: @unchecked Sendable {
    public let loop: EventLoop
    /// A message, text or binary, whole.
    public var onMessage: ((WebSocketEvent) -> Void)?
    /// The channel has ended: the close code and reason (the peer's, or what this side sent;
    /// 1006 when the connection dropped without a close frame).
    public var onClose: ((_ code: UInt16, _ reason: String) -> Void)?

    private var events: OpaquePointer?
    /// evhttp's connection the channel took over in place (a TLS one): freed with the channel,
    /// which frees `events` and closes the socket.
    private var connection: OpaquePointer?
    /// This side is the client (a relay's upstream): its frames are masked, the server's are not.
    private let isClient: Bool
    private var reader: WebSocketFrameReader
    private let deflate: WebSocketDeflate?
    /// Bytes waiting to be written past which the client is taken to be gone (it reads too
    /// slowly to keep up): the server never buffers without bound for it.
    private let maxUnsentBytes: Int
    private var closeSent = false
    private var closeReceived = false
    /// The peer broke the protocol: its bytes are dropped from then on.
    private var failed = false
    private var ended = false
    private var retained: Unmanaged<WebSocketChannel>?

    /// Drives `events` (a socket evhttp has let go of, or, with `connection`, evhttp's own TLS
    /// connection, freed with the channel), writes `handshake`'s 101 on it and starts reading
    /// frames; `opened` gets the channel before the first frame is read.
    static func start(
        loop: EventLoop, events: OpaquePointer, connection: OpaquePointer?, handshake: WebSocketHandshake, maxMessageBytes: Int,
        maxUnsentBytes: Int, opened: (WebSocketChannel) -> Void
    ) {
        // A channel may sit idle for as long as its client likes.
        bufferevent_set_timeouts(events, nil, nil)
        let channel = WebSocketChannel(
            loop: loop, events: events, connection: connection, isClient: false,
            reader: WebSocketFrameReader(
                masked: true, maxMessageBytes: maxMessageBytes, inflater: handshake.deflate.map { _ in WebSocketInflater() }),
            deflate: handshake.deflate, maxUnsentBytes: maxUnsentBytes)
        // The 101 first: what the owner sends on opening follows it.
        channel.write(handshake.response)
        channel.run(opened: opened)
    }

    /// The client side of a channel a connector opened (`WebSocketClient`): `events` past the
    /// server's 101, `leftover` the bytes that came after it.
    static func startClient(
        loop: EventLoop, events: OpaquePointer, leftover: [UInt8], maxMessageBytes: Int, maxUnsentBytes: Int, opened: (WebSocketChannel) -> Void
    ) {
        bufferevent_set_timeouts(events, nil, nil)
        let channel = WebSocketChannel(
            loop: loop, events: events, connection: nil, isClient: true,
            reader: WebSocketFrameReader(masked: false, maxMessageBytes: maxMessageBytes), deflate: nil, maxUnsentBytes: maxUnsentBytes)
        channel.run(opened: opened)
        if !leftover.isEmpty { channel.take(leftover) }
    }

    private func run(opened: (WebSocketChannel) -> Void) {
        retained = Unmanaged.passRetained(self)
        loop.openChannels[ObjectIdentifier(self)] = self
        opened(self)
        guard let events else { return }
        bufferevent_setcb(events, onChannelRead, onChannelWrite, onChannelEvent, Unmanaged.passUnretained(self).toOpaque())
        bufferevent_enable(events, Int16(EV_READ | EV_WRITE))
    }

    private init(
        loop: EventLoop, events: OpaquePointer, connection: OpaquePointer?, isClient: Bool, reader: WebSocketFrameReader,
        deflate: WebSocketDeflate?, maxUnsentBytes: Int
    ) {
        self.loop = loop
        self.events = events
        self.connection = connection
        self.isClient = isClient
        self.reader = reader
        self.deflate = deflate
        self.maxUnsentBytes = maxUnsentBytes
    }

    /// Whether the channel still takes messages to send.
    public var isOpen: Bool { !ended && !closeSent }

    public func send(text: String) {
        var text = text
        text.withUTF8 { send(.text, UnsafeRawBufferPointer($0)) }
    }

    public func send(binary: [UInt8]) {
        binary.withUnsafeBytes { send(.binary, $0) }
    }

    private func send(_ opcode: WebSocketOpcode, _ payload: UnsafeRawBufferPointer) {
        loop.assertOnLoopThread()
        guard isOpen else { return }
        if let deflate, let compressed = deflate.deflate(Array(payload)) {
            write(WebSocketFrameWriter.frame(opcode, compressed, rsv1: true))
        } else if isClient {
            write(frame(opcode, Array(payload)))
        } else {
            // A server's frame is its header and the payload as it is: both go to the socket's
            // buffer with no frame assembled first.
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: WebSocketFrameWriter.maxHeaderBytes) { header in
                let length = WebSocketFrameWriter.writeHeader(opcode, payloadCount: payload.count, into: header)
                write(UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(header)[..<length]), payload)
            }
        }
    }

    /// Starts the close handshake: the close frame goes out, and the connection ends when the
    /// peer answers with its own (or drops).
    public func close(code: UInt16 = 1000, reason: String = "") {
        loop.assertOnLoopThread()
        guard isOpen else { return }
        closeSent = true
        write(WebSocketFrameWriter.close(code: code, reason: reason, maskKey: maskKey))
        report(code, reason)
        endAfterGrace()
    }

    private func write(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { write($0, UnsafeRawBufferPointer(start: nil, count: 0)) }
    }

    /// `first` then `second` to the socket's buffer, unless the client leaves more than
    /// `maxUnsentBytes` unread: then the channel ends.
    private func write(_ first: UnsafeRawBufferPointer, _ second: UnsafeRawBufferPointer) {
        guard let events else { return }
        let output = bufferevent_get_output(events)
        let count = first.count + second.count
        guard evbuffer_get_length(output) + count <= maxUnsentBytes || count > maxUnsentBytes && evbuffer_get_length(output) == 0
        else {
            report(WebSocketFailure.policyViolation, "the client reads too slowly: over \(maxUnsentBytes) bytes wait for it")
            return end()
        }
        guard !second.isEmpty else {
            evbuffer_add(output, first.baseAddress, first.count)
            return
        }
        // A small frame goes in with one call (each add costs as much as a small copy).
        guard count <= Self.copiedFrameBytes else {
            for part in [first, second] { evbuffer_add(output, part.baseAddress, part.count) }
            return
        }
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: count) { frame in
            let raw = UnsafeMutableRawBufferPointer(frame)
            raw.copyMemory(from: first)
            UnsafeMutableRawBufferPointer(rebasing: raw[first.count...]).copyMemory(from: second)
            evbuffer_add(output, frame.baseAddress, count)
        }
    }

    /// Frames up to this size are assembled on the stack and added to the socket's buffer whole.
    private static let copiedFrameBytes = 1024

    /// A client masks every frame it sends (RFC 6455 5.3), with a fresh key; a server never does.
    private var maskKey: [UInt8]? { isClient ? (0..<4).map { _ in UInt8.random(in: 0...255) } : nil }

    private func frame(_ opcode: WebSocketOpcode, _ payload: [UInt8]) -> [UInt8] {
        WebSocketFrameWriter.frame(opcode, payload, maskKey: maskKey)
    }

    fileprivate func readable() {
        guard let events else { return }
        let input = bufferevent_get_input(events)
        let count = evbuffer_get_length(input)
        guard count > 0 else { return }
        // Out of the socket's buffer into the reader's, through a scratch buffer (the stack's for
        // the usual small read).
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: count) { scratch in
            let removed = evbuffer_remove(input, scratch.baseAddress, count)
            take(UnsafeBufferPointer(rebasing: scratch[..<max(0, Int(removed))]))
        }
    }

    /// Bytes the peer sent, read.
    private func take(_ bytes: some Collection<UInt8>) {
        // After its close frame a peer sends nothing more, and after a violation nothing it sends
        // is read: dropped.
        guard !closeReceived && !failed else { return }
        do throws(WebSocketFailure) {
            try reader.read(bytes) { event in
                // What follows the end or the peer's close frame is not handled.
                if !ended && !closeReceived { handle(event) }
            }
        } catch {
            fail(error)
        }
    }

    private func handle(_ event: WebSocketEvent) {
        switch event {
        case .ping(let payload):
            if isOpen { write(frame(.pong, payload)) }
        case .pong:
            break
        case .close(let code, let reason):
            closeReceived = true
            if !closeSent {
                // Echo the peer's code (RFC 6455 5.5.1); none for none.
                closeSent = true
                write(WebSocketFrameWriter.close(code: code, maskKey: maskKey))
                report(code ?? 1005, reason)
            }
            finishWhenWritten()
        case .text, .binary:
            onMessage?(event)
        }
    }

    /// The peer broke the protocol: the close frame with the RFC's code; what it sends after is
    /// read and dropped (closing with unread bytes would reset the connection, and the client
    /// might never see the code) until it closes, or for `closingGrace` at most.
    private func fail(_ failure: WebSocketFailure) {
        failed = true
        if !closeSent {
            closeSent = true
            write(WebSocketFrameWriter.close(code: failure.code, reason: failure.reason, maskKey: maskKey))
            report(failure.code, failure.reason)
        }
        endAfterGrace()
    }

    /// How long the server waits for the peer's answer to its close frame.
    static let closingGrace: Duration = .seconds(3)

    private func endAfterGrace() {
        _ = loop.schedule(after: Self.closingGrace) { [weak self] in self?.end() }
    }

    private func finishWhenWritten() {
        guard let events else { return }
        if evbuffer_get_length(bufferevent_get_output(events)) == 0 { return end() }
        bufferevent_disable(events, Int16(EV_READ))
    }

    fileprivate func written() {
        guard let events, closeSent && closeReceived else { return }
        if evbuffer_get_length(bufferevent_get_output(events)) == 0 { end() }
    }

    fileprivate func dropped() {
        report(1006, "the connection closed without a close frame")
        end()
    }

    private func report(_ code: UInt16, _ reason: String) {
        guard let onClose else { return }
        self.onClose = nil
        onClose(code, reason)
    }

    /// The connection drops with no close frame, as when a device loses its network: the peer
    /// sees 1006.
    public func drop() {
        loop.assertOnLoopThread()
        report(1006, "dropped: the network went offline")
        end()
    }

    /// The socket closed; the loop forgets the channel.
    func end() {
        guard !ended else { return }
        ended = true
        report(1006, "the server stopped")
        onMessage = nil
        if let connection {
            evhttp_connection_free(connection)
        } else if let events {
            bufferevent_free(events)
        }
        connection = nil
        events = nil
        loop.openChannels[ObjectIdentifier(self)] = nil
        retained?.release()
        retained = nil
    }
}

private func channel(_ arg: UnsafeMutableRawPointer?) -> WebSocketChannel? {
    arg.map { Unmanaged<WebSocketChannel>.fromOpaque($0).takeUnretainedValue() }
}

private func onChannelRead(_ bev: OpaquePointer?, _ arg: UnsafeMutableRawPointer?) {
    channel(arg)?.readable()
}

private func onChannelWrite(_ bev: OpaquePointer?, _ arg: UnsafeMutableRawPointer?) {
    channel(arg)?.written()
}

private func onChannelEvent(_ bev: OpaquePointer?, _ what: Int16, _ arg: UnsafeMutableRawPointer?) {
    if what & Int16(BEV_EVENT_EOF | BEV_EVENT_ERROR | BEV_EVENT_TIMEOUT) != 0 { channel(arg)?.dropped() }
}
