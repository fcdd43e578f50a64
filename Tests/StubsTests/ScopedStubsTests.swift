import Foundation
import HTTPServer
import MockCore
import Testing
import UnderstudyTesting

@testable import Stubs

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Admin-API stubs and scenarios in named scopes: a scope's own mappings answer before the shared
/// ones (files, and what the admin API adds without a scope) and nobody else sees them.
@Suite struct ScopedStubsTests {
    static let shared = "6f1c5d52-5b2a-4c5e-9a51-2f7d0c1b9e01"

    func serve() throws -> (BackendTester, URL) {
        let root = try makeTemporaryDirectory([
            "mappings/shared.json": #"{"id": "\#(Self.shared)", "request": {"urlPath": "/greeting"}, "response": {"body": "shared"}}"#,
            "mappings/steps.json": #"""
            {"mappings": [
              {"scenarioName": "steps", "requiredScenarioState": "Started", "newScenarioState": "two", "request": {"urlPath": "/step"}, "response": {"body": "one"}},
              {"scenarioName": "steps", "requiredScenarioState": "two", "request": {"urlPath": "/step"}, "response": {"body": "two"}}
            ]}
            """#,
        ])
        let engine = StubEngine(stubsDirectory: root)
        let journal = RequestJournal()
        return (try BackendTester(backends: [StubAdminAPI(engine: engine, journal: journal), engine], journal: journal), root)
    }

    func text(_ answer: (body: Data, response: HTTPURLResponse)) -> String { String(decoding: answer.body, as: UTF8.self) }
    let a = ["X-Understudy-Scope": "a"], b = ["X-Understudy-Scope": "b"]

    /// A hundred CI scopes each posting big stubs took half a gigabyte: a scope's own mappings have
    /// a byte cap, and past it the scope is told so and keeps what it had.
    @Test func aScopesOwnMappingsHaveAByteCap() async throws {
        let root = try makeTemporaryDirectory([:])
        defer { try? FileManager.default.removeItem(at: root) }
        let engine = StubEngine(stubsDirectory: root)
        let server = try BackendTester(backends: [StubAdminAPI(engine: engine, journal: RequestJournal(), maxScopeMappingBytes: 50_000), engine])
        func stub(_ index: Int) -> Data {
            Data(
                #"{"id": "00000000-0000-0000-0000-00000000000\#(index)", "request": {"url": "/big/\#(index)"}, "response": {"body": "\#(String(repeating: "x", count: 20_000))"}}"#
                    .utf8)
        }
        #expect(try await server.send("POST", "/__admin/mappings", headers: a, body: stub(1)).response.statusCode == 201)
        #expect(try await server.send("POST", "/__admin/mappings", headers: a, body: stub(2)).response.statusCode == 201)
        let refused = try await server.send("POST", "/__admin/mappings", headers: a, body: stub(3))
        #expect(refused.response.statusCode == 413)
        #expect(text(refused).contains("the mappings of scope a would take") && text(refused).contains("--max-scope-mapping-bytes"))
        #expect(try await server.send("GET", "/big/3", headers: a).response.statusCode == 404)
        #expect(text(try await server.send("GET", "/big/2", headers: a)).count == 20_000, "what the scope had stays")
        // Replacing one counts it once; another scope, and the shared mappings, have their own room.
        #expect(
            try await server.send("PUT", "/__admin/mappings/00000000-0000-0000-0000-000000000002", headers: a, body: stub(2)).response.statusCode
                == 200)
        #expect(try await server.send("POST", "/__admin/mappings", headers: b, body: stub(3)).response.statusCode == 201)
        #expect(try await server.send("POST", "/__admin/mappings", body: stub(4)).response.statusCode == 201)
        let imported = Data(
            #"{"mappings": [\#(String(decoding: stub(5), as: UTF8.self)), \#(String(decoding: stub(6), as: UTF8.self)), \#(String(decoding: stub(7), as: UTF8.self))]}"#
                .utf8)
        #expect(try await server.send("POST", "/__admin/mappings/import", headers: b, body: imported).response.statusCode == 413, "all or nothing")
        #expect(try await server.send("GET", "/big/5", headers: b).response.statusCode == 404)
    }

    @Test func aScopesOwnMappingsAnswerFirstAndOnlyThere() async throws {
        let (server, root) = try serve()
        defer { try? FileManager.default.removeItem(at: root) }
        let mine = #"{"priority": 9, "request": {"urlPath": "/greeting"}, "response": {"body": "a's own"}}"#
        #expect(try await server.send("POST", "/__admin/mappings", headers: a, body: Data(mine.utf8)).response.statusCode == 201)
        // Before the shared mapping, though its priority is lower.
        #expect(text(try await server.send("GET", "/greeting", headers: a)) == "a's own")
        #expect(text(try await server.send("GET", "/greeting", headers: b)) == "shared")
        #expect(text(try await server.send("GET", "/greeting")) == "shared")
        let listed = try JSONSerialization.jsonObject(with: try await server.send("GET", "/__admin/mappings", headers: a).body) as? [String: Any]
        #expect((listed?["meta"] as? [String: Int])?["total"] == 4, "a sees its own mapping and the three shared ones")

        // Replacing a shared mapping in a scope makes the scope its own version of it.
        let edited = #"{"request": {"urlPath": "/greeting"}, "response": {"body": "b's edit"}}"#
        #expect(try await server.send("PUT", "/__admin/mappings/\(Self.shared)", headers: b, body: Data(edited.utf8)).response.statusCode == 200)
        #expect(text(try await server.send("GET", "/greeting", headers: b)) == "b's edit")
        #expect(text(try await server.send("GET", "/greeting")) == "shared")
        // A scope removes only its own; the shared mapping is changed without a scope.
        #expect(try await server.send("DELETE", "/__admin/mappings/\(Self.shared)", headers: b).response.statusCode == 200)
        #expect(text(try await server.send("GET", "/greeting", headers: b)) == "shared")
        let refused = try await server.send("DELETE", "/__admin/mappings/\(Self.shared)", headers: b)
        #expect(refused.response.statusCode == 404 && text(refused).contains("among the own mappings of scope b"))
        #expect(text(try await server.send("GET", "/greeting")) == "shared")

        // A persistent mapping would be shared: refused in a scope, as is saving.
        let persistent = #"{"persistent": true, "request": {"urlPath": "/p"}, "response": {"body": "p"}}"#
        let notSaved = try await server.send("POST", "/__admin/mappings", headers: a, body: Data(persistent.utf8))
        #expect(notSaved.response.statusCode == 422 && text(notSaved).contains("add it without a scope"))
        #expect(try await server.send("POST", "/__admin/mappings/save", headers: a).response.statusCode == 400)

        // DELETE /__admin/mappings in a scope empties only its own.
        #expect(try await server.send("DELETE", "/__admin/mappings", headers: a).response.statusCode == 200)
        #expect(text(try await server.send("GET", "/greeting", headers: a)) == "shared")
        // Mappings added without a scope are shared: every scope sees them.
        let everyone = #"{"request": {"urlPath": "/everyone"}, "response": {"body": "hello all"}}"#
        _ = try await server.send("POST", "/__admin/mappings", body: Data(everyone.utf8))
        #expect(text(try await server.send("GET", "/everyone", headers: a)) == "hello all")
    }

    @Test func scenariosMoveInTheirScopeOnly() async throws {
        let (server, root) = try serve()
        defer { try? FileManager.default.removeItem(at: root) }
        #expect(text(try await server.send("GET", "/step", headers: a)) == "one")
        #expect(text(try await server.send("GET", "/step", headers: a)) == "two")
        #expect(text(try await server.send("GET", "/step", headers: b)) == "one")
        func state(_ headers: [String: String]) async throws -> String? {
            let listing =
                try JSONSerialization.jsonObject(with: try await server.send("GET", "/__admin/scenarios", headers: headers).body) as? [String: Any]
            return (listing?["scenarios"] as? [[String: Any]])?.first?["state"] as? String
        }
        #expect(try await state(a) == "two")
        #expect(try await state(b) == "two")
        #expect(try await state([:]) == "Started")
        // Set and reset in one scope.
        _ = try await server.send("PUT", "/__admin/scenarios/steps/state", headers: b, body: Data(#"{"state": "Started"}"#.utf8))
        #expect(try await state(b) == "Started")
        #expect(try await state(a) == "two")
        _ = try await server.send("POST", "/__admin/scenarios/reset", headers: a)
        #expect(text(try await server.send("GET", "/step", headers: a)) == "one")
        #expect(text(try await server.send("GET", "/step")) == "one")
        #expect(text(try await server.send("GET", "/step")) == "two")
        #expect(text(try await server.send("GET", "/step", headers: b)) == "one", "b's scenario was set back to Started")
    }

    @Test func nearMissesOfAScopeIncludeItsOwnMappings() async throws {
        let (server, root) = try serve()
        defer { try? FileManager.default.removeItem(at: root) }
        let mine = #"{"name": "a's widget", "request": {"urlPath": "/widgets/1"}, "response": {"body": "w"}}"#
        _ = try await server.send("POST", "/__admin/mappings", headers: a, body: Data(mine.utf8))
        let missInA = try await server.send("GET", "/widgets/2", headers: a)
        #expect(missInA.response.statusCode == 404 && text(missInA).contains("a's widget"))
        #expect(!text(try await server.send("GET", "/widgets/2", headers: b)).contains("a's widget"))
    }
}
