import Foundation
import HTTPServer
import Synchronization
import Testing
import UnderstudyTesting

@testable import MockCore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

final class LoadingBackend: Backend {
    let name = "slowpoke"
    let mounts = ["/slowpoke"]
    let ready = Atomic(false)
    var isReady: Bool { ready.load(ordering: .relaxed) }
    func handle(_ request: Request, _ context: RequestContext) -> Reply { .decline }
}

func json(_ data: Data) throws -> [String: Any] {
    try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
}

@Suite struct AdminAPITests {
    @Test func healthIsHealthyOnlyOnceEveryBackendIsReady() async throws {
        let loading = LoadingBackend()
        let server = try TestServer.start(backends: [loading])
        defer { server.stop() }
        let (waiting, waitingResponse) = try await server.send("GET", "/__admin/health")
        #expect(waitingResponse.statusCode == 503)
        #expect(try json(waiting)["message"] as? String == "still loading: slowpoke")

        loading.ready.store(true, ordering: .relaxed)
        let (body, response) = try await server.send("GET", "/__admin/health")
        #expect(response.statusCode == 200)
        #expect(response.value(forHTTPHeaderField: "Content-Type") == "application/json")
        let health = try json(body)
        #expect(health["status"] as? String == "healthy")
        #expect(health["version"] as? String == UnderstudyVersion.current)
        #expect((health["uptimeInSeconds"] as? Int).map { $0 >= 0 } == true)
        #expect((health["timestamp"] as? String)?.hasSuffix("Z") == true)
        // WireMock's field order.
        let text = String(decoding: body, as: UTF8.self)
        #expect(text.hasPrefix("{\"status\":\"healthy\",\"message\":"))
    }

    @Test func versionIsServed() async throws {
        let server = try TestServer.start(backends: [])
        defer { server.stop() }
        #expect(try json(try await server.send("GET", "/__admin/version").body)["version"] as? String == UnderstudyVersion.current)
    }

    @Test func resetResetsEveryBackendAndClearsTheJournal() async throws {
        let resets = Locked<[String]>([])
        let server = try TestServer.start(backends: [
            ClosureBackend(name: "a", mounts: ["/a"], onReset: { scope in resets.withLock { $0.append("a:\(scope.name)") } }) { _ in .decline },
            ClosureBackend(name: "b", mounts: ["/b"], onReset: { _ in resets.withLock { $0.append("b") } }) { _ in .decline },
        ])
        defer { server.stop() }
        _ = try await server.send("GET", "/a")
        let (_, response) = try await server.send("POST", "/__admin/reset")
        #expect(response.statusCode == 200)
        #expect(resets.withLock { $0 } == ["a:default", "b"])
        // Admin calls are not journaled (as WireMock): the journal is empty after a reset.
        #expect(server.router?.journal.entries.isEmpty == true)
    }

