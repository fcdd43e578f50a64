import HTTPServer
import JSON
import MockCore
import WireFormat

/// One MCP tool: an admin route, and how the tool's arguments make the call to it. Its input
/// schema is generated from the route's (`RouteInput`), so a tool can never ask for what its
/// route does not read, and a tool whose route this server does not serve is not listed.
struct MCPTool: Sendable {
    /// How the call's body is made from the arguments.
    enum Body: Sendable {
        case none
        /// The argument is the body (the route's body schema is its schema).
        case argument(String, required: Bool)
        /// Each argument is the body member named beside it (its schema the member's); `fixed`
        /// members are added as they are.
        case members([(argument: String, member: String)], fixed: [(String, JSONValue)] = [])
    }

    struct Hints: Sendable {
        var readOnly = false
        var destructive = false
        var idempotent = false
    }

    let name: String
    let title: String
    let description: String
    let method: HTTPMethod
    /// The route's path template; each `{…}` takes the argument named in `pathArguments`.
    let path: String
    var pathArguments: [(name: String, description: String)] = []
    var body: Body = .none
    /// Arguments sent as the query parameter of the same name (their schema the route's).
    var query: [String] = []
    var fixedQuery: [(String, String)] = []
    /// Whether an optional `scope` argument names the state scope the call acts in.
    var scoped = true
    var hints = Hints()
    /// The route taken instead when the body's argument is not given (`near_misses` without a
    /// pattern: the unmatched requests' near misses).
    var withoutBody: (method: HTTPMethod, path: String)? = nil
}

extension MCPTool {
    /// The tools, as the issue that asked for them named them (agents' prompts name them too).
    static let catalogue: [MCPTool] = [
        MCPTool(
            name: "list_stubs", title: "List stubs", description: "The stub mappings a scope sees: its own and the shared ones.", method: .get,
            path: "/__admin/mappings", query: ["offset", "limit"], hints: Hints(readOnly: true)),
        MCPTool(
            name: "create_stub", title: "Create a stub",
            description: "Adds a WireMock stub mapping (request pattern → response) in the scope; answers it with its id.",
            method: .post, path: "/__admin/mappings", body: .argument("mapping", required: true)),
        MCPTool(
            name: "delete_stub", title: "Delete a stub", description: "Removes the stub mapping with this id from the scope.", method: .delete,
            path: "/__admin/mappings/{id}", pathArguments: [("id", "the mapping's id")], hints: Hints(destructive: true, idempotent: true)),
        MCPTool(
            name: "find_requests", title: "Find requests",
            description: "The requests the app sent in the scope that match a WireMock request pattern, with their answers.", method: .post,
            path: "/__admin/requests/find", body: .argument("pattern", required: true), hints: Hints(readOnly: true)),
        MCPTool(
            name: "count_requests", title: "Count requests", description: "How many requests in the scope's journal match a request pattern.",
            method: .post, path: "/__admin/requests/count", body: .argument("pattern", required: true), hints: Hints(readOnly: true)),
        MCPTool(
            name: "near_misses", title: "Near misses",
            description:
                "Why requests were not matched: with a pattern, the journaled requests closest to it; without, the stubs closest to each unmatched request.",
            method: .post, path: "/__admin/near-misses/request-pattern", body: .argument("pattern", required: false),
            hints: Hints(readOnly: true), withoutBody: (.get, "/__admin/requests/unmatched/near-misses")),
        MCPTool(
            name: "unmatched_requests", title: "Unmatched requests", description: "The requests in the scope's journal that nothing answered.",
            method: .get, path: "/__admin/requests/unmatched", hints: Hints(readOnly: true)),
        MCPTool(
            name: "reset", title: "Reset a scope",
            description: "The scope's state back to the fixtures (carts, SQL rows, scenarios, its own stubs) and its journal emptied.",
            method: .post, path: "/__admin/reset", hints: Hints(destructive: true, idempotent: true)),
        MCPTool(
            name: "list_scopes", title: "List scopes", description: "The live state scopes: name, created, last used, requests, memory.",
            method: .get, path: "/__admin/scopes", scoped: false, hints: Hints(readOnly: true)),
        MCPTool(
            name: "create_scope", title: "Create a scope",
            description: "Makes a state scope (an isolated copy of every backend's state); it is listed from then on.", method: .put,
            path: "/__admin/scopes/{name}", pathArguments: [("name", "the scope's name: letters, digits, - and _")], scoped: false,
            hints: Hints(idempotent: true)),
        MCPTool(
            name: "delete_scope", title: "Delete a scope", description: "Removes a state scope with its state and journal entries.",
            method: .delete, path: "/__admin/scopes/{name}", pathArguments: [("name", "the scope's name")], scoped: false,
            hints: Hints(destructive: true, idempotent: true)),
        MCPTool(
            name: "set_network", title: "Set a scope's network",
            description:
                "Simulates a network for the scope's requests: a profile (wifi, lte, 3g, edge, very-bad, 100-loss, offline) or figures; {\"offline\": true} drops them.",
            method: .put, path: "/__admin/scopes/{name}/network", pathArguments: [("scope", "the scope whose requests it slows")],
            body: .argument("conditions", required: true), scoped: false, hints: Hints(idempotent: true)),
        MCPTool(
            name: "start_recording", title: "Start recording",
            description: "Proxies what no stub answers to the real backend and records it as stub mappings.", method: .post,
            path: "/__admin/recordings/start", body: .members([("target", "targetBaseUrl"), ("persist", "persist")]), scoped: false),
        MCPTool(
            name: "stop_recording", title: "Stop recording", description: "Stops recording; the recorded mappings are replayed from then on.",
            method: .post, path: "/__admin/recordings/stop", scoped: false),
        MCPTool(
            name: "export_har", title: "Export the journal as HAR",
            description: "The scope's journal as an HTTP Archive (HAR 1.2), oldest first; scope * exports every scope's.", method: .get,
            path: "/__admin/requests", query: ["limit"], fixedQuery: [("format", "har")], hints: Hints(readOnly: true)),
        MCPTool(
            name: "list_emulators", title: "List emulators", description: "The backends this server runs: kind, mounts, readiness, fixtures.",
            method: .get, path: "/__admin/backends", scoped: false, hints: Hints(readOnly: true)),
        MCPTool(
            name: "send_message", title: "Send a WebSocket message",
            description:
                "Sends a message to every open WebSocket channel in the scope whose opening request matches initiatingRequest (every one without it).",
            method: .post, path: "/__admin/channels/send",
            body: .members([("message", "message"), ("initiatingRequest", "initiatingRequest")], fixed: [("type", "websocket")])),
        MCPTool(
            name: "find_messages", title: "Find WebSocket messages",
            description: "The WebSocket messages journaled in the scope that match a message pattern (every one without it), oldest first.",
            method: .post, path: "/__admin/messages/find", body: .argument("pattern", required: false), hints: Hints(readOnly: true)),
    ]

