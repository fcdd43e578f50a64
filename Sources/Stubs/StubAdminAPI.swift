import HTTPServer
import MockCore

/// The stub engine's part of the admin API, in WireMock's paths and shapes: mappings (list, create,
/// read, replace, delete, reset to files, save, import, find or remove by metadata), scenarios,
/// and counting, finding or removing journaled requests by a request pattern. What it does not handle under these prefixes falls through to
/// the built-in admin API.
public final class StubAdminAPI: Backend {
    public let name = "stubs-admin"
    public let mounts = ["/__admin/mappings", "/__admin/scenarios", "/__admin/requests"]
    public let tier = BackendTier.admin

    private let engine: StubEngine
    /// Every engine whose scenarios `/__admin/scenarios` shows and moves: the user's stubs and
    /// the recordings (whose mappings are files only, not edited through this API).
    private let scenarioEngines: [StubEngine]
    private let journal: RequestJournal

    public init(engine: StubEngine, journal: RequestJournal, recordings: StubEngine? = nil) {
        self.engine = engine
        scenarioEngines = [engine] + (recordings.map { [$0] } ?? [])
        self.journal = journal
    }

    public func handle(_ request: Request, _ context: RequestContext) -> Reply {
        let parts = request.path.dropFirst("/__admin/".count).split(separator: "/").map(String.init)
        switch (request.method, parts.count, parts.first) {
        case (.get, 1, "mappings"): return .response(listMappings(request))
        case (.post, 1, "mappings"): return .response(createMapping(request))
        case (.delete, 1, "mappings"):
            engine.removeAll()
            return .response(Response(status: 200))
        case (.post, 2, "mappings") where parts[1] == "reset":
            engine.restoreFromFiles()
            journal.clear()
            return .response(Response(status: 200))
        case (.post, 2, "mappings") where parts[1] == "import": return .response(importMappings(request))
        case (.post, 2, "mappings") where parts[1] == "save": return .response(saveMappings())
        case (.post, 2, "mappings") where parts[1] == "find-by-metadata": return .response(byMetadata(request, remove: false))
        case (.post, 2, "mappings") where parts[1] == "remove-by-metadata": return .response(byMetadata(request, remove: true))
        case (.get, 2, "mappings"):
            guard let mapping = engine.mapping(id: parts[1]) else { return .response(notFound(parts[1])) }
            return .response(.json(mapping.json.serialized))
        case (.put, 2, "mappings"): return .response(replaceMapping(id: parts[1], request))
        case (.delete, 2, "mappings"):
            return .response(engine.remove(id: parts[1]) ? Response(status: 200) : notFound(parts[1]))
        case (.get, 1, "scenarios"): return .response(listScenarios())
        case (.post, 2, "scenarios") where parts[1] == "reset":
            for engine in scenarioEngines { engine.scenarios.reset(nil) }
            return .response(Response(status: 200))
        case (.put, 3, "scenarios") where parts[2] == "state":
            let state = (try? JSONValue.parse(request.body))?["state"]?.stringValue
            // Not short-circuited: a scenario of the same name in both engines moves in both.
            let found = scenarioEngines.map { $0.setScenario(parts[1], to: state) }.contains(true)
            return .response(found ? Response(status: 200)
                             : .json(JSONValue.object([("message", .string("Scenario \(parts[1]) does not exist"))]).serialized, status: 404))
        case (.post, 2, "requests") where parts[1] == "count": return .response(findRequests(request, .count))
        case (.post, 2, "requests") where parts[1] == "find": return .response(findRequests(request, .find))
        case (.post, 2, "requests") where parts[1] == "remove": return .response(findRequests(request, .remove))
        default: return .decline
        }
    }

    private func listMappings(_ request: Request) -> Response {
        let all = engine.mappings
        let offset = max(0, request.query("offset").flatMap(Int.init) ?? 0)
        let limit = max(0, request.query("limit").flatMap(Int.init) ?? all.count)
        let page = all.dropFirst(offset).prefix(limit)
        return .json(JSONValue.object([
            ("mappings", .array(page.map(\.json))),
            ("meta", .object([("total", .int(all.count))])),
        ]).serialized)
    }

    private func parseBody(_ request: Request) throws(StubError) -> JSONValue {
        do {
            return try JSONValue.parse(request.body)
        } catch {
            throw StubError(line: error.line, field: "", message: "column \(error.column): \(error.message)")
        }
    }

