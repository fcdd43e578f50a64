import Foundation
import HTTPServer
import MockCore
import Testing
import UnderstudyTesting

@testable import Stubs

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

func object(_ data: Data) throws -> [String: Any] {
    try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
}

@Suite struct StubAdminAPITests {
    func serve(_ files: [String: String] = [:]) throws -> (BackendTester, URL) {
        let root = try makeTemporaryDirectory(files)
        let journal = RequestJournal()
        let engine = StubEngine(stubsDirectory: root)
        let server = try BackendTester(backends: [StubAdminAPI(engine: engine, journal: journal), engine], journal: journal)
        return (server, root)
    }

    @Test func createReadReplaceDeleteAMapping() async throws {
        let (server, root) = try serve()
        defer { try? FileManager.default.removeItem(at: root) }
        let create =
            #"{"request": {"method": "GET", "urlPath": "/npi/rally/config.json"}, "response": {"jsonBody": {"ViewControllerClassName": "Rally.MainViewController"}}}"#
        let (created, createdResponse) = try await server.send("POST", "/__admin/mappings", body: Data(create.utf8))
        #expect(createdResponse.statusCode == 201)
        let id = try #require(try object(created)["id"] as? String)
        #expect(UUID(uuidString: id) != nil)

        let (served, _) = try await server.send("GET", "/npi/rally/config.json")
        #expect(try JSONSerialization.jsonObject(with: served) as? [String: String] == ["ViewControllerClassName": "Rally.MainViewController"])

        let listing = try object(try await server.send("GET", "/__admin/mappings").body)
        #expect((listing["meta"] as? [String: Int])?["total"] == 1)
        // WireMock's admin root lists them too (AdminApiTest.deprecatedGetAllStubMappings).
        #expect(try object(try await server.send("GET", "/__admin/").body)["meta"] as? [String: Int] == ["total": 1])
        #expect(try object(try await server.send("GET", "/__admin/mappings/\(id)").body)["id"] as? String == id)

        let replacement = #"{"request": {"urlPath": "/npi/rally/config.json"}, "response": {"status": 503}}"#
        #expect(try await server.send("PUT", "/__admin/mappings/\(id)", body: Data(replacement.utf8)).response.statusCode == 200)
        #expect(try await server.send("GET", "/npi/rally/config.json").response.statusCode == 503)

        #expect(try await server.send("DELETE", "/__admin/mappings/\(id)").response.statusCode == 200)
        #expect(try await server.send("GET", "/__admin/mappings/\(id)").response.statusCode == 404)
        #expect(try await server.send("GET", "/npi/rally/config.json").response.statusCode == 404)
    }

