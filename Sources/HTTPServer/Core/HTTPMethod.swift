import CLibevent

/// The request methods the server accepts. Anything else is answered `501 Not Implemented` by
/// libevent itself before a handler sees it (libevent 2.1 cannot report an unknown method's name).
public enum HTTPMethod: String, Sendable, CaseIterable, Hashable {
    case get = "GET"
    case post = "POST"
    case head = "HEAD"
    case put = "PUT"
    case delete = "DELETE"
    case options = "OPTIONS"
    case trace = "TRACE"
    case connect = "CONNECT"
    case patch = "PATCH"

    init?(_ command: evhttp_cmd_type) {
        switch command {
        case EVHTTP_REQ_GET: self = .get
        case EVHTTP_REQ_POST: self = .post
        case EVHTTP_REQ_HEAD: self = .head
        case EVHTTP_REQ_PUT: self = .put
        case EVHTTP_REQ_DELETE: self = .delete
        case EVHTTP_REQ_OPTIONS: self = .options
        case EVHTTP_REQ_TRACE: self = .trace
        case EVHTTP_REQ_CONNECT: self = .connect
        case EVHTTP_REQ_PATCH: self = .patch
        default: return nil
        }
    }

    var command: evhttp_cmd_type {
        switch self {
        case .get: EVHTTP_REQ_GET
        case .post: EVHTTP_REQ_POST
        case .head: EVHTTP_REQ_HEAD
        case .put: EVHTTP_REQ_PUT
        case .delete: EVHTTP_REQ_DELETE
        case .options: EVHTTP_REQ_OPTIONS
        case .trace: EVHTTP_REQ_TRACE
        case .connect: EVHTTP_REQ_CONNECT
        case .patch: EVHTTP_REQ_PATCH
        }
    }

    /// The evhttp mask of methods the server accepts: all of them, CONNECT included (the
    /// handler answers it with a tunnel or a refusal).
    static var serverMask: UInt16 {
        HTTPMethod.allCases.reduce(UInt16(0)) { $0 | UInt16($1.command.rawValue) }
    }
}
