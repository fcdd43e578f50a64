import HTTPServer
import JSON
import MockCore
import Synchronization

/// Where each named scope of a team server lives: every replica announces the scopes it makes
/// and drops to its peers, and a replica that joins takes the directory with the shared state.
/// A request in a scope that lives on another replica goes there (`FleetPeers.relay`); one in a
/// scope whose replica is gone — it does not answer, or it is this replica and it restarted — is
/// answered `410 Gone`: the scope's state is lost, and silently starting it afresh would look like
/// a bug in the test. `POST /__admin/scopes/NAME/reset` (or `DELETE`) starts it afresh where it
/// now routes. docs/team-server.md.
public final class ScopeDirectory: Sendable {
    /// Scope name → the base URL of the replica it lives on.
    private let owners = Mutex<[String: String]>([:])

    public init() {}

    public func owner(of name: String) -> String? { owners.withLock { $0[name] } }

    /// Every entry, for a joining replica and `GET /__admin/fleet/scopes`.
    public var entries: [String: String] { owners.withLock { $0 } }

    public func set(_ name: String, livesOn owner: String) { owners.withLock { $0[name] = owner } }

    /// Drops `name` (only while it is `owner`'s, when one is given: an old announcement does not
    /// undo a newer one).
    public func drop(_ name: String, ifOwnedBy owner: String? = nil) {
        owners.withLock { owners in
            if owner == nil || owners[name] == owner { owners[name] = nil }
        }
    }

    /// Takes a peer's directory (a joining replica's), keeping what it knows itself.
    func adopt(_ entries: JSONValue) {
        owners.withLock { owners in
            for (name, owner) in entries.objectValue ?? [] where owners[name] == nil {
                if let owner = owner.stringValue { owners[name] = owner }
            }
        }
    }

    var json: JSONValue { .object(entries.sorted { $0.key < $1.key }.map { ($0.key, .string($0.value)) }) }

    static let lostHeader = "X-Understudy-Scope-Lost"

    /// The answer in a scope whose replica is gone: `410`, naming the scope and the replica, and
    /// saying how to start it afresh.
    static func lost(_ name: String, on replica: String, because reason: String) -> Response {
        let body: JSONValue = .object([
            (
                "message",
                .string(
                    "Scope \"\(name)\" is lost: it lived on replica \(replica), which \(reason). Its state (stubs, carts, rows, journal) "
                        + "went with it. Start it afresh with POST /__admin/scopes/\(name)/reset or DELETE /__admin/scopes/\(name): "
                        + "it then lives where it now routes.")
            ),
            ("scope", .string(name)),
            ("lostReplica", .string(replica)),
        ])
        var response = Response.json(body.serialized, status: 410)
        response.headers.set(lostHeader, name)
        return response
    }

    /// The answer when the scope's replica did not answer in time: `503`, naming it.
    static func unanswered(_ name: String, by replica: String) -> Response {
        let body: JSONValue = .object([
            ("message", .string("Scope \"\(name)\" lives on replica \(replica), which did not answer in time (hung or overloaded); try again.")),
            ("scope", .string(name)), ("replica", .string(replica)),
        ])
        var response = Response.json(body.serialized, status: 503)
        response.headers.set("Retry-After", "2")
        return response
    }

    /// Whether `request` starts scope `name` afresh: `POST /__admin/scopes/NAME/reset`, `DELETE`
    /// or `PUT /__admin/scopes/NAME`, or `POST /__admin/reset` in the scope.
    static func startsAfresh(_ request: Request, scope name: String) -> Bool {
        if let route = ScopeRoute(request) { return route.name == name && route.startsAfresh }
        return request.method == .post && request.path == "/__admin/reset"
    }
}
