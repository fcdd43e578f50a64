import HTTPServer
import JSON
import MockCore
import WireFormat

/// `POST /__admin/mcp`: the Model Context Protocol's Streamable HTTP transport, so a coding
/// agent drives the server with tools (stubs, scopes, network conditions, the journal) and reads
/// resources. It speaks 2025-11-25 (`initialize`, then bare requests; no session, so no stream:
/// `GET` and `DELETE` answer 405) and 2026-07-28 (`server/discover`, each POST standing alone
/// with `_meta` and routing headers that must agree with the body). Answers are JSON, never a
/// stream. Every tool is an admin call made through the router (`AdminCalls`), so the admin
/// guard, scopes, budgets and a team server's peers apply to it as to the call it wraps; the
/// endpoint itself is under `/__admin`, behind the same guard.
public final class MCPEndpoint: AdminRoutesProvider {
    public let name = "mcp"

    /// The router, once it exists (it is made with this backend among its routes).
    private let calls = Locked<WeakAdminCalls>(WeakAdminCalls())

    public init() {}

    /// Tools call the admin API through `calls` (the server's router).
    public func connect(to calls: any AdminCalls) {
        self.calls.withLock { $0.calls = calls }
    }

    public var adminRoutes: [AdminRoute] { Self.endpoints.routes(servedBy: self) }

    public static let endpoints: [AdminEndpoint<MCPEndpoint>] = [
        AdminEndpoint(
            "/__admin/mcp", "the MCP server (Streamable HTTP, 2025-11-25 and 2026-07-28): tools and resources over the admin API",
            [.post: { endpoint, call in endpoint.answer(call.request) }])
    ]

    // MARK: HTTP

    private func answer(_ request: Request) -> Reply {
        if let accept = request.headers["Accept"]?.lowercased(), !accept.contains("application/json"), !accept.contains("*/*") {
            return .response(Self.plain(406, "MCP answers are application/json: send Accept: application/json, text/event-stream"))
        }
        if let type = request.headers["Content-Type"]?.lowercased(), !type.hasPrefix("application/json") {
            return .response(Self.plain(415, "An MCP message is application/json, not \(type)"))
        }
        let message: MCPMessage
        switch MCPMessage.parse(request.body) {
        case .failure(let error): return .response(Self.json(MCPMessage.error(error, id: .null), status: 400))
        case .success(let parsed): message = parsed
        }
        let header = request.headers["MCP-Protocol-Version"]
        let stateless = header == MCPVersion.stateless
        if let header, !stateless, !MCPVersion.handshake.contains(header) {
            let error = Self.unsupported(header)
            guard case .request(let id) = message.kind else { return .response(Self.json(MCPMessage.error(error, id: .null), status: 400)) }
            return .response(Self.json(MCPMessage.error(error, id: id), status: 400))
        }
        // Notifications (`notifications/initialized`, a cancellation) and responses need nothing.
        guard case .request(let id) = message.kind else { return .response(Response(status: 202)) }
        if stateless, let error = Self.routingProblem(message, request) {
            return .response(Self.json(MCPMessage.error(error, id: id), status: error.code.statelessStatus))
        }
        let exchange = Exchange(id: id, stateless: stateless, cacheable: Self.cacheable.contains(message.method))
        switch handle(message, request) {
        case .now(let outcome): return .response(exchange.response(outcome))
        case .later(let work):
            return .deferred { reply in
                work(reply.loop, { reply.clientHasGone }) { outcome in reply.send(exchange.response(outcome)) }
            }
        }
    }

    /// One request's id, era and method, which shape its answer.
    private struct Exchange {
        let id: JSONValue
        let stateless: Bool
        let cacheable: Bool

        func response(_ outcome: Result<JSONValue, MCPError>) -> Response {
            switch outcome {
            case .success(let result):
                return MCPEndpoint.json(
                    MCPMessage.result(stateless ? MCPEndpoint.stamped(result, cacheable: cacheable) : result, id: id), status: 200)
            case .failure(let error):
                return MCPEndpoint.json(MCPMessage.error(error, id: id), status: stateless ? error.code.statelessStatus : 200)
            }
        }
    }

