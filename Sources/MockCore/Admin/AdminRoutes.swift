import HTTPServer
import JSON

/// What an admin route's handler gets: the request, its context (the scope it acts in), and the
/// values of the path template's `{…}` segments in order (a `{name...}` one is the rest of the
/// path, its slashes kept).
public struct AdminCall: Sendable {
    public let request: Request
    public let context: RequestContext
    public let parameters: [String]

    public var scope: StateScope { context.scope }

    public init(request: Request, context: RequestContext, parameters: [String] = []) {
        self.request = request
        self.context = context
        self.parameters = parameters
    }
}

/// What a route's method reads besides its path, for those that call it without reading its
/// code (the MCP server's tools, `GET /__admin/routes`): the JSON Schema of its body, and its
/// query parameters with theirs (strings, as a query carries them).
public struct RouteInput: Sendable {
    public let body: JSONValue?
    public let query: [(name: String, schema: JSONValue)]

    public init(body: JSONValue? = nil, query: [(name: String, schema: JSONValue)] = []) {
        self.body = body
        self.query = query
    }

    /// A JSON body of this schema.
    public static func body(_ schema: JSONValue) -> RouteInput { RouteInput(body: schema) }

    var json: JSONValue {
        var members: [(String, JSONValue)] = []
        if let body { members.append(("body", body)) }
        if !query.isEmpty { members.append(("query", .object(query.map { ($0.name, $0.schema) }))) }
        return .object(members)
    }
}

/// One route of the admin API: its path template, each method it takes with what that method
/// does, whether it needs no token, and a summary. Templates name a segment `{id}`, and
/// `{name...}` takes the rest of the path.
public struct AdminRoute: Sendable {
    public typealias Handler = @Sendable (AdminCall) -> Reply

    public let methods: [HTTPMethod]
    public let path: String
    /// Served without the admin token (`--admin-token`): nothing secret, or what a device must
    /// fetch before it can be set up (health, the CA, the dashboard's own files).
    public let isPublic: Bool
    public let summary: String
    /// What a method reads, for the methods that declare it.
    public let inputs: [(method: HTTPMethod, input: RouteInput)]
    /// One for each of `methods`, in order; none in a listing (`understudy admin-routes`).
    private let handlers: [Handler]
    private let segments: [Segment]

    private enum Segment: Hashable {
        case literal(Substring)
        case parameter
        case rest
    }

    fileprivate init(
        path: String, isPublic: Bool, summary: String, methods: [HTTPMethod], handlers: [Handler],
        inputs: [(method: HTTPMethod, input: RouteInput)] = []
    ) {
        self.methods = methods
        self.inputs = inputs
        self.handlers = handlers
        self.path = path
        self.isPublic = isPublic
        self.summary = summary
        segments = path.split(separator: "/").map { part in
            guard part.hasPrefix("{") else { return .literal(part) }
            return part.hasSuffix("...}") ? .rest : .parameter
        }
    }

    /// A route that serves: `handlers` in the order `Allow` lists them.
    public init(
        path: String, isPublic: Bool = false, _ summary: String, _ handlers: [(HTTPMethod, Handler)],
        inputs: [(method: HTTPMethod, input: RouteInput)] = []
    ) {
        self.init(path: path, isPublic: isPublic, summary: summary, methods: handlers.map(\.0), handlers: handlers.map(\.1), inputs: inputs)
    }

    /// What `method` reads (its body's schema, its query); nil when it declares nothing.
    public func input(for method: HTTPMethod) -> RouteInput? { inputs.first { $0.method == method }?.input }

    /// A route listed, not served (what `understudy admin-routes` prints without a server).
    public init(_ methods: HTTPMethod..., path: String, isPublic: Bool = false, _ summary: String) {
        self.init(path: path, isPublic: isPublic, summary: summary, methods: methods, handlers: [])
    }

    /// Whether `path` (no query) is this route's, whatever the method.
    public func matches(path: String) -> Bool { parameters(in: path) != nil }

    /// The values of the template's parameters in `path`; nil when `path` is not this route's.
    public func parameters(in path: String) -> [String]? {
        var remaining = path.split(separator: "/", omittingEmptySubsequences: true)[...]
        var values: [String] = []
        for segment in segments {
            switch segment {
            case .rest:
                guard !remaining.isEmpty else { return nil }
                return values + [remaining.joined(separator: "/")]
            case .parameter:
                guard let value = remaining.popFirst() else { return nil }
                values.append(String(value))
            case .literal(let text):
                guard remaining.popFirst() == text else { return nil }
            }
        }
        return remaining.isEmpty ? values : nil
    }

    /// Whether the route takes `method` (HEAD where GET is).
    func takes(_ method: HTTPMethod) -> Bool { methods.contains(method) || (method == .head && methods.contains(.get)) }

    /// What `method` does here (GET's handler for HEAD); nil in a listing or for a method not taken.
    func handler(for method: HTTPMethod) -> Handler? {
        let index = methods.firstIndex(of: method) ?? (method == .head ? methods.firstIndex(of: .get) : nil)
        return index.flatMap { handlers.indices.contains($0) ? handlers[$0] : nil }
    }

    /// Literal segments before parameters: `/__admin/requests/live` is found before `/__admin/requests/{id}`.
    var specificity: [Int] { segments.map { if case .literal = $0 { 0 } else { 1 } } }
}

/// Routes a type declares once, statically, so the server's table and `understudy admin-routes`
/// read the same list: each method's handler takes the instance that serves it.
public struct AdminEndpoint<Owner: Sendable>: Sendable {
    public typealias Handler = @Sendable (Owner, AdminCall) -> Reply

    let path: String
    let isPublic: Bool
    let summary: String
    let handlers: [(HTTPMethod, Handler)]
    let inputs: [(method: HTTPMethod, input: RouteInput)]

