// Module MockCore: what every backend shares — the Backend seam, the Router that resolves a
// request to a backend, the request journal, the built-in admin API, scoped state, static files
// and small helpers (ordered JSON, path tables).

import HTTPServer
import JSON

/// Something Understudy serves: an emulator, the stub engine, the admin API. Mounted at one or
/// more path prefixes; answers a request now, later, or declines it so the next backend may.
/// Handlers run on the event loop that received the request and must not block. A long-lived
/// object (a class), so routing a request to it copies a reference, not a value.
public protocol Backend: AnyObject, Sendable {
    /// Short lower-case name, e.g. "geocoder"; shown in the journal and in 404 pages.
    var name: String { get }
    /// Path prefixes, e.g. ["/maps/api/geocode"]; "/" mounts at the root.
    var mounts: [String] { get }
    /// Where the backend stands in the resolution order.
    var tier: BackendTier { get }
    /// False while the backend is still loading; `/__admin/health` waits for all.
    var isReady: Bool { get }
    func handle(_ request: Request, _ context: RequestContext) -> Reply
    /// For state a backend keeps outside the scopes' stores (the stub engine's shared mappings):
    /// called by `POST /__admin/reset` in `scope` after the scope's own state was reset.
    func reset(scope: StateScope)
    /// For a request nothing answered (in `scope`): what of this backend came closest, and why it missed.
    func nearMisses(for request: Request, in scope: StateScope) -> [NearMiss]
    /// For a journaled request this backend answered: the stub mapping (WireMock's JSON) that
    /// matches it now in `scope`, for the dashboard and `GET /__admin/requests/{id}`; nil when
    /// the backend has no stubs.
    func answeringStub(for request: Request, in scope: StateScope) -> JSONValue?
    /// What the backend has loaded and done, for the dashboard, the metrics and `serve`'s summary.
    var report: BackendReport { get }
}

extension Backend {
    public var tier: BackendTier { .emulator }
    public var isReady: Bool { true }
    public func reset(scope: StateScope) {}
    public func nearMisses(for request: Request, in scope: StateScope) -> [NearMiss] { [] }
    public func answeringStub(for request: Request, in scope: StateScope) -> JSONValue? { nil }
    public var report: BackendReport { BackendReport() }
}

/// Something that almost answered a request, for the 404 page and the near-miss admin API.
public struct NearMiss: Sendable {
    /// E.g. `"bus page" (GET urlPath /bus)`.
    public var summary: String
    /// 0 matched … 1 nothing in common.
    public var distance: Double
    /// What did not match, one line each.
    public var misses: [String]
    /// The stub mapping as JSON (WireMock's `stubMapping`).
    public var stub: JSONValue

    /// How many a report lists, as WireMock.
    public static let reportedCount = 3

    /// The closest few of `misses`, closest first.
    public static func closest(_ misses: [NearMiss]) -> [NearMiss] {
        Array(misses.sorted { $0.distance < $1.distance }.prefix(reportedCount))
    }

    public init(summary: String, distance: Double, misses: [String], stub: JSONValue) {
        self.summary = summary
        self.distance = distance
        self.misses = misses
        self.stub = stub
    }
}

/// The resolution order of DESIGN.md: within a tier, the longest matching mount prefix first.
public enum BackendTier: Int, Sendable, Comparable {
    case admin = 0
    case userStubs = 1
    case recordings = 2
    case emulator = 3
    /// Served only when nothing else answers (the static `__files` docroot).
    case fallback = 4

    public static func < (lhs: BackendTier, rhs: BackendTier) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// A backend's answer.
public enum Reply {
    case response(Response)
    /// The answer comes later: the closure runs at once and keeps the `DeferredReply` until it
    /// sends (from a timer or an outbound request on `reply.loop`).
    case deferred((DeferredReply) -> Void)
    /// Not mine: the router asks the next backend.
    case decline
}

/// What a backend gets beside the request.
public struct RequestContext: Sendable {
    /// Whose state the request reads and changes.
    public var scope: StateScope
    /// `/__scope/NAME` when the client reached the server under that prefix (already taken off
    /// the request's path), else "". Links and redirects in an answer start with it, so a client
    /// that follows them stays in its scope.
    public var basePath: String
    /// A device's request for a host `hosts.json` does not map: only what names that host (a stub
    /// mapping's `host` condition, a recording of it) may answer.
    public var forUnmappedHost = false
    /// The port this server also serves `https://` on (`--https-port`), if any.
    public var httpsPort: Int?
    /// Whether a device's `https://` requests through this server (as its proxy) are answered here.
    public var interceptsTLS = false

    public init(scope: StateScope, basePath: String = "") {
        self.scope = scope
        self.basePath = basePath
    }
}

extension RequestContext {
    /// Where the request's host is reached over `https://` for pages a real server serves only
    /// over TLS (sign-in, checkout): "" when the request already came over TLS (links stay on it),
    /// `https://host` for a device's request through this server as its proxy, `https://host:port`
    /// with an https port; nil when there is no way to TLS.
    public func secureOrigin(of request: Request) -> String? {
        if request.isSecure { return "" }
        guard let (host, _) = request.requestedHost else { return nil }
        // Hosts are ASCII (checked names and addresses): a byte test, not Foundation's text search.
        let name = host.utf8.contains(UInt8(ascii: ":")) ? "[\(host)]" : host
        if request.isProxied && interceptsTLS { return "https://\(name)" }
        guard let httpsPort else { return nil }
        return "https://\(name):\(httpsPort)"
    }
}