    /// 2026-07-28's checks of a request: `_meta` names the version and the client's
    /// capabilities, and the headers say what the body says.
    private static func routingProblem(_ message: MCPMessage, _ request: Request) -> MCPError? {
        let meta = message.params["_meta"]
        guard let version = meta?["io.modelcontextprotocol/protocolVersion"]?.stringValue,
            meta?["io.modelcontextprotocol/clientCapabilities"]?.objectValue != nil
        else {
            return MCPError(
                code: .invalidParams,
                message: "params._meta needs io.modelcontextprotocol/protocolVersion and io.modelcontextprotocol/clientCapabilities (MCP 2026-07-28)")
        }
        guard version == MCPVersion.stateless else {
            return MCPError(code: .headerMismatch, message: "MCP-Protocol-Version is \(MCPVersion.stateless) but _meta says \(version)")
        }
        guard request.headers.values(for: "Mcp-Method") == [message.method] else {
            return MCPError(code: .headerMismatch, message: "Mcp-Method must be sent once and be the body's method, \(message.method)")
        }
        let named = message.method == "tools/call" ? message.params["name"] : message.method == "resources/read" ? message.params["uri"] : nil
        if let named {
            let sent = request.headers.values(for: "Mcp-Name")
            guard sent.count == 1, let name = MCPHeaders.decodedName(sent[0]), .string(name) == named else {
                return MCPError(code: .headerMismatch, message: "Mcp-Name must be sent once and be the body's \(named.serialized)")
            }
        }
        return nil
    }

    private static func unsupported(_ version: String) -> MCPError {
        MCPError(
            code: .unsupportedProtocolVersion, message: "MCP protocol version \(version) is not supported",
            data: .object([("supported", .array(MCPVersion.all.map { .string($0) })), ("requested", .string(version))]))
    }

    /// 2026-07-28's result members: every result says it is complete and names the server; what
    /// a client may cache says it may not (the server's state changes under it).
    fileprivate static func stamped(_ result: JSONValue, cacheable: Bool) -> JSONValue {
        guard case .object(let members) = result else { return result }
        let hints: [(String, JSONValue)] = cacheable ? [("ttlMs", 0), ("cacheScope", "private")] : []
        return .object(
            members + hints + [("resultType", "complete"), ("_meta", .object([("io.modelcontextprotocol/serverInfo", serverInfo)]))])
    }

    /// The methods whose results 2026-07-28 lets a client cache.
    private static let cacheable: Set<String> = ["server/discover", "tools/list", "resources/list", "resources/templates/list", "resources/read"]

    fileprivate static func json(_ value: JSONValue, status: Int) -> Response { .json(value.serialized, status: status) }

    private static func plain(_ status: Int, _ text: String) -> Response {
        .json(JSONValue.object([("message", .string(text))]).serialized, status: status)
    }

    // MARK: Methods

    /// A method's outcome now, or work that gives it later (on the loop, when the admin call it
    /// makes has been answered).
    private enum Handling {
        case now(Result<JSONValue, MCPError>)
        case later(
            (_ loop: EventLoop, _ callerHasGone: @escaping () -> Bool, _ done: @escaping (Result<JSONValue, MCPError>) -> Void) -> Void)
    }

    static let serverInfo: JSONValue = .object([
        ("name", "understudy"), ("title", "Understudy"), ("version", .string(UnderstudyVersion.current)),
    ])

    static let instructions =
        "Understudy is a mock backend for mobile apps. Each test works in a state scope of its own (the scope argument): "
        + "create_stub answers the app's requests, set_network slows or drops them, find_requests and near_misses say what the app sent "
        + "and why a request was not matched, reset starts the scope again."

    private func handle(_ message: MCPMessage, _ request: Request) -> Handling {
        guard let calls = calls.withLock({ $0.calls }) else {
            return .now(.failure(MCPError(code: .internalError, message: "The MCP endpoint is not connected to the server's admin API")))
        }
        let table = calls.adminRoutes
        switch message.method {
        case "initialize":
            let asked = message.params["protocolVersion"]?.stringValue ?? ""
            return .now(
                .success(
                    .object([
                        ("protocolVersion", .string(MCPVersion.handshake.contains(asked) ? asked : MCPVersion.handshake[0])),
                        ("capabilities", Self.capabilities), ("serverInfo", Self.serverInfo), ("instructions", .string(Self.instructions)),
                    ])))
        case "server/discover":
            return .now(
                .success(
                    .object([
                        ("supportedVersions", .array(MCPVersion.all.map { .string($0) })), ("capabilities", Self.capabilities),
                        ("instructions", .string(Self.instructions)),
                    ])))
        case "ping": return .now(.success(.object([])))
        case "tools/list":
            return .now(.success(.object([("tools", .array(MCPTool.catalogue.compactMap { $0.listing(in: table) }))])))
        case "tools/call": return callTool(message.params, request, calls)
        case "resources/list": return .now(.success(.object([("resources", .array(MCPResource.fixed.map(\.listing)))])))
        case "resources/templates/list":
            return .now(.success(.object([("resourceTemplates", .array(MCPResource.templates))])))
        case "resources/read": return readResource(message.params, request, calls)
        default:
            return .now(.failure(MCPError(code: .methodNotFound, message: "Unknown method \(message.method)")))
        }
    }

