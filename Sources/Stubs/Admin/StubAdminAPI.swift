import HTTPServer
import JSON
import MockCore
import WorkLimits

/// The stub engine's part of the admin API, in WireMock's paths and shapes: mappings (list, create,
/// read, replace, delete, reset to files, save, import, find or remove by metadata, and the
/// `edit` and `remove` by body that WireMock 2's Java client posts), scenarios,
/// and counting, finding or removing journaled requests by a request pattern. What it does not handle under these prefixes falls through to
/// the built-in admin API. Every call acts in the request's scope: in a named scope, mappings
/// made, changed or removed are the scope's own (shared ones are changed without a scope), and
/// scenarios and the journal are the scope's.
public final class StubAdminAPI: AdminRoutesProvider {
    public let name = "stubs-admin"

    let engine: StubEngine
    /// Every engine whose scenarios `/__admin/scenarios` shows and moves: the user's stubs and
    /// the recordings (whose mappings are files only, not edited through this API).
    let scenarioEngines: [StubEngine]
    let journal: RequestJournal
    /// Most bytes of mapping JSON a named scope's admin calls may add: a hundred CI scopes each
    /// posting big stubs must not take the machine's memory.
    let maxScopeMappingBytes: Int

    public static let defaultMaxScopeMappingBytes = 4 * 1024 * 1024

    public var adminRoutes: [AdminRoute] { Self.endpoints.routes(servedBy: self) }

