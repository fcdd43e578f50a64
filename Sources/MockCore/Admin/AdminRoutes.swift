import HTTPServer
import JSON

/// One route of the admin API: its methods, its path template, whether it needs no token, and what
/// it does. Templates name a segment `{id}`, and `{name...}` takes the rest of the path.
public struct AdminRoute: Sendable, Hashable {
    public let methods: [HTTPMethod]
    public let path: String
    /// Served without the admin token (`--admin-token`): nothing secret, or what a device must
    /// fetch before it can be set up (health, the CA, the dashboard's own files).
    public let isPublic: Bool
    public let summary: String
    private let segments: [Segment]

    private enum Segment: Hashable {
        case literal(Substring)
        case parameter
        case rest
    }

    public init(_ methods: HTTPMethod..., path: String, isPublic: Bool = false, _ summary: String) {
        self.methods = methods
        self.path = path
        self.isPublic = isPublic
        self.summary = summary
        segments = path.split(separator: "/").map { part in
            guard part.hasPrefix("{") else { return .literal(part) }
            return part.hasSuffix("...}") ? .rest : .parameter
        }
    }

    /// Whether `path` (no query) is this route's, whatever the method.
    public func matches(path: String) -> Bool {
        var remaining = path.split(separator: "/", omittingEmptySubsequences: true)[...]
        for segment in segments {
            switch segment {
            case .rest: return !remaining.isEmpty
            case .parameter:
                guard remaining.popFirst() != nil else { return false }
            case .literal(let text):
                guard remaining.popFirst() == text else { return false }
            }
        }
        return remaining.isEmpty
    }

    /// Literal segments before parameters: `/__admin/requests/live` is found before `/__admin/requests/{id}`.
    var specificity: [Int] { segments.map { if case .literal = $0 { 0 } else { 1 } } }
}

/// A backend that serves part of the admin API lists its routes here: the one table
/// (`AdminRouteTable`) is built from every backend's, the guard reads which are public from it,
/// and `GET /__admin/routes` and `understudy admin-routes` print it.
public protocol AdminRoutesProvider {
    var adminRoutes: [AdminRoute] { get }
}

/// The admin API of every backend the server runs, in one list, most specific first.
public struct AdminRouteTable: Sendable {
    public let routes: [AdminRoute]

    public init(_ routes: [AdminRoute]) {
        self.routes = routes.enumerated().sorted { left, right in
            left.element.specificity == right.element.specificity
                ? left.offset < right.offset : left.element.specificity.lexicographicallyPrecedes(right.element.specificity)
        }.map(\.element)
    }

    /// The built-in routes (health, the journal, scopes, the dashboard…) and `more`, the admin
    /// backends' the server mounts beside them.
    public init(builtInAnd more: [AdminRoute]) {
        self.init(AdminAPI.routes + ScopesAdmin.routes + DashboardPages.routes + more)
    }

    /// The route a request takes: the first whose path and method match (HEAD where GET is).
    public func route(_ method: HTTPMethod, _ path: String) -> AdminRoute? {
        routes.first { route in
            (route.methods.contains(method) || (method == .head && route.methods.contains(.get))) && route.matches(path: path)
        }
    }

    /// Whether the request may go without the token.
    public func isPublic(_ request: Request) -> Bool {
        route(request.method, request.path)?.isPublic ?? false
    }

    /// `{"routes": [{"methods", "path", "public", "summary"}…]}`, as `GET /__admin/routes` answers.
    public var json: JSONValue {
        .object([
            (
                "routes",
                .array(
                    routes.map { route in
                        .object([
                            ("methods", .array(route.methods.map { .string($0.rawValue) })), ("path", .string(route.path)),
                            ("public", .bool(route.isPublic)), ("summary", .string(route.summary)),
                        ])
                    })
            )
        ])
    }

    /// The routes by path, as people read them.
    public var byPath: [AdminRoute] { routes.sorted { $0.path < $1.path } }

    /// The table as docs/admin-api.md's "Every route" section holds it.
    public var markdown: String {
        var rows = ["| methods | path | token | what |", "| --- | --- | --- | --- |"]
        for route in byPath {
            let methods = route.methods.map(\.rawValue).joined(separator: ", ")
            rows.append("| \(methods) | `\(route.path)` | \(route.isPublic ? "no" : "yes") | \(route.summary) |")
        }
        return rows.joined(separator: "\n") + "\n"
    }
}
