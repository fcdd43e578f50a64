import CLibevent
import WireFormat

/// Opens a WebSocket to another server, as a client (a relay's upstream): connects (`ws://`, or
/// `wss://` with `tls`), sends the opening handshake with `headers`, checks the `101` and its
/// `Sec-WebSocket-Accept`, and hands over the channel; or says why not. Loop-only; keeps itself
/// alive until it has answered.
public final class WebSocketClient {
    /// Where to, parsed from `ws://host[:port]/path?query` (or `wss://`, `http://`, `https://`).
    public struct Target: Sendable {
        public let host: String
        public let port: Int
        public let isSecure: Bool
        public let pathAndQuery: String

        public init?(_ url: String) {
            // ws:// and wss:// read as http:// and https:// (the same authority rules).
            let lower = url.lowercased()
            let asHTTP = lower.hasPrefix("ws://") ? "http://" + url.dropFirst(5) : lower.hasPrefix("wss://") ? "https://" + url.dropFirst(6) : url
            guard let origin = URLOrigin(asHTTP) else { return nil }
            host = origin.host
            port = origin.port
            isSecure = origin.scheme == "https"
            let afterAuthority = asHTTP.dropFirst(origin.scheme.count + 3).drop { $0 != "/" && $0 != "?" }
            pathAndQuery = afterAuthority.isEmpty ? "/" : (afterAuthority.first == "?" ? "/" + afterAuthority : String(afterAuthority))
        }
    }

    private let loop: EventLoop
    private let target: Target
    private let key = Base64.encode((0..<16).map { _ in UInt8.random(in: 0...255) })
    private let maxMessageBytes: Int
    private var events: OpaquePointer?
    private var completion: ((Result<WebSocketChannel, WebSocketFailure>) -> Void)?
    private var retained: Unmanaged<WebSocketClient>?
    private var request: [UInt8] = []
    /// The server's answer so far, up to its blank line.
    private var head: [UInt8] = []

    /// The handshake's head may not be longer (a server that sends no end of head is cut off).
    static let maxHeadBytes = 64 * 1024

    /// Connects; `completion` runs once, on `loop`, with the open channel or a failure (1014 and why).
    public static func connect(
        to target: Target, headers: [(String, String)], tls: TLSClientSettings = TLSClientSettings(), on loop: EventLoop,
        maxMessageBytes: Int, completion: @escaping (Result<WebSocketChannel, WebSocketFailure>) -> Void
    ) {
        loop.assertOnLoopThread()
        let client = WebSocketClient(loop: loop, target: target, maxMessageBytes: maxMessageBytes)
        client.completion = completion
        client.start(headers: headers, tls: tls)
    }

    private init(loop: EventLoop, target: Target, maxMessageBytes: Int) {
        self.loop = loop
        self.target = target
        self.maxMessageBytes = maxMessageBytes
    }

    private func start(headers: [(String, String)], tls: TLSClientSettings) {
        let made: Result<OpaquePointer, OutboundError> =
            target.isSecure
            ? loop.tlsConnection(host: target.host, settings: tls)
            : bufferevent_socket_new(loop.base, -1, Int32(BEV_OPT_CLOSE_ON_FREE.rawValue)).map { .success($0) } ?? .failure(.connectionFailed(""))
        guard case .success(let events) = made else { return finish(.failure(WebSocketFailure(1014, "cannot make a connection to \(target.host)"))) }
        self.events = events
        retained = Unmanaged.passRetained(self)
        var lines =
            "GET \(target.pathAndQuery) HTTP/1.1\r\nHost: \(target.host)\(target.port == (target.isSecure ? 443 : 80) ? "" : ":\(target.port)")\r\n"
        lines += "Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: \(key)\r\nSec-WebSocket-Version: 13\r\n"
        for (name, value) in headers { lines += "\(name): \(value)\r\n" }
        request = Array((lines + "\r\n").utf8)
        var deadline = timeval(tv_sec: 10, tv_usec: 0)
        bufferevent_set_timeouts(events, &deadline, &deadline)
        bufferevent_setcb(events, onClientRead, nil, onClientEvent, Unmanaged.passUnretained(self).toOpaque())
        bufferevent_enable(events, Int16(EV_READ | EV_WRITE))
        if bufferevent_socket_connect_hostname(events, loop.dns, AF_UNSPEC, target.host, Int32(target.port)) != 0 {
            finish(.failure(WebSocketFailure(1014, "cannot connect to \(target.host):\(target.port)")))
        }
    }

    fileprivate func connected() {
        guard let events else { return }
        _ = request.withUnsafeBytes { evbuffer_add(bufferevent_get_output(events), $0.baseAddress, $0.count) }
    }

    fileprivate func readable() {
        guard let events else { return }
        let input = bufferevent_get_input(events)
        let count = evbuffer_get_length(input)
        var bytes = [UInt8](repeating: 0, count: count)
        _ = bytes.withUnsafeMutableBytes { evbuffer_remove(input, $0.baseAddress, count) }
        head += bytes
        guard let end = Self.endOfHead(head) else {
            if head.count > Self.maxHeadBytes { finish(.failure(WebSocketFailure(1014, "\(target.host) sent no end to its answer's head"))) }
            return
        }
        let text = String(decoding: head[..<end], as: UTF8.self)
        let lines = text.split(separator: "\r\n", omittingEmptySubsequences: false)
        let status = lines.first?.split(separator: " ").dropFirst().first.map(String.init) ?? ""
        guard status == "101" else {
            return finish(.failure(WebSocketFailure(1014, "\(target.host) answered the upgrade with \(lines.first.map(String.init) ?? "nothing")")))
        }
        let accept = lines.dropFirst().first { $0.lowercased().hasPrefix("sec-websocket-accept:") }
            .map { String($0.dropFirst("sec-websocket-accept:".count)).trimmingSpaces }
        guard accept == WebSocketHandshake.acceptValue(for: key) else {
            return finish(.failure(WebSocketFailure(1014, "\(target.host)'s Sec-WebSocket-Accept does not answer the key")))
        }
        let leftover = Array(head[(end + 4)...])
        let (loop, maxMessageBytes, completion) = (self.loop, self.maxMessageBytes, self.completion)
        self.completion = nil
        self.events = nil
        forget()
        WebSocketChannel.startClient(
            loop: loop, events: events, leftover: leftover, maxMessageBytes: maxMessageBytes, maxUnsentBytes: max(4 << 20, 2 * maxMessageBytes)
        ) { channel in completion?(.success(channel)) }
    }