    public static let endpoints: [AdminEndpoint<StubAdminAPI>] = [
        // WireMock's RootTask (2.35 and 3.13): the admin root lists the mappings.
        AdminEndpoint(
            "/__admin/", "the mappings, as `GET /__admin/mappings` lists them (WireMock's admin root)",
            [.get: { api, call in .response(api.listMappings(call.request, call.scope)) }]),
        AdminEndpoint(
            "/__admin/mappings", "the mappings (`?offset`, `?limit`); `POST` adds one; `DELETE` removes every one",
            [
                .get: { api, call in .response(api.listMappings(call.request, call.scope)) },
                .post: { api, call in .response(api.createMapping(call.request, call.scope)) },
                .delete: { api, call in
                    api.engine.removeAll(in: call.scope)
                    return .response(.emptyJSONObject)
                },
            ], input: [.get: RouteInput(query: StubSchemas.paging), .post: .body(StubSchemas.mapping)]),
        AdminEndpoint(
            "/__admin/mappings/{id}", "one mapping; `PUT` replaces it; `DELETE` removes it",
            [
                .get: { api, call in .response(api.showMapping(id: call.parameters[0], call.scope)) },
                .put: { api, call in .response(api.replaceMapping(id: call.parameters[0], call.request, call.scope)) },
                .delete: { api, call in
                    let id = call.parameters[0]
                    return .response(api.engine.remove(id: id, in: call.scope) ? .emptyJSONObject : api.notFound(id, ownOf: call.scope))
                },
            ], input: [.put: .body(StubSchemas.mapping)]),
        AdminEndpoint(
            "/__admin/mappings/reset", "back to the mapping files (the calling scope's own mappings gone)",
            [
                .post: { api, call in
                    api.engine.resetMappings(in: call.scope)
                    api.journal.clear(call.scope)
                    return .response(Response(status: 200))
                }
            ]),
        AdminEndpoint(
            "/__admin/mappings/save", "the mappings added through the API written as files",
            [.post: { api, call in .response(call.scope.isDefault ? api.saveMappings() : api.sharedOnly("mappings/save")) }]),
        AdminEndpoint(
            "/__admin/mappings/import", "`{\"mappings\": […], \"importOptions\"}` added or replaced",
            [.post: { api, call in .response(api.importMappings(call.request, call.scope)) }], input: [.post: .body(StubSchemas.mappingImport)]),
        AdminEndpoint(
            "/__admin/mappings/find-by-metadata", "the mappings whose metadata matches a pattern",
            [.post: { api, call in .response(api.byMetadata(call.request, call.scope, remove: false)) }],
            input: [.post: .body(StubSchemas.metadataPattern)]),
        AdminEndpoint(
            "/__admin/mappings/remove-by-metadata", "those mappings removed",
            [.post: { api, call in .response(api.byMetadata(call.request, call.scope, remove: true)) }],
            input: [.post: .body(StubSchemas.metadataPattern)]),
        AdminEndpoint(
            "/__admin/mappings/unmatched", "WireMock 3.13: the mappings no request matched; `DELETE` removes them",
            [
                .get: { api, call in .response(api.unmatchedMappings(call.context, remove: false)) },
                .delete: { api, call in .response(api.unmatchedMappings(call.context, remove: true)) },
            ]),
        AdminEndpoint(
            "/__admin/mappings/edit", "WireMock 2's Java client: a mapping replaced by the id in its body",
            [.post: { api, call in .response(api.editMapping(call.request, call.scope)) }], input: [.post: .body(StubSchemas.mapping)]),
        AdminEndpoint(
            "/__admin/mappings/remove", "WireMock 2's Java client: the mapping like the body removed",
            [.post: { api, call in .response(api.removeMapping(call.request, call.scope)) }], input: [.post: .body(StubSchemas.mapping)]),
        AdminEndpoint(
            "/__admin/scenarios", "the scenarios: state, possible states, mappings", [.get: { api, call in .response(api.listScenarios(call.scope)) }]
        ),
        AdminEndpoint(
            "/__admin/scenarios/reset", "every scenario back to `Started`",
            [
                .post: { api, call in
                    for engine in api.scenarioEngines { engine.resetScenarios(in: call.scope) }
                    return .response(.emptyJSONObject)
                }
            ]),
        AdminEndpoint(
            "/__admin/scenarios/{name}/state", "a scenario moved to a state",
            [.put: { api, call in .response(api.moveScenario(call.parameters[0], call.request, call.scope)) }],
            input: [.put: .body(StubSchemas.scenarioState)]),
        AdminEndpoint(
            "/__admin/requests/count", "how many journaled requests match a request pattern",
            [.post: { api, call in .response(api.findRequests(call.request, call.context, .count)) }],
            input: [.post: .body(StubSchemas.requestPattern)]),
        AdminEndpoint(
            "/__admin/requests/find", "the journaled requests that match a request pattern",
            [.post: { api, call in .response(api.findRequests(call.request, call.context, .find)) }],
            input: [.post: .body(StubSchemas.requestPattern)]),
        AdminEndpoint(
            "/__admin/requests/remove", "those requests removed from the journal",
            [.post: { api, call in .response(api.findRequests(call.request, call.context, .remove)) }],
            input: [.post: .body(StubSchemas.requestPattern)]),
        AdminEndpoint(
            "/__admin/requests/remove-by-metadata", "the requests answered by mappings whose metadata matches, removed",
            [.post: { api, call in .response(api.removeRequestsByStubMetadata(call.request, call.context)) }],
            input: [.post: .body(StubSchemas.metadataPattern)]),
        AdminEndpoint(
            "/__admin/near-misses/request", "the stubs closest to a request",
            [.post: { api, call in .response(api.nearMissesForRequest(call.request, call.scope)) }], input: [.post: .body(StubSchemas.loggedRequest)]),
        AdminEndpoint(
            "/__admin/near-misses/request-pattern", "the journaled requests closest to a request pattern",
            [.post: { api, call in .response(api.nearMissesForPattern(call.request, call.context)) }],
            input: [.post: .body(StubSchemas.requestPattern)]),
        AdminEndpoint(
            "/__admin/settings", "global settings (delays); `POST` replaces, `PATCH` merges",
            [
                .get: { api, _ in .response(.json(api.engine.settings.json.serialized)) },
                .post: { api, call in .response(api.updateSettings(call.request, call.scope)) },
                .patch: { api, call in .response(api.updateSettings(call.request, call.scope)) },
            ], input: [.post: .body(StubSchemas.settings), .patch: .body(StubSchemas.settings)]),
        AdminEndpoint(
            "/__admin/files", "the names of the body files under `__files/` (in a named scope, its own too)",
            [.get: { api, call in .response(api.fileNames(call.scope)) }]),
        AdminEndpoint(
            "/__admin/files/{name...}", "one body file: read, written or deleted (in a named scope: its own, held in its memory)",
            [
                .get: { api, call in .response(api.file(call.request, call.scope, name: call.parameters[0])) },
                .put: { api, call in .response(api.file(call.request, call.scope, name: call.parameters[0])) },
                .delete: { api, call in .response(api.file(call.request, call.scope, name: call.parameters[0])) },
            ]),
    ]

    public init(
        engine: StubEngine, journal: RequestJournal, recordings: StubEngine? = nil,
        maxScopeMappingBytes: Int = StubAdminAPI.defaultMaxScopeMappingBytes
    ) {
        self.engine = engine
        scenarioEngines = [engine] + (recordings.map { [$0] } ?? [])
        self.journal = journal
        self.maxScopeMappingBytes = maxScopeMappingBytes
    }

