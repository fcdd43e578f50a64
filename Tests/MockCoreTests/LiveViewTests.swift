import Foundation
import HTTPServer
import Testing
import UnderstudyTesting

@testable import MockCore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What the dashboard and `understudy tail` read: the journal followed live, a request with its
/// answer, the backends' reports, and the dashboard's own files.
@Suite struct LiveViewTests {
    let echo = ClosureBackend(name: "echo", mounts: ["/echo"]) { request in
        var response = Response.json(#"{"path":"\#(request.path)"}"#, status: 201)
        response.headers.set("X-Echo", "yes")
        return .response(response)
    }

    @Test func theLiveFeedAnswersAtOnceWithWhatTheJournalHolds() async throws {
        let server = try TestServer.start(backends: [echo])
        defer { server.stop() }
        _ = try await server.send("GET", "/echo/one")
        _ = try await server.send("GET", "/nothing")
        let page = try json(try await server.send("GET", "/__admin/requests/live?timeout=0").body)
        let requests = try #require(page["requests"] as? [[String: Any]])
        #expect(requests.map { $0["url"] as? String } == ["/echo/one", "/nothing"])
        #expect(requests[0]["servedBy"] as? String == "echo")
        #expect(requests[0]["status"] as? Int == 201)
        #expect(requests[1]["servedBy"] is NSNull)
        #expect(page["next"] as? Int == requests[1]["sequence"] as? Int)
    }

    @Test func theLiveFeedWaitsForTheNextRequest() async throws {
        let server = try TestServer.start(backends: [echo])
        defer { server.stop() }
        let first = try json(try await server.send("GET", "/__admin/requests/live?timeout=0").body)
        let after = try #require(first["next"] as? Int)
        // Woken by the request, not by the end of its wait: a timeout far beyond any load's delay.
        async let waited = server.send("GET", "/__admin/requests/live?after=\(after)&timeout=60")
        try await Task.sleep(for: .milliseconds(300))
        let started = ContinuousClock.now
        _ = try await server.send("GET", "/echo/later")
        let page = try json(try await waited.body)
        #expect(ContinuousClock.now - started < .seconds(30))
        #expect((page["requests"] as? [[String: Any]])?.map { $0["url"] as? String } == ["/echo/later"])
    }

    @Test func theLiveFeedEndsAnEmptyWaitAtItsTimeout() async throws {
        let server = try TestServer.start(backends: [echo])
        defer { server.stop() }
        let started = ContinuousClock.now
        let page = try json(try await server.send("GET", "/__admin/requests/live?after=0&timeout=1").body)
        #expect(ContinuousClock.now - started >= .milliseconds(900))
        #expect((page["requests"] as? [Any])?.isEmpty == true)
        #expect(page["next"] as? Int == 0)
    }

    @Test func theLiveFeedRefusesBadParametersWithAMessage() async throws {
        let server = try TestServer.start(backends: [echo])
        defer { server.stop() }
        for query in ["after=-1", "timeout=600", "limit=0", "after=x"] {
            let (body, response) = try await server.send("GET", "/__admin/requests/live?\(query)")
            #expect(response.statusCode == 400, "\(query)")
            #expect((try json(body)["message"] as? String)?.contains("whole numbers") == true)
        }
    }

    @Test func aJournaledRequestCarriesItsResponse() async throws {
        let server = try TestServer.start(backends: [echo])
        defer { server.stop() }
        _ = try await server.send("GET", "/echo/x")
        let listed = try json(try await server.send("GET", "/__admin/requests").body)
        let event = try #require((listed["requests"] as? [[String: Any]])?.first)
        let response = try #require(event["response"] as? [String: Any])
        #expect(response["status"] as? Int == 201)
        #expect(response["body"] as? String == #"{"path":"/echo/x"}"#)
        #expect((response["headers"] as? [String: Any])?["X-Echo"] as? String == "yes")
    }

    @Test func anUnmatchedRequestComesWithItsNearMisses() async throws {
        let server = try TestServer.start(backends: [NearBackend()])
        defer { server.stop() }
        _ = try await server.send("GET", "/helo")
        let id = try #require(
            (try json(try await server.send("GET", "/__admin/requests").body)["requests"] as? [[String: Any]])?.first?["id"] as? String)
        let event = try json(try await server.send("GET", "/__admin/requests/\(id)").body)
        let misses = try #require(event["nearMisses"] as? [[String: Any]])
        #expect(misses.first?["summary"] as? String == "GET /hello")
        #expect(misses.first?["misses"] as? [String] == ["path is /helo, not /hello"])
        #expect(event["stubMapping"] == nil)
    }

    @Test func backendsAreListedWithTheirReports() async throws {
        let server = try TestServer.start(backends: [echo, NearBackend()])
        defer { server.stop() }
        let body = try json(try await server.send("GET", "/__admin/backends").body)
        let backends = try #require(body["backends"] as? [[String: Any]])
        let near = try #require(backends.first { $0["name"] as? String == "near" })
        #expect(near["ready"] as? Bool == true)
        #expect(near["fixtures"] as? [String: Int] == ["hellos": 1])
        #expect(near["cache"] as? [String: Int] == ["hits": 4, "misses": 1])
        #expect(backends.first { $0["name"] as? String == "echo" }?["kind"] as? String == "emulator")
    }

    @Test func theDashboardIsServedWithoutTheTokenAndItsCallsNeedIt() async throws {
        let pages = try makeTemporaryDirectory(["index.html": "<!doctype html><title>Understudy</title>", "dashboard.js": "'use strict';"])
        defer { try? FileManager.default.removeItem(at: pages) }
        let table = AdminRouteTable(DashboardPages.endpoints.routes(servedBy: DashboardPages(directory: pages)))
        #expect(
            table.dispatch(Request(method: .get, target: "/__admin/ui/dashboard.js"), RequestContext(scope: StateScopes().default))?
                .isResponse(status: 200, type: "text/javascript; charset=utf-8") == true)
        let server = try TestServer.start(backends: [], adminGuard: AdminGuard(token: "secret"))
        defer { server.stop() }
        let (page, response) = try await server.send("GET", "/__admin/ui/")
        #expect(response.statusCode == 200)
        #expect(response.value(forHTTPHeaderField: "Content-Security-Policy")?.contains("default-src 'self'") == true)
        #expect(String(decoding: page, as: UTF8.self).contains("dashboard.js"))
        #expect(try await server.send("GET", "/__admin/requests/live?timeout=0").response.statusCode == 401)
        #expect(try await server.send("GET", "/__admin/ui/no-such-file.js").response.statusCode == 404)
    }
}

/// A backend with one stub it reports near misses for, and a cache it reports.
private final class NearBackend: Backend {
    let name = "near"
    let mounts = ["/hello"]
    func handle(_ request: Request, _ context: RequestContext) -> Reply { .decline }
    func nearMisses(for request: Request, in scope: StateScope) -> [NearMiss] {
        [NearMiss(summary: "GET /hello", distance: 0.1, misses: ["path is \(request.path), not /hello"], stub: .object([("id", "h")]))]
    }
    var report: BackendReport { BackendReport(fixtures: [("hellos", 1)], cache: .init(hits: 4, misses: 1)) }
}

extension Reply {
    fileprivate func isResponse(status: Int, type: String) -> Bool {
        guard case .response(let response) = self else { return false }
        return response.status == status && response.headers["Content-Type"] == type
    }
}