    @Test func invalidMappingsGet422WithWhereAndWhy() async throws {
        let (server, root) = try serve()
        defer { try? FileManager.default.removeItem(at: root) }
        let (body, response) = try await server.send(
            "POST", "/__admin/mappings",
            body: Data(#"{"request": {"method": "FETCH"}, "response": {}}"#.utf8))
        #expect(response.statusCode == 422)
        let error = try #require((try object(body)["errors"] as? [[String: Any]])?.first)
        #expect((error["source"] as? [String: String])?["pointer"] == "/request/method")
        #expect((error["title"] as? String)?.contains("unknown method 'FETCH'") == true)
        let (_, malformed) = try await server.send("POST", "/__admin/mappings", body: Data("{".utf8))
        #expect(malformed.statusCode == 422)
        #expect((try object(try await server.send("GET", "/__admin/mappings").body)["meta"] as? [String: Int])?["total"] == 0)
    }

    @Test func importIsAllOrNothingAndResetGoesBackToFiles() async throws {
        let (server, root) = try serve([
            "mappings/file.json": #"{"request": {"urlPath": "/from-file"}, "response": {"body": "file"}}"#
        ])
        defer { try? FileManager.default.removeItem(at: root) }
        let bad = #"{"mappings": [{"request": {"urlPath": "/a"}, "response": {}}, {"request": 1, "response": {}}]}"#
        #expect(try await server.send("POST", "/__admin/mappings/import", body: Data(bad.utf8)).response.statusCode == 422)
        let good =
            #"{"mappings": [{"request": {"urlPath": "/a"}, "response": {"body": "a"}}, {"request": {"urlPath": "/b"}, "response": {"body": "b"}}]}"#
        #expect(try await server.send("POST", "/__admin/mappings/import", body: Data(good.utf8)).response.statusCode == 200)
        #expect((try object(try await server.send("GET", "/__admin/mappings").body)["meta"] as? [String: Int])?["total"] == 3)

        #expect(try await server.send("POST", "/__admin/mappings/reset").response.statusCode == 200)
        #expect(try await server.send("GET", "/a").response.statusCode == 404)
        #expect(try await server.send("GET", "/from-file").response.statusCode == 200)
        #expect(try await server.send("DELETE", "/__admin/mappings").response.statusCode == 200)
        #expect(try await server.send("GET", "/from-file").response.statusCode == 404)
    }

    @Test func countAndFindJournaledRequestsByPattern() async throws {
        let (server, root) = try serve()
        defer { try? FileManager.default.removeItem(at: root) }
        _ = try await server.send(
            "POST", "/informix/generic.php", headers: ["Content-Type": "application/x-www-form-urlencoded"],
            body: Data("sql_stmt=select+*+from+customer&tableName=customer".utf8))
        _ = try await server.send("GET", "/other")
        let pattern = #"{"method": "POST", "urlPath": "/informix/generic.php", "formParameters": {"tableName": {"equalTo": "customer"}}}"#
        let count = try object(try await server.send("POST", "/__admin/requests/count", body: Data(pattern.utf8)).body)
        #expect(count["count"] as? Int == 1)
        let found = try object(try await server.send("POST", "/__admin/requests/find", body: Data(pattern.utf8)).body)
        let requests = try #require(found["requests"] as? [[String: Any]])
        #expect(requests.first?["url"] as? String == "/informix/generic.php")
        #expect(requests.first?["body"] as? String == "sql_stmt=select+*+from+customer&tableName=customer")
        // GET /__admin/requests still reaches the built-in admin API.
        #expect(try await server.send("GET", "/__admin/requests").response.statusCode == 200)
    }

    @Test func scenariosCanBeListedSetAndReset() async throws {
        let (server, root) = try serve([
            "mappings/s.json":
                #"{"mappings": [{"scenarioName": "bus", "requiredScenarioState": "Started", "newScenarioState": "late", "request": {"method": "POST", "urlPath": "/bus/late"}, "response": {"status": 204}}, {"scenarioName": "bus", "requiredScenarioState": "late", "request": {"urlPath": "/bus/1"}, "response": {"body": "late"}}]}"#
        ])
        defer { try? FileManager.default.removeItem(at: root) }
        let listed = try object(try await server.send("GET", "/__admin/scenarios").body)
        let scenario = try #require((listed["scenarios"] as? [[String: Any]])?.first)
        #expect(scenario["name"] as? String == "bus")
        #expect(scenario["state"] as? String == "Started")
        #expect(scenario["possibleStates"] as? [String] == ["Started", "late"])
        #expect(
            Set((scenario["mappings"] as? [[String: Any]] ?? []).compactMap { ($0["request"] as? [String: Any])?["urlPath"] as? String }) == [
                "/bus/late", "/bus/1",
            ])
        #expect(try await server.send("PUT", "/__admin/scenarios/bus/state", body: Data(#"{"state": "late"}"#.utf8)).response.statusCode == 200)
        #expect(String(decoding: try await server.send("GET", "/bus/1").body, as: UTF8.self) == "late")
        #expect(try await server.send("POST", "/__admin/scenarios/reset").response.statusCode == 200)
        #expect(try await server.send("GET", "/bus/1").response.statusCode == 404)
        let (missing, missingResponse) = try await server.send("PUT", "/__admin/scenarios/nope/state", body: Data())
        #expect(missingResponse.statusCode == 404)
        #expect(String(decoding: missing, as: UTF8.self).contains("Scenario nope does not exist"))
        // A state no mapping names: WireMock's 422, and the state stays.
        let (refused, refusedResponse) = try await server.send("PUT", "/__admin/scenarios/bus/state", body: Data(#"{"state": "gone"}"#.utf8))
        #expect(refusedResponse.statusCode == 422)
        let error = try #require((try object(refused)["errors"] as? [[String: Any]])?.first)
        #expect(error["code"] as? Int == 11)
        #expect(error["title"] as? String == "Scenario bus does not support state gone")
        #expect(
            (try object(try await server.send("GET", "/__admin/scenarios").body)["scenarios"] as? [[String: Any]])?.first?["state"] as? String
                == "Started")
    }

    /// WireMock's lifecycle: a scenario lives while a mapping names it, and a mappings reset
    /// starts every scenario again.
    @Test func scenariosStartAgainWhenTheirMappingsGoAndComeBack() async throws {
        let (server, root) = try serve()
        defer { try? FileManager.default.removeItem(at: root) }
        let first =
            #"{"id": "a1a1a1a1-0000-0000-0000-000000000001", "scenarioName": "light", "requiredScenarioState": "Started", "newScenarioState": "on", "request": {"url": "/light"}, "response": {"body": "switching on"}}"#
        let second =
            #"{"id": "a1a1a1a1-0000-0000-0000-000000000002", "scenarioName": "light", "requiredScenarioState": "on", "request": {"url": "/light"}, "response": {"body": "on"}}"#
        func add() async throws {
            for mapping in [first, second] { _ = try await server.send("POST", "/__admin/mappings", body: Data(mapping.utf8)) }
        }
        func light() async throws -> String { String(decoding: try await server.send("GET", "/light").body, as: UTF8.self) }
        for removal in [("POST", "/__admin/mappings/reset"), ("DELETE", "/__admin/mappings")] {
            try await add()
            #expect(try await light() == "switching on")
            #expect(try await light() == "on")
            #expect(try await server.send(removal.0, removal.1).response.statusCode == 200)
        }
        try await add()
        _ = try await light()
        for id in ["a1a1a1a1-0000-0000-0000-000000000001", "a1a1a1a1-0000-0000-0000-000000000002"] {
            _ = try await server.send("DELETE", "/__admin/mappings/\(id)")
        }
        try await add()
        #expect(try await light() == "switching on", "removed one by one, then added again")
    }

    @Test func journaledRequestsRemovedByTheirStubsMetadata() async throws {
        let (server, root) = try serve([
            "mappings/m.json":
                #"{"mappings": [{"request": {"url": "/tagged"}, "response": {}, "metadata": {"team": "checkout"}}, {"request": {"url": "/other"}, "response": {}}]}"#
        ])
        defer { try? FileManager.default.removeItem(at: root) }
        for path in ["/tagged", "/other", "/tagged", "/unmatched"] { _ = try await server.send("GET", path) }
        let pattern = Data(#"{"matchesJsonPath": {"expression": "$.team", "equalTo": "checkout"}}"#.utf8)
        let removed = try object(try await server.send("POST", "/__admin/requests/remove-by-metadata", body: pattern).body)
        #expect(
            (removed["serveEvents"] as? [[String: Any]])?.compactMap { ($0["request"] as? [String: Any])?["url"] as? String } == [
                "/tagged", "/tagged",
            ])
        let left = try #require(try object(try await server.send("GET", "/__admin/requests").body)["requests"] as? [[String: Any]])
        #expect(left.compactMap { ($0["request"] as? [String: Any])?["url"] as? String } == ["/unmatched", "/other"])
        #expect(try await server.send("POST", "/__admin/requests/remove-by-metadata", body: Data("{}".utf8)).response.statusCode == 422)
    }

    /// WireMock 3.13's unmatched mappings: those no journaled request was answered by.
    @Test func mappingsNoRequestMatchedAreListedAndRemoved() async throws {
        let (server, root) = try serve([
            "mappings/m.json":
                #"{"mappings": [{"request": {"url": "/called"}, "response": {}}, {"request": {"url": "/never"}, "response": {}}, {"request": {"url": "/also-never"}, "response": {}}]}"#
        ])
        defer { try? FileManager.default.removeItem(at: root) }
        _ = try await server.send("GET", "/called")
        _ = try await server.send("GET", "/nothing")
        let urls = { (body: Data) throws -> Set<String> in
            Set((try object(body)["mappings"] as? [[String: Any]] ?? []).compactMap { ($0["request"] as? [String: Any])?["url"] as? String })
        }
        let listed = try await server.send("GET", "/__admin/mappings/unmatched").body
        #expect(try urls(listed) == ["/never", "/also-never"])
        #expect((try object(listed)["meta"] as? [String: Int])?["total"] == 2)
        let removed = try await server.send("DELETE", "/__admin/mappings/unmatched")
        #expect(removed.response.statusCode == 200)
        #expect(try urls(removed.body) == ["/never", "/also-never"])
        #expect(try await server.send("GET", "/never").response.statusCode == 404)
        #expect(try await server.send("GET", "/called").response.statusCode == 200)
        #expect(try urls(try await server.send("GET", "/__admin/mappings/unmatched").body).isEmpty)
    }

    /// WireMock 2's Java client edits and removes stubs by posting the whole mapping.
    @Test func editAndRemoveByTheMappingPosted() async throws {
        let (server, root) = try serve()
        defer { try? FileManager.default.removeItem(at: root) }
        let id = "b2b2b2b2-0000-0000-0000-000000000001"
        _ = try await server.send(
            "POST", "/__admin/mappings",
            body: Data(#"{"id": "\#(id)", "request": {"method": "GET", "url": "/greeting"}, "response": {"body": "hello"}}"#.utf8))
        _ = try await server.send(
            "POST", "/__admin/mappings", body: Data(#"{"request": {"url": "/other", "method": "GET"}, "response": {"body": "other"}}"#.utf8))
        let edit = #"{"id": "\#(id)", "request": {"method": "GET", "url": "/greeting"}, "response": {"body": "good day"}}"#
        #expect(try await server.send("POST", "/__admin/mappings/edit", body: Data(edit.utf8)).response.statusCode == 200)
        #expect(String(decoding: try await server.send("GET", "/greeting").body, as: UTF8.self) == "good day")
        #expect(
            try await server.send("POST", "/__admin/mappings/edit", body: Data(#"{"request": {}, "response": {}}"#.utf8)).response.statusCode == 422)

        // By id, then by a request pattern written in another order.
        #expect(try await server.send("POST", "/__admin/mappings/remove", body: Data(edit.utf8)).response.statusCode == 200)
        #expect(try await server.send("GET", "/greeting").response.statusCode == 404)
        let byPattern = #"{"request": {"method": "GET", "url": "/other"}, "response": {"status": 200}}"#
        #expect(try await server.send("POST", "/__admin/mappings/remove", body: Data(byPattern.utf8)).response.statusCode == 200)
        #expect(try await server.send("GET", "/other").response.statusCode == 404)
        #expect(try await server.send("POST", "/__admin/mappings/remove", body: Data("nope".utf8)).response.statusCode == 422)
    }

    @Test func saveWritesAdminMappingsAsFilesThatLoadAgain() async throws {
        let (server, root) = try serve()
        defer { try? FileManager.default.removeItem(at: root) }
        let create = #"{"name": "Bus list!", "request": {"method": "GET", "urlPath": "/bus"}, "response": {"body": "buses"}}"#
        let id = try #require(try object(try await server.send("POST", "/__admin/mappings", body: Data(create.utf8)).body)["id"] as? String)
        #expect(try await server.send("POST", "/__admin/mappings/save").response.statusCode == 200)
        let file = root.appendingPathComponent("mappings/bus-list-\(id).json")
        #expect(FileManager.default.fileExists(atPath: file.path))
        let fresh = StubEngine(stubsDirectory: root)
        #expect(fresh.mappings.map(\.id) == [id], "the saved file loads as the same mapping")
        #expect(fresh.mappings.first?.persistent == true, "saved mappings are persistent, as WireMock marks them")
        #expect(try await server.send("DELETE", "/__admin/mappings/\(id)").response.statusCode == 200)
        #expect(!FileManager.default.fileExists(atPath: file.path), "removing a saved mapping deletes its file")

        let persistent = #"{"persistent": true, "request": {"urlPath": "/kept"}, "response": {"body": "kept"}}"#
        let keptID = try #require(try object(try await server.send("POST", "/__admin/mappings", body: Data(persistent.utf8)).body)["id"] as? String)
        #expect(FileManager.default.fileExists(atPath: root.appendingPathComponent("mappings/any-urlpath-kept-\(keptID).json").path))
        #expect(try await server.send("POST", "/__admin/reset").response.statusCode == 200)
        #expect(String(decoding: try await server.send("GET", "/kept").body, as: UTF8.self) == "kept", "persistent mappings outlive a reset")
    }

    @Test func mappingsByMetadata() async throws {
        let (server, root) = try serve([
            "mappings/m.json":
                #"{"mappings": [{"request": {"url": "/1"}, "response": {}, "metadata": {"tags": ["bus", "oneschool"]}}, {"request": {"url": "/2"}, "response": {}, "metadata": {"tags": ["npi"]}}]}"#
        ])
        defer { try? FileManager.default.removeItem(at: root) }
        let pattern = Data(#"{"matchesJsonPath": {"expression": "$.tags[0]", "equalTo": "bus"}}"#.utf8)
        let found = try object(try await server.send("POST", "/__admin/mappings/find-by-metadata", body: pattern).body)
        #expect((found["mappings"] as? [[String: Any]])?.compactMap { ($0["request"] as? [String: Any])?["url"] as? String } == ["/1"])
        #expect(try await server.send("POST", "/__admin/mappings/remove-by-metadata", body: pattern).response.statusCode == 200)
        #expect(try await server.send("GET", "/1").response.statusCode == 404)
        #expect(try await server.send("GET", "/2").response.statusCode == 200)
    }

    @Test func journaledRequestsByIdAndRemovedByPattern() async throws {
        let (server, root) = try serve()
        defer { try? FileManager.default.removeItem(at: root) }
        _ = try await server.send("GET", "/keep")
        _ = try await server.send("GET", "/drop?x=1")
        let listed = try #require(try object(try await server.send("GET", "/__admin/requests").body)["requests"] as? [[String: Any]])
        let id = try #require(listed.first?["id"] as? String)
        let one = try object(try await server.send("GET", "/__admin/requests/\(id)").body)
        #expect((one["request"] as? [String: Any])?["url"] as? String == "/drop?x=1")
        let removed = try object(try await server.send("POST", "/__admin/requests/remove", body: Data(#"{"urlPath": "/drop"}"#.utf8)).body)
        let removedEvents = try #require(removed["serveEvents"] as? [[String: Any]], "WireMock's FindServeEventsResult")
        #expect(removedEvents.compactMap { ($0["request"] as? [String: Any])?["url"] as? String } == ["/drop?x=1"])
        #expect(try await server.send("GET", "/__admin/requests/\(id)").response.statusCode == 404)
        let keptID = try #require(
            (try object(try await server.send("GET", "/__admin/requests").body)["requests"] as? [[String: Any]])?.last?["id"] as? String)
        #expect(try await server.send("DELETE", "/__admin/requests/\(keptID)").response.statusCode == 200)
        #expect(try await server.send("DELETE", "/__admin/requests/\(keptID)").response.statusCode == 404)
    }
}

@Suite struct MappingImportOptionsTests {
    func ids(_ server: BackendTester) async throws -> Set<String> {
        let listing = try object(try await server.send("GET", "/__admin/mappings").body)
        return Set((listing["mappings"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String })
    }

    @Test func duplicatePolicyAndDeleteAllNotInImport() async throws {
        let root = try makeTemporaryDirectory([
            "mappings/one.json": #"{"id": "11111111-1111-1111-1111-111111111111", "request": {"urlPath": "/one"}, "response": {"body": "one"}}"#,
            "mappings/two.json": #"{"id": "22222222-2222-2222-2222-222222222222", "request": {"urlPath": "/two"}, "response": {"body": "two"}}"#,
        ])
        let journal = RequestJournal()
        let engine = StubEngine(stubsDirectory: root)
        let server = try BackendTester(backends: [StubAdminAPI(engine: engine, journal: journal), engine], journal: journal)
        defer { try? FileManager.default.removeItem(at: root) }
        let newOne = #"{"id": "11111111-1111-1111-1111-111111111111", "request": {"urlPath": "/one"}, "response": {"body": "new one"}}"#
        let three = #"{"id": "33333333-3333-3333-3333-333333333333", "request": {"urlPath": "/three"}, "response": {"body": "three"}}"#

        let ignore = #"{"mappings": [\#(newOne), \#(three)], "importOptions": {"duplicatePolicy": "IGNORE"}}"#
        #expect(try await server.send("POST", "/__admin/mappings/import", body: Data(ignore.utf8)).response.statusCode == 200)
        #expect(String(decoding: try await server.send("GET", "/one").body, as: UTF8.self) == "one", "IGNORE keeps the mapping already there")
        #expect(try await ids(server).count == 3)

        let overwrite = #"{"mappings": [\#(newOne)], "importOptions": {"duplicatePolicy": "OVERWRITE", "deleteAllNotInImport": true}}"#
        #expect(try await server.send("POST", "/__admin/mappings/import", body: Data(overwrite.utf8)).response.statusCode == 200)
        #expect(String(decoding: try await server.send("GET", "/one").body, as: UTF8.self) == "new one")
        #expect(try await ids(server) == ["11111111-1111-1111-1111-111111111111"], "file mappings not in the import go too")

        let (bad, badResponse) = try await server.send(
            "POST", "/__admin/mappings/import", body: Data(#"{"mappings": [], "importOptions": {"duplicatePolicy": "FOO"}}"#.utf8))
        #expect(badResponse.statusCode == 422)
        #expect(
            ((try object(bad)["errors"] as? [[String: Any]])?.first?["source"] as? [String: String])?["pointer"] == "/importOptions/duplicatePolicy")
        let (_, badFlag) = try await server.send(
            "POST", "/__admin/mappings/import", body: Data(#"{"mappings": [], "importOptions": {"deleteAllNotInImport": "yes"}}"#.utf8))
        #expect(badFlag.statusCode == 422)
        #expect(try await ids(server).count == 1, "a refused import changes nothing")

        #expect(try await server.send("POST", "/__admin/mappings/reset").response.statusCode == 200)
        #expect(try await ids(server).count == 2)
    }
}

/// WireMock deletes or rewrites the file of a `persistent` mapping changed through the API.
@Suite struct PersistentMappingFileTests {
    @Test func deletingOrReplacingAPersistentMappingChangesItsFile() async throws {
        let root = try makeTemporaryDirectory([
            "mappings/plain.json":
                #"{"id": "aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa", "request": {"urlPath": "/plain"}, "response": {"body": "plain"}}"#,
            "mappings/kept.json":
                #"{"id": "dddddddd-dddd-dddd-dddd-dddddddddddd", "persistent": true, "request": {"urlPath": "/kept"}, "response": {"body": "kept"}}"#,
            "mappings/gone.json":
                #"{"id": "eeeeeeee-eeee-eeee-eeee-eeeeeeeeeeee", "persistent": true, "request": {"urlPath": "/gone"}, "response": {"body": "gone"}}"#,
            "mappings/multi.json":
                #"{"mappings": [{"id": "ffffffff-ffff-ffff-ffff-ffffffffffff", "persistent": true, "request": {"urlPath": "/f"}, "response": {}}, {"request": {"urlPath": "/c"}, "response": {}}]}"#,
        ])
        let journal = RequestJournal()
        let engine = StubEngine(stubsDirectory: root)
        let server = try BackendTester(backends: [StubAdminAPI(engine: engine, journal: journal), engine], journal: journal)
        defer { try? FileManager.default.removeItem(at: root) }
        let mappings = root.appendingPathComponent("mappings")

        // Not persistent: memory only, back on reset.
        #expect(try await server.send("DELETE", "/__admin/mappings/aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa").response.statusCode == 200)
        #expect(FileManager.default.fileExists(atPath: mappings.appendingPathComponent("plain.json").path))
        // Persistent, alone in its file: the file goes, and a reset does not bring it back.
        #expect(try await server.send("DELETE", "/__admin/mappings/eeeeeeee-eeee-eeee-eeee-eeeeeeeeeeee").response.statusCode == 200)
        #expect(!FileManager.default.fileExists(atPath: mappings.appendingPathComponent("gone.json").path))
        // Persistent among others: the file is left as it is.
        #expect(try await server.send("DELETE", "/__admin/mappings/ffffffff-ffff-ffff-ffff-ffffffffffff").response.statusCode == 200)
        #expect(FileManager.default.fileExists(atPath: mappings.appendingPathComponent("multi.json").path))
        // Replaced as persistent: its own file is rewritten, no second file appears.
        let replacement = #"{"persistent": true, "request": {"urlPath": "/kept"}, "response": {"body": "kept 2"}}"#
        #expect(
            try await server.send("PUT", "/__admin/mappings/dddddddd-dddd-dddd-dddd-dddddddddddd", body: Data(replacement.utf8)).response.statusCode
                == 200)
        #expect(try String(contentsOf: mappings.appendingPathComponent("kept.json"), encoding: .utf8).contains("kept 2"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: mappings.path).sorted() == ["kept.json", "multi.json", "plain.json"])

        #expect(try await server.send("POST", "/__admin/mappings/reset").response.statusCode == 200)
        #expect(String(decoding: try await server.send("GET", "/plain").body, as: UTF8.self) == "plain")
        #expect(String(decoding: try await server.send("GET", "/kept").body, as: UTF8.self) == "kept 2")
        #expect(try await server.send("GET", "/gone").response.statusCode == 404)
        #expect(try await server.send("GET", "/f").response.statusCode == 200, "a mapping of a shared file comes back")

        let (_, scoped) = try await server.send(
            "PUT", "/__admin/mappings/dddddddd-dddd-dddd-dddd-dddddddddddd", headers: ["X-Understudy-Scope": "alice"],
            body: Data(replacement.utf8))
        #expect(scoped.statusCode == 422)
    }
}