    private func showMapping(id: String, _ scope: StateScope) -> Response {
        guard let mapping = engine.mapping(id: id, in: scope) else { return notFound(id, ownOf: nil) }
        return .json(mapping.json.serialized)
    }

    private func moveScenario(_ name: String, _ request: Request, _ scope: StateScope) -> Response {
        let state = (try? JSONValue.parse(request.body))?["state"]?.stringValue
        // Not short-circuited: a scenario of the same name in both engines moves in both.
        let changes = scenarioEngines.map { $0.setScenario(name, to: state, in: scope) }
        if changes.contains(.moved) { return .emptyJSONObject }
        if changes.contains(.noSuchState) { return wireMockError(code: 11, "Scenario \(name) does not support state \(state ?? "")", status: 422) }
        return wireMockError(code: 404, "Scenario \(name) does not exist", status: 404)
    }

    private func updateSettings(_ request: Request, _ scope: StateScope) -> Response {
        guard scope.isDefault else { return sharedOnly("\(request.method.rawValue) /__admin/settings", "changes settings every scope shares") }
        do throws(StubError) {
            try engine.settings.update(try parseBody(request), merging: request.method == .patch)
        } catch {
            return invalid(error)
        }
        // WireMock 2.35 sends no body here, but WireMock's Python client parses one.
        return .emptyJSONObject
    }

    private func listMappings(_ request: Request, _ scope: StateScope) -> Response {
        let all = engine.mappings(in: scope)
        let offset = max(0, request.query("offset").flatMap(Int.init) ?? 0)
        let limit = max(0, request.query("limit").flatMap(Int.init) ?? all.count)
        let page = all.dropFirst(offset).prefix(limit)
        return .json(
            JSONValue.object([
                ("mappings", .array(page.map(\.json))),
                ("meta", .object([("total", .int(all.count))])),
            ]).serialized)
    }

    /// `lenient` for mappings, which WireMock reads with comments and single quotes (as files).
    func parseBody(_ request: Request, lenient: Bool = false) throws(StubError) -> JSONValue {
        do {
            return try lenient ? JSONValue.parseLenient(request.body) : JSONValue.parse(request.body)
        } catch {
            throw StubError(line: error.line, field: "", message: "column \(error.column): \(error.message)")
        }
    }

    private func createMapping(_ request: Request, _ scope: StateScope) -> Response {
        do throws(StubError) {
            var mapping = try StubMapping.parse(try parseBody(request, lenient: true), in: engine.directory(for: scope))
            mapping.adminBytes = request.body.count
            try refuseFiles(for: mapping, in: scope, "add")
            if let refusal = overScopeCap([mapping], in: scope) { return refusal }
            engine.add(mapping, in: scope)
            if mapping.persistent, let failure = save() { return failure }
            return .json(mapping.json.serialized, status: 201)
        } catch {
            return invalid(error)
        }
    }

    /// `413` when `mappings` (replacing those of their ids) would take a named scope's own mappings
    /// past `maxScopeMappingBytes`; nil when they fit. `default` holds the shared mappings: uncapped.
    /// `replacingAll`: the scope's other mappings go (an import that deletes what it does not name).
    private func overScopeCap(_ mappings: [StubMapping], in scope: StateScope, replacingAll: Bool = false) -> Response? {
        guard !scope.isDefault else { return nil }
        let kept = replacingAll ? 0 : engine.ownBytes(in: scope, excluding: Set(mappings.map(\.id)))
        let total = kept + mappings.reduce(0) { $0 + $1.adminBytes }
        guard total > maxScopeMappingBytes else { return nil }
        return wireMockError(
            code: 413,
            "the mappings of scope \(scope.name) would take \(total) bytes, past the cap of \(maxScopeMappingBytes) "
                + "(--max-scope-mapping-bytes): remove some (DELETE /__admin/mappings in the scope), or serve large bodies from __files/", status: 413
        )
    }

    /// A persistent mapping is written to a file every scope shares: not from a named scope.
    private func refuseFiles(for mapping: StubMapping, in scope: StateScope, _ verb: String) throws(StubError) {
        guard mapping.persistent && !scope.isDefault else { return }
        throw StubError(
            field: "persistent",
            message:
                "a persistent mapping is written to mappings/ and shared by every scope: \(verb) it without a scope (this one is in \"\(scope.name)\")"
        )
    }

