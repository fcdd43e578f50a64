import HTTPServer
import JSON

/// How one replica of a team server marks what it sends another: a relayed request or a shared
/// write carries `X-Understudy-Forwarded` (so it is never sent on) and its version. Every server
/// reads the marks, in a fleet or not: a write from a peer of another version is refused.
public enum PeerCall {
    public static let forwardedHeader = "X-Understudy-Forwarded"
    public static let versionHeader = "X-Understudy-Version"

    /// Whether `request` came from a peer.
    public static func isForwarded(_ request: Request) -> Bool { request.headers[forwardedHeader] != nil }

    /// A call a peer sent: refused (`409`) when that peer runs another version, whose shapes may differ.
    static func refusal(of request: Request) -> Response? {
        guard isForwarded(request), let version = request.headers[versionHeader], version != UnderstudyVersion.current else { return nil }
        return .json(
            JSONValue.object([("message", .string("a peer of version \(version) forwarded a write; this replica is \(UnderstudyVersion.current)"))])
                .serialized,
            status: 409)
    }
}