    /// The route this tool calls, if the server serves it with the tool's method.
    func route(in table: AdminRouteTable) -> AdminRoute? {
        table.routes.first { $0.path == path && $0.methods.contains(method) }
    }

    /// The tool's input schema, from its route's: nil when the route is missing or does not
    /// declare what the tool passes on (a test checks every tool has one).
    func inputSchema(in table: AdminRouteTable) -> JSONValue? {
        guard let route = route(in: table) else { return nil }
        let input = route.input(for: method)
        var properties: [(String, JSONValue)] = []
        var required: [String] = []
        for argument in pathArguments {
            properties.append((argument.name, InputSchema.string(argument.description, minLength: 1)))
            required.append(argument.name)
        }
        switch body {
        case .none: break
        case .argument(let name, let isRequired):
            guard let schema = input?.body else { return nil }
            properties.append((name, schema))
            if isRequired { required.append(name) }
        case .members(let members, _):
            guard let schema = input?.body else { return nil }
            let declared = schema["properties"]?.objectValue ?? []
            let needed = schema["required"]?.arrayValue?.compactMap(\.stringValue) ?? []
            for (argument, member) in members {
                guard let property = declared.first(where: { $0.0 == member })?.1 else { return nil }
                properties.append((argument, property))
                if needed.contains(member) { required.append(argument) }
            }
        }
        for name in query {
            guard let parameter = input?.query.first(where: { $0.name == name }) else { return nil }
            properties.append((name, parameter.schema))
        }
        if scoped {
            properties.append(("scope", InputSchema.string("the state scope the call acts in (default: the default scope)", minLength: 1)))
        }
        return InputSchema.object("The arguments of \(name)", properties, required: required, closed: true)
    }