    /// Writes the admin API's mappings to files; nil when that worked, else a 500 saying why.
    private func save() -> Response? {
        do {
            _ = try engine.save()
            return nil
        } catch {
            // The folder as the stubs folder names it: the admin API may be reached from elsewhere.
            return .text("Could not write to mappings/: \(MappingFiles.reason(error))\n", status: 500)
        }
    }

    private func saveMappings() -> Response {
        save() ?? Response(status: 200)
    }

    /// A call that changes the shared mappings, made in a named scope.
    func sharedOnly(_ call: String, _ why: String = "writes the shared mappings to files") -> Response {
        .json(JSONValue.object([("message", .string("\(call) \(why): send it without a scope"))]).serialized, status: 400)
    }

    /// Mappings whose `metadata` satisfies a content pattern (e.g. `matchesJsonPath`).
    private func byMetadata(_ request: Request, _ scope: StateScope, remove: Bool) -> Response {
        let pattern: ContentPattern
        do throws(StubError) {
            pattern = try ContentPattern.parse(try parseBody(request), field: "")
        } catch {
            return invalid(error)
        }
        let found = engine.mappings(in: scope).filter { mapping in
            mapping.json["metadata"].map { pattern.matches($0.serialized) } ?? false
        }
        if remove {
            found.forEach { engine.remove(id: $0.id, in: scope) }
            return .emptyJSONObject
        }
        return .json(JSONValue.object([("mappings", .array(found.map(\.json))), ("meta", .object([("total", .int(found.count))]))]).serialized)
    }

    /// In a named scope, replacing a shared mapping makes the scope its own version of it.
    private func replaceMapping(id: String, _ request: Request, _ scope: StateScope) -> Response {
        guard engine.mapping(id: id, in: scope) != nil else { return notFound(id, ownOf: nil) }
        do throws(StubError) {
            // The path's id wins over any in the body.
            let body = try parseBody(request, lenient: true)
            let json = JSONValue.object([("id", .string(id.lowercased()))] + (body.objectValue ?? []).filter { $0.0 != "id" && $0.0 != "uuid" })
            var mapping = try StubMapping.parse(json, in: engine.directory(for: scope))
            mapping.adminBytes = request.body.count
            try refuseFiles(for: mapping, in: scope, "replace")
            if let refusal = overScopeCap([mapping], in: scope) { return refusal }
            engine.add(mapping, in: scope)
            // As WireMock: a persistent mapping's file is rewritten (in place, when it had one).
            if mapping.persistent, let failure = save() { return failure }
            return .json(mapping.json.serialized)
        } catch {
            return invalid(error)
        }
    }

    /// WireMock 3.13's `GET`/`DELETE /__admin/mappings/unmatched`: the mappings no request in the
    /// scope's journal was answered by (found by matching each journaled request again, scenario
    /// states aside), listed or removed (those the scope may change). A CI hygiene step: stubs a
    /// test set up that the app never called.
    private func unmatchedMappings(_ context: RequestContext, remove: Bool) -> Response {
        let scope = context.scope
        var used = Set<String>()
        for entry in journal.entriesOf(scope) where entry.backend == engine.name {
            if let id = engine.answeringStub(for: entry.request, in: scope)?["id"]?.stringValue { used.insert(id) }
        }
        let unmatched = engine.mappings(in: scope).filter { !used.contains($0.id) }
        if remove { unmatched.forEach { engine.remove(id: $0.id, in: scope) } }
        return .json(
            JSONValue.object([
                ("mappings", .array(unmatched.map(\.json))), ("meta", .object([("total", .int(unmatched.count))])),
            ]).serialized)
    }

    /// `POST /__admin/mappings/edit`: WireMock 2's Java client (`editStub`) posts the whole mapping,
    /// its id naming the one it replaces.
    private func editMapping(_ request: Request, _ scope: StateScope) -> Response {
        guard let id = (try? JSONValue.parseLenient(request.body))?["id"]?.stringValue else {
            return invalid(StubError(field: "id", message: "expected the id of the mapping to replace"))
        }
        return replaceMapping(id: id, request, scope)
    }