    static let capabilities: JSONValue = .object([("tools", .object([("listChanged", false)])), ("resources", .object([]))])

    private func callTool(_ params: JSONValue, _ request: Request, _ calls: any AdminCalls) -> Handling {
        guard let name = params["name"]?.stringValue else {
            return .now(.failure(MCPError(code: .invalidParams, message: "tools/call needs params.name")))
        }
        let table = calls.adminRoutes
        guard let tool = MCPTool.catalogue.first(where: { $0.name == name }), let schema = tool.inputSchema(in: table) else {
            return .now(.failure(MCPError(code: .invalidParams, message: "Unknown tool \(name) (tools/list lists them)")))
        }
        let arguments = params["arguments"] ?? .object([])
        if let problem = InputSchema.violation(of: schema, by: arguments, root: "the arguments") {
            let text = "Bad arguments for \(name): \(problem) (tools/list gives the input schema)"
            return .now(
                .success(
                    .object([
                        ("content", .array([.object([("type", "text"), ("text", .string(text))])])),
                        ("structuredContent", .object([("message", .string(text))])), ("isError", true),
                    ])))
        }
        let (method, target, body) = tool.call(with: arguments)
        let inner = Self.adminRequest(method, target, body, from: request)
        return .later { loop, callerHasGone, done in
            calls.performAdminCall(inner, on: loop, callerHasGone: callerHasGone) { response in
                done(.success(MCPToolResult.result(of: response, tool: tool, target: target, method: method)))
            }
        }
    }

    private func readResource(_ params: JSONValue, _ request: Request, _ calls: any AdminCalls) -> Handling {
        guard let uri = params["uri"]?.stringValue else {
            return .now(.failure(MCPError(code: .invalidParams, message: "resources/read needs params.uri")))
        }
        guard let target = MCPResource.target(of: uri) else {
            return .now(
                .failure(
                    MCPError(
                        code: .resourceNotFound, message: "No resource at \(uri) (resources/list lists them)", data: .object([("uri", .string(uri))]))
                ))
        }
        let inner = Self.adminRequest(.get, target, [], from: request)
        return .later { loop, callerHasGone, done in
            calls.performAdminCall(inner, on: loop, callerHasGone: callerHasGone) { response in
                guard (200..<300).contains(response.status) else {
                    let text = String(decoding: response.body.bytes, as: UTF8.self)
                    return done(.failure(MCPError(code: .internalError, message: "GET \(target) answered \(response.status): \(text.prefix(500))")))
                }
                let contents: JSONValue = .object([
                    ("uri", .string(uri)), ("mimeType", "application/json"), ("text", .string(String(decoding: response.body.bytes, as: UTF8.self))),
                ])
                done(.success(.object([("contents", .array([contents]))])))
            }
        }
    }

    /// The admin call a tool makes, sent as the MCP request was (its address, token, origin,
    /// host), so the guard judges it as it judged that request.
    private static func adminRequest(_ method: HTTPMethod, _ target: String, _ body: [UInt8], from outer: Request) -> Request {
        var headers = HTTPHeaders()
        for field in outer.headers where !Self.droppedHeaders.contains(where: { HTTPHeaders.namesEqual($0, field.name) }) {
            headers.add(field.name, field.value)
        }
        if !body.isEmpty { headers.set("Content-Type", "application/json") }
        var request = Request(
            method: method, target: target, headers: headers, body: body, remoteAddress: outer.remoteAddress, remotePort: outer.remotePort,
            localPort: outer.localPort)
        request.isSecure = outer.isSecure
        return request
    }

    /// What described the MCP request's own body or routing, not the admin call's.
    private static let droppedHeaders = [
        "Content-Type", "Content-Length", "Accept", "Transfer-Encoding", "MCP-Protocol-Version", "Mcp-Method", "Mcp-Name", "Mcp-Session-Id",
        "X-Understudy-Scope",
    ]
}

/// The router, held weakly: it holds this backend.
private struct WeakAdminCalls {
    weak var calls: (any AdminCalls)?
}