    private func createMapping(_ request: Request) -> Response {
        do throws(StubError) {
            let mapping = try StubMapping.parse(try parseBody(request), in: engine.directory)
            engine.add(mapping)
            if mapping.persistent, let failure = save() { return failure }
            return .json(mapping.json.serialized, status: 201)
        } catch {
            return invalid(error)
        }
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

    /// Mappings whose `metadata` satisfies a content pattern (e.g. `matchesJsonPath`).
    private func byMetadata(_ request: Request, remove: Bool) -> Response {
        let pattern: ContentPattern
        do throws(StubError) {
            pattern = try ContentPattern.parse(try parseBody(request), field: "")
        } catch {
            return invalid(error)
        }
        let found = engine.mappings.filter { mapping in
            mapping.json["metadata"].map { pattern.matches($0.serialized) } ?? false
        }
        if remove {
            found.forEach { engine.remove(id: $0.id) }
            return Response(status: 200)
        }
        return .json(JSONValue.object([("mappings", .array(found.map(\.json))), ("meta", .object([("total", .int(found.count))]))]).serialized)
    }

    private func replaceMapping(id: String, _ request: Request) -> Response {
        guard engine.mapping(id: id) != nil else { return notFound(id) }
        do throws(StubError) {
            // The path's id wins over any in the body.
            let body = try parseBody(request)
            let json = JSONValue.object([("id", .string(id.lowercased()))] + (body.objectValue ?? []).filter { $0.0 != "id" && $0.0 != "uuid" })
            let mapping = try StubMapping.parse(json, in: engine.directory)
            engine.add(mapping)
            return .json(mapping.json.serialized)
        } catch {
            return invalid(error)
        }
    }

    /// All or nothing: every mapping is checked before any is added.
    private func importMappings(_ request: Request) -> Response {
        do throws(StubError) {
            guard let items = try parseBody(request)["mappings"]?.arrayValue else {
                throw StubError(field: "mappings", message: "expected {\"mappings\": [...]}")
            }
            var mappings: [StubMapping] = []
            for (index, item) in items.enumerated() {
                do {
                    mappings.append(try StubMapping.parse(item, in: engine.directory))
                } catch {
                    var located = error
                    located.field = "mappings[\(index)]" + (error.field.isEmpty ? "" : ".\(error.field)")
                    throw located
                }
            }
            mappings.forEach(engine.add)
            return Response(status: 200)
        } catch {
            return invalid(error)
        }
    }

    private func listScenarios() -> Response {
        .json(JSONValue.object([("scenarios", .array(scenarioEngines.flatMap(\.scenarioSummaries).map { summary in
            .object([
                ("id", .string(summary.name)), ("name", .string(summary.name)), ("state", .string(summary.state)),
                ("possibleStates", .array(summary.possibleStates.map(JSONValue.string))),
            ])
        }))]).serialized)
    }

    private enum JournalQuery { case count, find, remove }

    private func findRequests(_ request: Request, _ query: JournalQuery) -> Response {
        let pattern: RequestPattern
        do throws(StubError) {
            pattern = try RequestPattern.parse(try parseBody(request))
        } catch {
            return invalid(error)
        }
        let matching = query == .remove ? journal.remove { pattern.evaluate($0.request).matched }
                                        : journal.entries.filter { pattern.evaluate($0.request).matched }
        if query == .count {
            return .json(JSONValue.object([("count", .int(matching.count)), ("requestJournalDisabled", false)]).serialized)
        }
        return .json(JSONValue.object([
            ("requests", .array(matching.map { $0.serveEventJSON(runID: journal.runID)["request"] ?? .null })),
        ]).serialized)
    }

    private func notFound(_ id: String) -> Response {
        .json(JSONValue.object([("message", .string("No stub mapping with id \(id)"))]).serialized, status: 404)
    }

    /// WireMock's 422 shape: `{"errors": [{"code": 10, "source": {"pointer": …}, "title": …}]}`.
    private func invalid(_ error: StubError) -> Response {
        let pointer = "/" + error.field.replacingOccurrences(of: ".", with: "/")
        return .json(JSONValue.object([("errors", .array([.object([
            ("code", 10),
            ("source", .object([("pointer", .string(pointer))])),
            ("title", .string(error.description)),
        ])]))]).serialized, status: 422)
    }
}