    /// `POST /__admin/mappings/remove`: WireMock 2's Java client (`removeStub`) posts a mapping; the
    /// one with its id goes, or, when it has none that is known, every one whose request pattern is
    /// the same (as WireMock's `removeStubMapping`). `200` whether or not one was found, as WireMock.
    private func removeMapping(_ request: Request, _ scope: StateScope) -> Response {
        let given: StubMapping
        do throws(StubError) {
            let body = try parseBody(request, lenient: true)
            given = try StubMapping.parse(body, in: engine.directory(for: scope))
            if body["id"] != nil || body["uuid"] != nil, engine.remove(id: given.id, in: scope) { return Response(status: 200) }
        } catch {
            return invalid(error)
        }
        let pattern = given.json["request"].map(Self.sortingKeys)
        for mapping in engine.mappings(in: scope) where mapping.json["request"].map(Self.sortingKeys) == pattern {
            engine.remove(id: mapping.id, in: scope)
        }
        return Response(status: 200)
    }

    /// Objects with their members in key order, so that equal patterns written differently compare equal.
    private static func sortingKeys(_ value: JSONValue) -> JSONValue {
        switch value {
        case .object(let members): .object(members.sorted { $0.0 < $1.0 }.map { ($0.0, sortingKeys($0.1)) })
        case .array(let items): .array(items.map(sortingKeys))
        default: value
        }
    }

    /// All or nothing: every mapping is checked before any is added. `importOptions`:
    /// `duplicatePolicy` `OVERWRITE` (the default) or `IGNORE` (a mapping whose id is taken is
    /// left out), and `deleteAllNotInImport` (the mappings the scope may change that the import
    /// does not name are removed).
    private func importMappings(_ request: Request, _ scope: StateScope) -> Response {
        do throws(StubError) {
            let body = try parseBody(request, lenient: true)
            guard let items = body["mappings"]?.arrayValue else {
                throw StubError(field: "mappings", message: "expected {\"mappings\": [...]}")
            }
            let options = body["importOptions"]
            var ignoreDuplicates = false
            if let policy = options?["duplicatePolicy"] {
                guard let name = policy.stringValue, ["OVERWRITE", "IGNORE"].contains(name) else {
                    throw StubError(field: "importOptions.duplicatePolicy", message: "expected OVERWRITE or IGNORE")
                }
                ignoreDuplicates = name == "IGNORE"
            }
            var deleteOthers = false
            if let flag = options?["deleteAllNotInImport"] {
                guard let value = flag.boolValue else {
                    throw StubError(field: "importOptions.deleteAllNotInImport", message: "expected true or false")
                }
                deleteOthers = value
            }
            var mappings: [StubMapping] = []
            for (index, item) in items.enumerated() {
                do {
                    var mapping = try StubMapping.parse(item, in: engine.directory(for: scope))
                    mapping.adminBytes = scope.isDefault ? 0 : item.serialized.utf8.count
                    mappings.append(mapping)
                } catch {
                    var located = error
                    located.field = "mappings[\(index)]" + (error.field.isEmpty ? "" : ".\(error.field)")
                    throw located
                }
            }
            if let refusal = overScopeCap(mappings, in: scope, replacingAll: deleteOthers) { return refusal }
            if deleteOthers {
                let imported = Set(mappings.map(\.id))
                for mapping in engine.mappings(in: scope) where !imported.contains(mapping.id) { engine.remove(id: mapping.id, in: scope) }
            }
            for mapping in mappings where !(ignoreDuplicates && engine.mapping(id: mapping.id, in: scope) != nil) {
                engine.add(mapping, in: scope)
            }
            return Response(status: 200)
        } catch {
            return invalid(error)
        }
    }

    /// WireMock's `Scenario` with its `mappings`, which WireMock 2's Java client needs.
    private func listScenarios(_ scope: StateScope) -> Response {
        .json(
            JSONValue.object([
                (
                    "scenarios",
                    .array(
                        scenarioEngines.flatMap { engine in
                            engine.scenarioSummaries(in: scope).map { summary in
                                .object([
                                    ("id", .string(summary.name)), ("name", .string(summary.name)), ("state", .string(summary.state)),
                                    ("possibleStates", .array(summary.possibleStates.map(JSONValue.string))),
                                    ("mappings", .array(engine.mappings(in: scope).filter { $0.scenarioName == summary.name }.map(\.json))),
                                ])
                            }
                        })
                )
            ]).serialized)
    }

    private enum JournalQuery { case count, find, remove }