    fileprivate func failed(_ what: Int16) {
        let reason = what & Int16(BEV_EVENT_TIMEOUT) != 0 ? "timed out" : "closed the connection"
        finish(.failure(WebSocketFailure(1014, "\(target.host):\(target.port) \(reason) before the WebSocket opened")))
    }

    private func finish(_ result: Result<WebSocketChannel, WebSocketFailure>) {
        if let events { bufferevent_free(events) }
        events = nil
        let completion = self.completion
        self.completion = nil
        forget()
        completion?(result)
    }

    private func forget() {
        retained?.release()
        retained = nil
    }

    /// Where `\r\n\r\n` begins, if it has come.
    private static func endOfHead(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for index in 0...(bytes.count - 4) where bytes[index] == 13 && bytes[index + 1] == 10 && bytes[index + 2] == 13 && bytes[index + 3] == 10 {
            return index
        }
        return nil
    }
}

private func client(_ arg: UnsafeMutableRawPointer?) -> WebSocketClient? {
    arg.map { Unmanaged<WebSocketClient>.fromOpaque($0).takeUnretainedValue() }
}

private func onClientRead(_ bev: OpaquePointer?, _ arg: UnsafeMutableRawPointer?) {
    client(arg)?.readable()
}

private func onClientEvent(_ bev: OpaquePointer?, _ what: Int16, _ arg: UnsafeMutableRawPointer?) {
    guard let client = client(arg) else { return }
    if what & Int16(BEV_EVENT_CONNECTED) != 0 { return client.connected() }
    if what & Int16(BEV_EVENT_EOF | BEV_EVENT_ERROR | BEV_EVENT_TIMEOUT) != 0 { client.failed(what) }
}

/// Two channels joined: what each side sends goes to the other, and a close on one closes the
/// other (with its code). `observe` hears every message and which way it went (a recording), and
/// each side's close.
public enum WebSocketRelay {
    /// Relays `client` (a channel just opened here) to `target`: what the client sends before the
    /// upstream answers waits for it; an upstream that cannot be reached closes the client with
    /// 1014 and why.
    public static func open(
        _ client: WebSocketChannel, to target: WebSocketClient.Target, headers: [(String, String)],
        tls: TLSClientSettings = TLSClientSettings(), observe: ((WebSocketEvent, _ fromClient: Bool) -> Void)? = nil
    ) {
        var waiting: [WebSocketEvent] = []
        client.onMessage = { waiting.append($0) }
        WebSocketClient.connect(to: target, headers: headers, tls: tls, on: client.loop, maxMessageBytes: client.loop.maxMessageBytes) { result in
            switch result {
            case .success(let upstream):
                join(client, upstream, observe: observe)
                for event in waiting {
                    observe?(event, true)
                    upstream.forward(event)
                }
                waiting = []
            case .failure(let failure):
                observe?(.close(code: 1014, reason: failure.reason), false)
                client.close(code: 1014, reason: failure.reason)
            }
        }
    }

    public static func join(
        _ client: WebSocketChannel, _ upstream: WebSocketChannel, observe: ((WebSocketEvent, _ fromClient: Bool) -> Void)? = nil
    ) {
        client.onMessage = { [weak upstream] event in
            observe?(event, true)
            upstream?.forward(event)
        }
        upstream.onMessage = { [weak client] event in
            observe?(event, false)
            client?.forward(event)
        }
        client.onClose = { [weak upstream] code, reason in
            observe?(.close(code: code, reason: reason), true)
            upstream?.close(code: Self.passable(code), reason: reason)
        }
        upstream.onClose = { [weak client] code, reason in
            observe?(.close(code: code, reason: reason), false)
            client?.close(code: Self.passable(code), reason: reason)
        }
    }

    /// What the app said of itself (cookies, authorization, its protocols…), for the upstream
    /// handshake; the handshake's own fields are made anew, the proxy's are not passed on.
    public static func forwardedHeaders(_ headers: HTTPHeaders) -> [(String, String)] {
        let skipped: Set<String> = [
            "host", "upgrade", "connection", "sec-websocket-key", "sec-websocket-version", "sec-websocket-extensions", "proxy-connection",
            "proxy-authorization", "content-length", "x-understudy-scope",
        ]
        return headers.fields.filter { !skipped.contains($0.name.lowercased()) }.map { ($0.name, $0.value) }
    }

    /// A code the other side may be sent: 1005/1006 (none, dropped) become 1001 (going away).
    static func passable(_ code: UInt16) -> UInt16 {
        WebSocketFrameReader.isValidCloseCode(code) ? code : 1001
    }
}

extension WebSocketChannel {
    fileprivate func forward(_ event: WebSocketEvent) {
        switch event {
        case .text(let text): send(text: text)
        case .binary(let bytes): send(binary: bytes)
        default: break
        }
    }
}