    /// The tool as `tools/list` lists it.
    func listing(in table: AdminRouteTable) -> JSONValue? {
        guard let schema = inputSchema(in: table) else { return nil }
        return .object([
            ("name", .string(name)), ("title", .string(title)), ("description", .string(description)), ("inputSchema", schema),
            (
                "annotations",
                .object([
                    ("title", .string(title)), ("readOnlyHint", .bool(hints.readOnly)), ("destructiveHint", .bool(hints.destructive)),
                    ("idempotentHint", .bool(hints.idempotent)), ("openWorldHint", false),
                ])
            ),
        ])
    }

    /// The admin call `arguments` make (already checked against the input schema): method,
    /// target and body.
    func call(with arguments: JSONValue) -> (method: HTTPMethod, target: String, body: [UInt8]) {
        var bodyValue: JSONValue?
        switch body {
        case .none: break
        case .argument(let name, _): bodyValue = arguments[name]
        case .members(let members, let fixed):
            bodyValue = .object(fixed + members.compactMap { argument, member in arguments[argument].map { (member, $0) } })
        }
        var (method, path) = (self.method, self.path)
        if bodyValue == nil, let other = withoutBody { (method, path) = other }
        var values = pathArguments.map { arguments[$0.name]?.stringValue ?? "" }[...]
        let target = path.split(separator: "/", omittingEmptySubsequences: false).map { segment in
            segment.hasPrefix("{") ? percentEncoded(values.popFirst() ?? "") : String(segment)
        }.joined(separator: "/")
        var parameters = fixedQuery
        for name in query {
            guard let value = arguments[name] else { continue }
            parameters.append((name, value.stringValue ?? value.serialized))
        }
        if scoped, let scope = arguments["scope"]?.stringValue { parameters.append(("scope", scope)) }
        let queryText = parameters.map { percentEncoded($0.0) + "=" + percentEncoded($0.1) }.joined(separator: "&")
        return (method, queryText.isEmpty ? target : target + "?" + queryText, bodyValue.map { Array($0.serialized.utf8) } ?? [])
    }

    /// RFC 3986's unreserved characters as they are, every other byte as `%XX`.
    private func percentEncoded(_ text: String) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: "*"):
                out.append(byte)
            default: out += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 15)]]
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}

/// What a tool's admin call answered, as a `tools/call` result: `structuredContent` is the
/// answer (an object as it is; another value, or text, under `result`, with the status), and
/// one text block says it in short. A status of 400 and over is `isError` with the admin API's
/// message (a 422's pointer, a 404's near misses are in `structuredContent`).
enum MCPToolResult {
    /// Answers longer than this are in `structuredContent` only; the text says how long they are.
    static let inlineTextLimit = 4096

    static func result(of response: Response, tool: MCPTool, target: String, method: HTTPMethod) -> JSONValue {
        let text = String(decoding: response.body.bytes, as: UTF8.self)
        let json = try? JSONValue.parse(response.body.bytes)
        var structured: JSONValue
        switch json {
        case .object?: structured = json ?? .null
        case let value?: structured = .object([("status", .int(response.status)), ("result", value)])
        case nil:
            structured = .object([("status", .int(response.status))] + (text.isEmpty ? [] : [("text", .string(text))]))
        }
        let failed = response.status >= 400 || response.status == 0
        let call = "\(method.rawValue) \(target) answered \(response.status)"
        var summary: String
        if failed {
            let message = json?["message"]?.stringValue ?? json?["errors"]?.arrayValue?.first?["title"]?.stringValue ?? (json == nil ? text : nil)
            summary = "\(tool.name) failed: \(call)" + (message.map { ": \($0)" } ?? "")
            if case .object(var members) = structured, members.first(where: { $0.0 == "status" }) == nil {
                members.insert(("status", .int(response.status)), at: 0)
                structured = .object(members)
            }
        } else {
            let serialized = structured.serialized
            summary =
                serialized.utf8.count <= inlineTextLimit
                ? "\(call)\n\(serialized)" : "\(call): \(serialized.utf8.count) bytes of JSON, in structuredContent"
        }
        return .object([
            ("content", .array([.object([("type", "text"), ("text", .string(summary))])])),
            ("structuredContent", structured),
            ("isError", .bool(failed)),
        ])
    }
}