    private func findRequests(_ request: Request, _ context: RequestContext, _ query: JournalQuery) -> Response {
        let pattern: RequestPattern
        do throws(StubError) {
            // A misspelt key would count or find more than meant: refused, as WireMock does.
            let json = try parseBody(request)
            var warnings: [StubError] = []
            try MappingKeyCheck.check(request: json, field: "request", warnings: &warnings)
            pattern = try RequestPattern.parse(json)
        } catch {
            return invalid(error)
        }
        let scope = context.journalScope(for: request)
        let inScope = { (entry: JournalEntry) in scope == nil || entry.scope === scope }
        let matching =
            query == .remove
            ? journal.remove { inScope($0) && pattern.evaluate($0.request).matched }
            : journal.entriesOf(scope).filter { pattern.evaluate($0.request).matched }
        // A count or a list cut short by the request's budget would be a wrong answer, said nowhere.
        if let place = RequestBudget.current?.exhaustedIn {
            return .text(
                "The request's work budget (\(RequestBudget.limitDescription)) ran out in \(place) after \(matching.count) matching "
                    + "requests\(query == .remove ? " were removed" : ""): raise it with --request-cpu-budget, or match with a cheaper pattern.\n",
                status: 500)
        }
        if query == .count {
            return .json(JSONValue.object([("count", .int(matching.count)), ("requestJournalDisabled", false)]).serialized)
        }
        if query == .remove {
            // WireMock's `FindServeEventsResult`: the removed serve events, whole.
            let understudyFields = request.asksForUnderstudyFields
            return .json(
                JSONValue.object([
                    ("serveEvents", .array(matching.map { $0.serveEventJSON(in: journal, understudyFields: understudyFields) }))
                ]).serialized)
        }
        return .json(
            JSONValue.object([
                ("requests", .array(matching.map { $0.serveEventJSON(in: journal)["request"] ?? .null }))
            ]).serialized)
    }

    /// `POST /__admin/requests/remove-by-metadata`: the serve events whose stub's `metadata`
    /// satisfies a content pattern go, and are answered as WireMock's `FindServeEventsResult`.
    private func removeRequestsByStubMetadata(_ request: Request, _ context: RequestContext) -> Response {
        let pattern: ContentPattern
        do throws(StubError) {
            pattern = try ContentPattern.parse(try parseBody(request), field: "")
        } catch {
            return invalid(error)
        }
        // Decided before the journal's lock is taken: finding an entry's stub takes the engine's.
        let chosen = Set(
            journal.entriesOf(context.journalScope(for: request)).filter { entry in
                entry.backend == engine.name
                    && (engine.answeringStub(for: entry.request, in: entry.scope)?["metadata"].map { pattern.matches($0.serialized) } ?? false)
            }.map(\.sequence))
        let removed = journal.remove { chosen.contains($0.sequence) }
        let understudyFields = request.asksForUnderstudyFields
        return .json(
            JSONValue.object([
                ("serveEvents", .array(removed.map { $0.serveEventJSON(in: journal, understudyFields: understudyFields) }))
            ]).serialized)
    }

    /// `ownOf`: the named scope whose own mappings a change looked among.
    private func notFound(_ id: String, ownOf scope: StateScope?) -> Response {
        let among = scope.map { $0.isDefault ? "" : " among the own mappings of scope \($0.name) (shared ones are changed without a scope)" } ?? ""
        return .json(JSONValue.object([("message", .string("No stub mapping with id \(id)\(among)"))]).serialized, status: 404)
    }

    /// `{"errors": [{"code": …, "title": …}]}`, as WireMock answers a call it refuses.
    func wireMockError(code: Int, _ title: String, status: Int) -> Response {
        .json(JSONValue.object([("errors", .array([.object([("code", .int(code)), ("title", .string(title))])]))]).serialized, status: status)
    }

    /// WireMock's 422 shape: `{"errors": [{"code": 10, "source": {"pointer": "/request/queryParamters"},
    /// "title": …, "detail": …}]}`; the pointer is a JSON pointer (`mappings[1]` → `/mappings/1`).
    func invalid(_ error: StubError) -> Response {
        let pointer =
            "/"
            + error.field.replacingOccurrences(of: "[", with: ".").replacingOccurrences(of: "]", with: "")
            .replacingOccurrences(of: ".", with: "/")
        return .json(
            JSONValue.object([
                (
                    "errors",
                    .array([
                        .object([
                            ("code", 10),
                            ("source", .object([("pointer", .string(pointer))])),
                            ("title", .string(error.description)),
                            ("detail", .string(error.message)),
                        ])
                    ])
                )
            ]).serialized, status: 422)
    }
}
