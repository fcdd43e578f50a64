import CLibevent

/// The way back to the client for one request. Reply exactly once with `send`, on the loop that
/// received the request, now or later. Not Sendable: it must not leave its loop's thread.
public final class Responder {
    /// The loop this request belongs to: for timers and outbound requests. Loops live as long
    /// as the server, longer than any request.
    public unowned(unsafe) let loop: EventLoop
    private var request: OpaquePointer?
    private let isHead: Bool

    init(loop: EventLoop, request: OpaquePointer, isHead: Bool) {
        self.loop = loop
        self.request = request
        self.isHead = isHead
    }

    /// Whether `send` has not been called yet.
    public var isPending: Bool { request != nil }

    /// Writes `response`. The server owns message framing: it sets `Content-Length` (and `Date`
    /// unless the response has one), drops any `Content-Length`/`Transfer-Encoding` the response carries, sends no body for
    /// HEAD, 1xx, 204 and 304 (HEAD keeps the length the body would have), and adds
    /// `Connection: close` while the server is shutting down. A second call is ignored.
    public func send(_ response: Response) {
        guard let request else { return }
        self.request = nil
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
        }
        // Date and Content-Length are ours rather than evhttp's: its printf-based formatting
        // of them costs more than the rest of the reply.
        if !hasDate {
            loop.date.pointee.withCurrent { _ = evhttp_add_header(headers, "Date", $0) }
        }
        if Response.statusAllowsBody(response.status) {
            response.body.countText.withCString { _ = evhttp_add_header(headers, "Content-Length", $0) }
            if !isHead { Self.append(response.body, to: evhttp_request_get_output_buffer(request)) }
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

    private static func append(_ body: ResponseBody, to buffer: OpaquePointer?) {
        switch body.storage {
        case .bytes(let bytes):
            bytes.withUnsafeBytes { _ = evbuffer_add(buffer, $0.baseAddress, $0.count) }
        case .shared(let shared) where shared.count <= 1024:
            // Copying a small body costs less than referencing it (chain + cleanup + refcount).
            _ = evbuffer_add(buffer, shared.base, shared.count)
        case .shared(let shared):
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
