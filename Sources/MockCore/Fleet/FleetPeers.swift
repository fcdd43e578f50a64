import Foundation
import HTTPServer
import JSON

/// A team server's other replicas (`serve --peer URL`). Every state scope lives on one replica
/// (nginx hashes it), but the `default` scope's admin writes — stubs, scenarios, settings, body
/// files, resets made without a scope — are shared: made here, then sent to every peer, marked
/// so that a peer does not send them on. The answer waits for the peers and names those that
/// failed (`X-Understudy-Peers-Failed`); the write stands here whatever they say.
/// docs/team-server.md.
public struct FleetPeers: Sendable {
    /// The peers' base URLs (`http://understudy-1.understudy-peers:8080`).
    public let peers: [String]
    /// Sent to peers as `Authorization: Bearer …`: every replica has the same token.
    let token: String?

    static let forwardedHeader = "X-Understudy-Forwarded"
    static let versionHeader = "X-Understudy-Version"
    static let failedHeader = "X-Understudy-Peers-Failed"
    static let timeout: Duration = .seconds(5)

    public init(peers: [String], token: String?) {
        self.peers = peers.map { $0.hasSuffix("/") ? String($0.dropLast()) : $0 }
        self.token = token
    }

    /// `peers` without this replica itself: every replica of a StatefulSet gets the same list, and
    /// a pod's host name is its peer name's first label (`understudy-0` of `understudy-0.understudy-peers`).
    public static func others(_ peers: [String], thisHost: String) -> [String] {
        let me = thisHost.lowercased()
        return peers.filter { url in
            guard let host = URL(string: url)?.host?.lowercased() else { return true }
            return host != me && host.split(separator: ".").first.map(String.init) != me
        }
    }

    /// Whether the answer `response` to `request`, in `scope`, is a shared admin write to pass on.
    func forwards(_ request: Request, _ response: Response, scope: StateScope) -> Bool {
        guard !peers.isEmpty, scope.isDefault, [.post, .put, .patch, .delete].contains(request.method),
              (200..<300).contains(response.status), request.headers[Self.forwardedHeader] == nil else { return false }
        let path = request.path
        return path == "/__admin/reset" || path == "/__admin/settings"
            || ["/__admin/mappings", "/__admin/scenarios", "/__admin/files"].contains { path == $0 || path.hasPrefix($0 + "/") }
    }

    /// A write a peer sent: refused (`409`) when that peer runs another version, whose shapes may differ.
    static func refusal(of request: Request) -> Response? {
        guard request.headers[forwardedHeader] != nil, let version = request.headers[versionHeader],
              version != UnderstudyVersion.current else { return nil }
        return .json(JSONValue.object([("message", .string("a peer of version \(version) forwarded a write; this replica is \(UnderstudyVersion.current)"))]).serialized,
                     status: 409)
    }

    /// Sends the write to every peer, from `loop`; `done` gets the peers that failed, on `loop`.
    func forward(_ request: Request, answered response: Response, on loop: EventLoop, done: @escaping ([String]) -> Void) {
        // A mapping made here got its id here: the peers get the mapping with that id, so the
        // write is the same everywhere (and repeating it replaces, not duplicates).
        let body = request.method == .post && request.path == "/__admin/mappings" ? response.body.bytes : request.body
        var failed: [String] = []
        var waiting = peers.count
        for peer in peers {
            var outbound = OutboundRequest(method: request.method, url: peer + request.target, body: body, timeout: Self.timeout)
            if let type = request.headers["Content-Type"] { outbound.headers.set("Content-Type", type) }
            if let token { outbound.headers.set("Authorization", "Bearer " + token) }
            outbound.headers.set(Self.forwardedHeader, "1")
            outbound.headers.set(Self.versionHeader, UnderstudyVersion.current)
            loop.send(outbound) { result in
                switch result {
                case .success(let answer) where (200..<300).contains(answer.status): break
                case .success(let answer): failed.append("\(peer) (\(answer.status))")
                case .failure(let error): failed.append("\(peer) (\(error))")
                }
                waiting -= 1
                if waiting == 0 { done(failed) }
            }
        }
    }
}
