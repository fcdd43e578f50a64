/// Why an outbound request got no response.
public enum OutboundError: Error, Equatable, CustomStringConvertible {
    case invalidURL(String)
    case unsupportedScheme(String)
    case timedOut(String)
    case connectionFailed(String)
    /// The TLS handshake failed (certificate not trusted, wrong name, no TLS at all…).
    case tlsFailed(String, String)
    /// A large body could not be written to its temporary file.
    case bodyNotStored(String, String)

    public var description: String {
        switch self {
        case .invalidURL(let url): "invalid URL '\(url)'"
        case .unsupportedScheme(let url): "unsupported scheme in '\(url)' (only http:// and https:// are)"
        case .timedOut(let url): "no answer from \(url) in time"
        case .connectionFailed(let url): "connection to \(url) failed or closed before a complete response"
        case .tlsFailed(let url, let reason): "TLS with \(url) failed: \(reason)"
        case .bodyNotStored(let url, let reason): "the answer of \(url) could not be stored: \(reason)"
        }
    }
}
