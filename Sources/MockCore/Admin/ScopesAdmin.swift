import HTTPServer
import JSON

/// The admin API's scopes: `GET /__admin/scopes` (each live scope: name, created, last used,
/// requests, estimated bytes), `GET /__admin/scopes/NAME`, `POST /__admin/scopes/NAME/reset`,
/// `DELETE /__admin/scopes/NAME` and `DELETE /__admin/scopes` (every named scope), and a scope's
/// simulated network: `GET`, `PUT` and `DELETE /__admin/scopes/NAME/network`. Resetting a
/// scope resets every backend's state in it and forgets its journal entries, as
/// `POST /__admin/reset` does for the scope a request names.
struct ScopesAdmin: Sendable {
    static let endpoints: [AdminEndpoint<ScopesAdmin>] = [
        AdminEndpoint(
            "/__admin/scopes", "the live scopes; `DELETE`: every named scope gone",
            [.get: { admin, _ in .response(admin.list()) }, .delete: { admin, _ in .response(admin.deleteNamed()) }]),
        AdminEndpoint(
            "/__admin/scopes/{name}", "one live scope; `PUT` makes it (`201`; `200` when it is there); `DELETE`: it and its journal entries gone",
            [
                .get: { admin, call in .response(admin.show(call.parameters[0])) },
                .put: { admin, call in .response(admin.make(call.parameters[0])) },
                .delete: { admin, call in .response(admin.deleteScope(named: call.parameters[0])) },
            ]),
        AdminEndpoint(
            "/__admin/scopes/{name}/reset", "as `POST /__admin/reset` in that scope",
            [
                .post: { admin, call in
                    // A scope not made yet has nothing to reset: it starts fresh anyway.
                    if let scope = admin.scopes.existing(call.parameters[0]) { admin.reset(scope) }
                    return .response(Response(status: 200))
                }
            ]),
        AdminEndpoint(
            "/__admin/scopes/{name}/network", "the scope's simulated network (device mode)",
            [
                .get: { admin, call in .response(admin.network(call.request, scopeName: call.parameters[0])) },
                .put: { admin, call in .response(admin.network(call.request, scopeName: call.parameters[0])) },
                .delete: { admin, call in .response(admin.network(call.request, scopeName: call.parameters[0])) },
            ], input: [.put: .body(NetworkConditions.schema)]),
    ]

    let scopes: StateScopes
    let backends: [any Backend]
    let journal: RequestJournal

    private func list() -> Response {
        let all = scopes.all
        return .json(
            JSONValue.object([
                ("scopes", .array(all.map(describe))),
                (
                    "meta",
                    .object([
                        ("total", .int(all.count)), ("maxScopes", .int(scopes.limits.maxScopes)),
                        ("idleSeconds", .int(scopes.limits.idleSeconds)),
                    ])
                ),
            ]).serialized)
    }

    private func deleteNamed() -> Response {
        for scope in scopes.all where !scope.isDefault { delete(scope) }
        return Response(status: 200)
    }

    private func show(_ name: String) -> Response {
        guard let scope = scopes.existing(name) else { return noScope(name) }
        return .json(describe(scope).serialized)
    }

    /// The scope made now, as a test does before its device's first request; `201`, or `200`
    /// with the scope when it is there already.
    private func make(_ name: String) -> Response {
        if let problem = ScopeSelection.problem(with: name) { return message(problem, status: 400) }
        let existed = scopes.existing(name) != nil
        let scope = scopes.scope(named: name)
        return .json(describe(scope).serialized, status: existed ? 200 : 201)
    }

    private func deleteScope(named name: String) -> Response {
        guard name != StateScope.defaultName else {
            return message("The default scope cannot be deleted; POST /__admin/scopes/default/reset resets it", status: 400)
        }
        guard let scope = scopes.existing(name) else { return noScope(name) }
        delete(scope)
        return Response(status: 200)
    }

    /// `PUT` sets the scope's network (the scope is made when there is none yet: a test sets the
    /// network before its device's first request), `GET` shows it, `DELETE` clears it.
    private func network(_ request: Request, scopeName name: String) -> Response {
        if let problem = ScopeSelection.problem(with: name) { return message(problem, status: 400) }
        switch request.method {
        case .get:
            let conditions = scopes.existing(name)?.networkConditions
            return .json(JSONValue.object([("scope", .string(name)), ("network", conditions?.json ?? .null)]).serialized)
        case .put:
            let conditions: NetworkConditions
            do {
                conditions = try NetworkConditions.parse(try JSONValue.parse(request.body))
            } catch let error as NetworkConditionsError {
                return message("Bad network conditions: \(error.description)", status: 400)
            } catch {
                return message("Bad network conditions: the body is not JSON (\(error))", status: 400)
            }
            let scope = scopes.scope(named: name)
            scope.networkConditions = conditions
            if conditions.offline {
                for case let host as any ChannelHost in backends { host.dropChannels(in: scope) }
            }
            return .json(JSONValue.object([("scope", .string(name)), ("network", conditions.json)]).serialized)
        default:
            scopes.existing(name)?.networkConditions = nil
            return .emptyJSONObject
        }
    }

    private func message(_ text: String, status: Int) -> Response {
        .json(JSONValue.object([("message", .string(text))]).serialized, status: status)
    }

    /// Every backend's state in `scope` back to its start, and the scope's journal entries gone.
    func reset(_ scope: StateScope) {
        scope.reset()
        for backend in backends { backend.reset(scope: scope) }
        journal.clear(scope)
    }

    private func delete(_ scope: StateScope) {
        scopes.delete(scope.name)
        journal.clear(scope)
    }

    private func describe(_ scope: StateScope) -> JSONValue {
        let entries = journal.entriesOf(scope)
        // An entry's fixed part is small next to its strings; its body is counted as it is.
        let journalBytes = entries.reduce(0) { $0 + 512 + $1.request.target.utf8.count + $1.request.body.count }
        let now = MonotonicClock.nanoseconds()
        let wallNow = MonotonicClock.wallSeconds()
        let lastUsed = wallNow - Double(now &- min(now, scope.lastUsed)) / 1e9
        return .object([
            ("name", .string(scope.name)),
            ("created", .string(Timestamp.iso8601(scope.createdAt))),
            ("lastUsed", .string(Timestamp.iso8601(lastUsed))),
            ("requests", .int(scope.requests)),
            ("journalEntries", .int(entries.count)),
            ("estimatedBytes", .int(scope.estimatedBytes + journalBytes)),
        ])
    }

    private func noScope(_ name: String) -> Response {
        .json(JSONValue.object([("message", .string("No live scope named \(name)"))]).serialized, status: 404)
    }
}

/// The scope an admin route under `/__admin/scopes/NAME…` is about (a named one, not `default`),
/// and whether the call starts it afresh (`POST …/reset`, `DELETE`, `PUT` of the scope itself).
public struct ScopeRoute: Sendable {
    public let name: String
    public let startsAfresh: Bool

    public init?(_ request: Request) {
        let prefix = "/__admin/scopes/"
        guard request.path.hasPrefix(prefix) else { return nil }
        let rest = request.path.dropFirst(prefix.count).split(separator: "/", omittingEmptySubsequences: false)
        guard let name = rest.first, !name.isEmpty, name != StateScope.defaultName else { return nil }
        self.name = String(name)
        startsAfresh =
            rest.count == 1 ? request.method == .delete || request.method == .put : rest.count == 2 && rest[1] == "reset" && request.method == .post
    }
}
