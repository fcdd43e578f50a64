import CLibevent

/// The way back to the client for one request. Reply exactly once with `send`, on the loop that
/// received the request, now or later. Not Sendable: it must not leave its loop's thread.
public final class Responder {
    /// The loop this request belongs to: for timers and outbound requests.
    public let loop: EventLoop
    private var request: OpaquePointer?
    private let isHead: Bool

    init(loop: EventLoop, request: OpaquePointer, isHead: Bool) {
        self.loop = loop
        self.request = request
        self.isHead = isHead
    }

    /// Whether `send` has not been called yet.
    public var isPending: Bool { request != nil }

    /// Writes `response`. The server owns message framing: it sets `Content-Length` (and `Date`),
    /// drops any `Content-Length`/`Transfer-Encoding` the response carries, sends no body for
    /// HEAD, 1xx, 204 and 304 (HEAD keeps the length the body would have), and adds
    /// `Connection: close` while the server is shutting down. A second call is ignored.
    public func send(_ response: Response) {
        guard let request else { return }
        self.request = nil
        let headers = evhttp_request_get_output_headers(request)
        for field in response.headers.fields where !Self.isFraming(field.name) {
            _ = field.name.withCString { name in
                field.value.withCString { value in evhttp_add_header(headers, name, value) }
            }
        }
        if loop.isDraining {
            evhttp_remove_header(headers, "Connection")
            evhttp_add_header(headers, "Connection", "close")
        }
        if Response.statusAllowsBody(response.status) {
            if isHead {
                String(response.body.count).withCString { _ = evhttp_add_header(headers, "Content-Length", $0) }
            } else {
                Self.append(response.body, to: evhttp_request_get_output_buffer(request))
            }
        }
        if let reason = response.reason {
            reason.withCString { evhttp_send_reply(request, Int32(response.status), $0, nil) }
        } else {
            evhttp_send_reply(request, Int32(response.status), nil, nil)
        }
    }

    /// A handler that dropped its responder without replying would leave the client hanging.
    deinit {
        if request != nil {
            send(.text("The handler for this request finished without replying.\n", status: 500))
        }
    }

    private static func isFraming(_ name: String) -> Bool {
        HTTPHeaders.namesEqual(name, "Content-Length") || HTTPHeaders.namesEqual(name, "Transfer-Encoding")
    }

    private static func append(_ body: ResponseBody, to buffer: OpaquePointer?) {
        switch body.storage {
        case .bytes(let bytes):
            bytes.withUnsafeBytes { _ = evbuffer_add(buffer, $0.baseAddress, $0.count) }
        case .shared(let shared):
            guard shared.count > 0 else { return }
            // libevent holds the bytes until written; the retain is dropped in the cleanup callback.
            let owner = Unmanaged.passRetained(shared).toOpaque()
            evbuffer_add_reference(buffer, shared.base, shared.count, { _, _, owner in
                Unmanaged<SharedBytes>.fromOpaque(owner!).release()
            }, owner)
        }
    }
}

@available(*, unavailable)
extension Responder: Sendable {}

extension Request {
    /// Decodes libevent's request. Runs on the loop thread, once per request.
    init(evhttp request: OpaquePointer, localPort: Int) {
        let method = HTTPMethod(evhttp_request_get_command(request)) ?? .get
        let target = evhttp_request_get_uri(request).map { String(cString: $0) } ?? "/"

        let headers = HTTPHeaders(libevent: evhttp_request_get_input_headers(request))
        let body = [UInt8](evbuffer: evhttp_request_get_input_buffer(request))

        var address: UnsafeMutablePointer<CChar>?
        var port: UInt16 = 0
        if let connection = evhttp_request_get_connection(request) {
            evhttp_connection_get_peer(connection, &address, &port)
        }
        self.init(
            method: method, target: target, headers: headers, body: body,
            remoteAddress: address.map { String(cString: $0) } ?? "", remotePort: Int(port),
            localPort: localPort
        )
    }
}
