import Foundation
import MockCore
import Stubs
import Testing
import UnderstudyTesting

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite struct NearMissTests {
    func serve() throws -> (BackendTester, URL) {
        let root = try makeTemporaryDirectory([
            "mappings/bus.json":
                #"{"name": "bus list", "request": {"method": "GET", "urlPath": "/bus", "headers": {"Accept": {"contains": "html"}}}, "response": {"body": "buses"}}"#,
            "mappings/route.json": #"{"request": {"method": "POST", "urlPath": "/bus/report"}, "response": {"body": "ok"}}"#,
            "mappings/other.json": #"{"request": {"method": "DELETE", "urlPath": "/completely/elsewhere"}, "response": {"body": "x"}}"#,
            "mappings/far.json": #"{"request": {"method": "PUT", "urlPath": "/zzzzzzzzzzzzzzzzzzzz"}, "response": {"body": "x"}}"#,
        ])
        let engine = StubEngine(stubsDirectory: root)
        let journal = RequestJournal()
        return (try BackendTester(backends: [StubAdminAPI(engine: engine, journal: journal), engine], journal: journal), root)
    }

    func text(_ data: Data) -> String { String(decoding: data, as: UTF8.self) }

    @Test func the404ListsTheClosestStubsAndWhyTheyMissed() async throws {
        let (server, root) = try serve()
        defer { try? FileManager.default.removeItem(at: root) }
        let (body, response) = try await server.send("GET", "/bus", headers: ["Accept": "text/plain"])
        #expect(response.statusCode == 404)
        let page = text(body)
        #expect(
            page.contains(
                "Closest stubs:\n  1. \"bus list\" (GET urlPath /bus)\n       - header Accept is 'text/plain', expected containing 'html'\n"))
        #expect(page.contains("  2. POST urlPath /bus/report\n"))
        #expect(!page.contains("zzzz"), "only the three closest")

        let (json, _) = try await server.send("GET", "/bus", headers: ["Accept": "application/json"])
        let report = try #require(try JSONSerialization.jsonObject(with: json) as? [String: Any])
        let misses = try #require(report["nearMisses"] as? [[String: Any]])
        #expect(misses.count == 3)
        #expect((misses[0]["misses"] as? [String]) == ["header Accept is 'application/json', expected containing 'html'"])
        #expect(((misses[0]["stubMapping"] as? [String: Any])?["name"] as? String) == "bus list")
    }

    @Test func unmatchedRequestsAndTheirNearMissesThroughTheAdminAPI() async throws {
        let (server, root) = try serve()
        defer { try? FileManager.default.removeItem(at: root) }
        _ = try await server.send("POST", "/bus/reprt")
        _ = try await server.send("POST", "/bus/report")
        let unmatched = try JSONSerialization.jsonObject(with: try await server.send("GET", "/__admin/requests/unmatched").body) as? [String: Any]
        let requests = try #require(unmatched?["requests"] as? [[String: Any]])
        #expect(requests.map { $0["url"] as? String } == ["/bus/reprt"])
        let near =
            try JSONSerialization.jsonObject(with: try await server.send("GET", "/__admin/requests/unmatched/near-misses").body) as? [String: Any]
        let first = try #require((near?["nearMisses"] as? [[String: Any]])?.first)
        #expect(((first["request"] as? [String: Any])?["url"] as? String) == "/bus/reprt")
        #expect(((first["stubMapping"] as? [String: Any])?["request"] as? [String: Any])?["urlPath"] as? String == "/bus/report")
        let distance = try #require((first["matchResult"] as? [String: Any])?["distance"] as? Double)
        #expect(distance > 0 && distance < 0.2, "one letter off is close")
    }
}