    public init(
        _ path: String, isPublic: Bool = false, _ summary: String, _ handlers: KeyValuePairs<HTTPMethod, Handler>,
        input: KeyValuePairs<HTTPMethod, RouteInput> = [:]
    ) {
        self.path = path
        self.isPublic = isPublic
        self.summary = summary
        self.handlers = handlers.map { ($0.key, $0.value) }
        inputs = input.map { ($0.key, $0.value) }
    }

    /// The route `owner` serves.
    public func route(servedBy owner: Owner) -> AdminRoute {
        AdminRoute(
            path: path, isPublic: isPublic, summary, handlers.map { method, handle in (method, { call in handle(owner, call) }) }, inputs: inputs)
    }

    /// The route listed, served by nothing.
    public var listing: AdminRoute {
        AdminRoute(path: path, isPublic: isPublic, summary: summary, methods: handlers.map(\.0), handlers: [], inputs: inputs)
    }
}

extension AdminEndpoint where Owner: AnyObject {
    /// The route `owner` serves from a table it holds itself: its routes do not keep it alive.
    func route(servedByHolder owner: Owner) -> AdminRoute {
        AdminRoute(
            path: path, isPublic: isPublic, summary, handlers.map { method, handle in (method, { [unowned owner] call in handle(owner, call) }) },
            inputs: inputs)
    }
}

extension Array {
    /// Each endpoint's route as `owner` serves it.
    public func routes<Owner>(servedBy owner: Owner) -> [AdminRoute] where Element == AdminEndpoint<Owner> {
        map { $0.route(servedBy: owner) }
    }

    /// Each endpoint's route, listed.
    public func listing<Owner>() -> [AdminRoute] where Element == AdminEndpoint<Owner> { map(\.listing) }
}

/// A backend that serves part of the admin API: the server's one table (`AdminRouteTable`) is
/// built from every one's routes and dispatches them, so such a backend mounts nothing of its own
/// (but for paths outside `/__admin`, as device mode's `/proxy.pac`). It stays a backend for the
/// rest of the seam: readiness, reset, reports.
public protocol AdminRoutesProvider: Backend {
    var adminRoutes: [AdminRoute] { get }
}

extension AdminRoutesProvider {
    public var mounts: [String] { [] }
    public var tier: BackendTier { .admin }
    public func handle(_ request: Request, _ context: RequestContext) -> Reply { .decline }
}

/// The admin API of every backend the server runs, in one list, most specific first. It
/// dispatches: a request goes to the first route whose path holds it and that takes its method;
/// a path some route holds, asked with a method none takes, is answered `405` with `Allow`.
public struct AdminRouteTable: Sendable {
    public let routes: [AdminRoute]

    public init(_ routes: [AdminRoute]) {
        self.routes = routes.enumerated().sorted { left, right in
            left.element.specificity == right.element.specificity
                ? left.offset < right.offset : left.element.specificity.lexicographicallyPrecedes(right.element.specificity)
        }.map(\.element)
    }

    /// The built-in routes (health, the journal, scopes, the dashboard…), listed, and `more`: what
    /// `understudy admin-routes` prints without a server.
    public init(listingBuiltInAnd more: [AdminRoute]) {
        self.init(AdminAPI.builtInRoutes + more)
    }

    /// The route a request takes: the first whose path and method match (HEAD where GET is).
    public func route(_ method: HTTPMethod, _ path: String) -> AdminRoute? {
        routes.first { $0.takes(method) && $0.matches(path: path) }
    }

    /// Every method some route takes on `path`, as `Allow` lists them (HEAD beside GET); empty
    /// when no route holds the path.
    public func allowedMethods(_ path: String) -> [HTTPMethod] {
        var allowed: [HTTPMethod] = []
        for route in routes where route.matches(path: path) {
            for method in route.methods where !allowed.contains(method) { allowed.append(method) }
        }
        if let get = allowed.firstIndex(of: .get), !allowed.contains(.head) { allowed.insert(.head, at: get + 1) }
        return allowed
    }

    /// Whether the request may go without the token.
    public func isPublic(_ request: Request) -> Bool {
        route(request.method, request.path)?.isPublic ?? false
    }

    /// The route's answer to the request; `405` with `Allow` for a method the path does not
    /// take; nil when no route holds the path.
    public func dispatch(_ request: Request, _ context: RequestContext) -> Reply? {
        for route in routes where route.takes(request.method) {
            guard let parameters = route.parameters(in: request.path), let handle = route.handler(for: request.method) else { continue }
            return handle(AdminCall(request: request, context: context, parameters: parameters))
        }
        let allowed = allowedMethods(request.path)
        guard !allowed.isEmpty else { return nil }
        let list = allowed.map(\.rawValue).joined(separator: ", ")
        var response = Response.json(
            JSONValue.object([("message", .string("\(request.method.rawValue) is not a method of \(request.path): it takes \(list)"))]).serialized,
            status: 405)
        response.headers.set("Allow", list)
        return .response(response)
    }

    /// `{"routes": [{"methods", "path", "public", "summary", "input"}…]}`, as `GET /__admin/routes`
    /// answers (`input`: each method's `RouteInput`, where declared).
    public var json: JSONValue {
        .object([
            (
                "routes",
                .array(
                    routes.map { route in
                        var members: [(String, JSONValue)] = [
                            ("methods", .array(route.methods.map { .string($0.rawValue) })), ("path", .string(route.path)),
                            ("public", .bool(route.isPublic)), ("summary", .string(route.summary)),
                        ]
                        if !route.inputs.isEmpty { members.append(("input", .object(route.inputs.map { ($0.method.rawValue, $0.input.json) }))) }
                        return .object(members)
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