    @Test func requestsAreListedNewestFirstInWireMockShape() async throws {
        let server = try TestServer.start(backends: [ClosureBackend(name: "one", mounts: ["/one"], answering("1"))])
        defer { server.stop() }
        _ = try await server.send("GET", "/one?q=a&q=b", headers: ["Cookie": "session=abc"])
        _ = try await server.send("POST", "/two", body: Data("hi".utf8))
        let listing = try json(try await server.send("GET", "/__admin/requests").body)
        let requests = try #require(listing["requests"] as? [[String: Any]])
        #expect((listing["meta"] as? [String: Int])?["total"] == 2, "the listing call is not among them")
        #expect(requests.count == 2)
        let newest = try #require(requests.first?["request"] as? [String: Any])
        #expect(newest["url"] as? String == "/two")
        #expect(newest["method"] as? String == "POST")
        #expect(newest["body"] as? String == "hi")
        #expect(newest["bodyAsBase64"] as? String == "aGk=")
        #expect(requests.first?["wasMatched"] as? Bool == false)
        let older = try #require(requests.last?["request"] as? [String: Any])
        #expect(older["cookies"] as? [String: String] == ["session": "abc"])
        let query = older["queryParams"] as? [String: [String: Any]]
        #expect(query?["q"]?["values"] as? [String] == ["a", "b"])
        #expect(requests.last?["servedBy"] == nil && requests.last?["scope"] == nil, "WireMock's Java client refuses fields its ServeEvent lacks")
        #expect(newest["host"] as? String == "127.0.0.1" && newest["port"] as? Int == server.port && newest["scheme"] as? String == "http")
        let withOwnFields = try json(try await server.send("GET", "/__admin/requests?scope=default").body)
        let olderEvent = try #require((withOwnFields["requests"] as? [[String: Any]])?.last)
        #expect(olderEvent["servedBy"] as? String == "one" && olderEvent["scope"] as? String == "default")
        let id = try #require(requests.first?["id"] as? String)
        #expect(UUID(uuidString: id) != nil)

        let limited = try json(try await server.send("GET", "/__admin/requests?limit=1").body)
        #expect((limited["requests"] as? [Any])?.count == 1)
        #expect(try await server.send("DELETE", "/__admin/requests").response.statusCode == 200)
        #expect(server.router?.journal.count == 0, "admin calls are not journaled")
    }

    @Test func unknownAdminPathsAre404AndUnknownMethods405() async throws {
        let server = try TestServer.start(backends: [])
        defer { server.stop() }
        #expect(try await server.send("GET", "/__admin/nope").response.statusCode == 404)
        let wrongMethod = try await server.send("DELETE", "/__admin/health").response
        #expect(wrongMethod.statusCode == 405 && wrongMethod.value(forHTTPHeaderField: "Allow") == "GET, HEAD")
        #expect(server.router?.journal.count == 0, "nor are unknown admin paths journaled")
    }
}

@Suite struct MetricsTests {
    @Test func requestsByBackendAndStatusClassLatencyAndGaugesInPrometheusText() async throws {
        let server = try TestServer.start(backends: [
            ClosureBackend(name: "one", mounts: ["/one"], answering("1")),
            ClosureBackend(name: "broken", mounts: ["/broken"]) { _ in .response(.text("no", status: 503)) },
        ])
        defer { server.stop() }
        for _ in 0..<3 { _ = try await server.send("GET", "/one") }
        _ = try await server.send("GET", "/broken")
        _ = try await server.send("GET", "/nothing-here")
        _ = try await server.send("GET", "/one", headers: ["X-Understudy-Scope": "ci-1"])
        let (body, response) = try await server.send("GET", "/__admin/metrics")
        #expect(response.statusCode == 200)
        #expect(response.value(forHTTPHeaderField: "Content-Type") == "text/plain; version=0.0.4; charset=utf-8")
        let text = String(decoding: body, as: UTF8.self)
        let lines = Set(text.split(separator: "\n").map(String.init))
        #expect(lines.contains(#"understudy_http_requests_total{backend="one",code="2xx"} 4"#))
        #expect(lines.contains(#"understudy_http_requests_total{backend="broken",code="5xx"} 1"#))
        #expect(lines.contains(#"understudy_http_requests_total{backend="none",code="4xx"} 1"#))
        #expect(lines.contains("understudy_unmatched_requests_total 1"))
        #expect(lines.contains(#"understudy_http_request_duration_seconds_bucket{le="+Inf"} 6"#), "admin calls are not counted")
        #expect(lines.contains("understudy_http_request_duration_seconds_count 6"))
        #expect(lines.contains("understudy_journal_entries 6") && lines.contains("understudy_scopes 2"))
        #expect(lines.contains("# TYPE understudy_http_request_duration_seconds histogram"))
        // Buckets only grow with their bound.
        let buckets = text.split(separator: "\n").filter { $0.hasPrefix("understudy_http_request_duration_seconds_bucket") }
            .compactMap { Int($0.split(separator: " ").last ?? "") }
        #expect(buckets.count == 14 && buckets == buckets.sorted())
    }
}
