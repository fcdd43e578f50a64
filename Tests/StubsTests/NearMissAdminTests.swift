import Foundation
import HTTPServer
import MockCore
import Testing
import UnderstudyTesting

@testable import Stubs

/// `POST /__admin/near-misses/request` and `/request-pattern`, in WireMock's shapes.
@Suite struct NearMissAdminTests {
    func serve() throws -> (BackendTester, URL) {
        let root = try makeTemporaryDirectory([
            "mappings/one.json":
                #"{"id": "11111111-1111-1111-1111-111111111111", "request": {"method": "GET", "urlPath": "/one", "headers": {"Accept": {"equalTo": "json"}}}, "response": {"body": "one"}}"#,
            "mappings/far.json": #"{"request": {"method": "POST", "urlPath": "/somewhere/else/entirely"}, "response": {"body": "far"}}"#,
        ])
        let journal = RequestJournal()
        let engine = StubEngine(stubsDirectory: root)
        return (try BackendTester(backends: [StubAdminAPI(engine: engine, journal: journal), engine], journal: journal), root)
    }

    @Test func aLoggedRequestGetsTheClosestStubs() async throws {
        let (server, root) = try serve()
        defer { try? FileManager.default.removeItem(at: root) }
        let logged = #"{"url": "/one", "method": "GET", "headers": {"Accept": "xml"}}"#
        let (body, response) = try await server.send("POST", "/__admin/near-misses/request", body: Data(logged.utf8))
        #expect(response.statusCode == 200)
        let misses = try #require(try object(body)["nearMisses"] as? [[String: Any]])
        let first = try #require(misses.first)
        #expect((first["stubMapping"] as? [String: Any])?["id"] as? String == "11111111-1111-1111-1111-111111111111")
        #expect((first["request"] as? [String: Any])?["url"] as? String == "/one")
        let distance = try #require((first["matchResult"] as? [String: Any])?["distance"] as? Double)
        #expect(distance > 0 && distance < 1)
        #expect(first["misses"] == nil, "WireMock's Java client refuses fields its NearMiss lacks")
        #expect(misses.count == 2)
        // A call that names its scope in the query is Understudy's own, and is told why each missed.
        let explained = try await server.send("POST", "/__admin/near-misses/request?scope=default", body: Data(logged.utf8)).body
        let firstExplained = try #require((try object(explained)["nearMisses"] as? [[String: Any]])?.first)
        #expect((firstExplained["misses"] as? [String])?.contains { $0.contains("header Accept") } == true)

        for (bad, pointer) in [
            ("nope", ""), (#"{}"#, "/url"), (#"{"url": "/one", "method": 5}"#, "/method"), (#"{"url": "/", "headers": {"A": 1}}"#, "/headers/A"),
        ] {
            let (error, refused) = try await server.send("POST", "/__admin/near-misses/request", body: Data(bad.utf8))
            #expect(refused.statusCode == 422, "\(bad)")
            if !pointer.isEmpty {
                #expect(((try object(error)["errors"] as? [[String: Any]])?.first?["source"] as? [String: String])?["pointer"] == pointer)
            }
        }
    }

    @Test func aPatternGetsTheClosestJournaledRequests() async throws {
        let (server, root) = try serve()
        defer { try? FileManager.default.removeItem(at: root) }
        _ = try await server.send("GET", "/onx")
        _ = try await server.send("DELETE", "/elsewhere/completely/different")
        let (body, response) = try await server.send(
            "POST", "/__admin/near-misses/request-pattern", body: Data(#"{"method": "GET", "url": "/onx2"}"#.utf8))
        #expect(response.statusCode == 200)
        let misses = try #require(try object(body)["nearMisses"] as? [[String: Any]])
        let first = try #require(misses.first)
        #expect((first["request"] as? [String: Any])?["url"] as? String == "/onx")
        #expect((first["requestPattern"] as? [String: String])?["url"] == "/onx2")
        #expect(((first["matchResult"] as? [String: Any])?["distance"] as? Double ?? 1) < 0.5)
        #expect(try await server.send("POST", "/__admin/near-misses/request-pattern", body: Data(#"{"method": 5}"#.utf8)).response.statusCode == 422)
        // The unmatched requests' near misses still come from the built-in admin API.
        #expect(try await server.send("GET", "/__admin/requests/unmatched/near-misses").response.statusCode == 200)
    }

    @Test func aNamedScopeSeesItsOwnJournalAndMappings() async throws {
        let (server, root) = try serve()
        defer { try? FileManager.default.removeItem(at: root) }
        _ = try await server.send("GET", "/onx", headers: ["X-Understudy-Scope": "alice"])
        _ = try await server.send("GET", "/onx")
        let (body, _) = try await server.send(
            "POST", "/__admin/near-misses/request-pattern", headers: ["X-Understudy-Scope": "alice"],
            body: Data(#"{"url": "/onx"}"#.utf8))
        #expect((try object(body)["nearMisses"] as? [[String: Any]])?.count == 1)
    }
}
