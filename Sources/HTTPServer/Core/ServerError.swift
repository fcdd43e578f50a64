/// Why the server could not start, with what a user needs to fix it.
public enum ServerError: Error, CustomStringConvertible {
    case cannotResolve(host: String, reason: String)
    case cannotBind(address: String, port: Int, reason: String)
    case socketFailed(operation: String, reason: String)
    case libevent(operation: String)
    case tls(String)

    public var description: String {
        switch self {
        case .cannotResolve(let host, let reason):
            "cannot resolve bind address '\(host)': \(reason)"
        case .cannotBind(let address, let port, let reason):
            "cannot listen on \(address) port \(port): \(reason)"
        case .socketFailed(let operation, let reason):
            "\(operation) failed: \(reason)"
        case .libevent(let operation):
            "libevent: \(operation) failed"
        case .tls(let reason):
            "TLS: \(reason)"
        }
    }
}
