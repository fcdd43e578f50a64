import Foundation
import HTTPServer
import Testing
import UnderstudyTesting

@testable import MockCore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Answers what it saw of the scope, and counts requests per scope in the scope's own store.
final class ScopeEcho: Backend {
    let name = "echo"
    let mounts = ["/"]
    let counter = ScopeKey { _ in ScopedValue { 0 } }

    func handle(_ request: Request, _ context: RequestContext) -> Reply {
        let count = context.scope[counter].withValue { count in
            count += 1
            return count
        }
        return .response(.text("\(context.scope.name) \(count) \(request.path) \(request.target) \(context.basePath)"))
    }
}

/// A scope state that notes its reset and discard.
final class NotingState: ScopeState {
    let events = Locked<[String]>([])
    func reset() { events.withLock { $0.append("reset") } }
    func discard() { events.withLock { $0.append("discard") } }
}

@Suite struct StateScopeTests {
    func text(_ answer: (body: Data, response: HTTPURLResponse)) -> String { String(decoding: answer.body, as: UTF8.self) }

    @Test func scopeNamesAtTheirLimits() {
        #expect(ScopeSelection.problem(with: String(repeating: "a", count: 64)) == nil)
        #expect(ScopeSelection.problem(with: "ci-job_1.2") == nil)
        #expect(ScopeSelection.problem(with: "7") == nil)
        #expect(ScopeSelection.problem(with: String(repeating: "a", count: 65))?.contains("65 bytes; at most 64") == true)
        #expect(ScopeSelection.problem(with: "") == "the scope name is empty")
        #expect(ScopeSelection.problem(with: ".hidden")?.contains("must start with a letter or a digit") == true)
        #expect(ScopeSelection.problem(with: "a/b")?.contains("at position 2") == true)
        #expect(ScopeSelection.problem(with: "a b") != nil)
        #expect(ScopeSelection.problem(with: "é") != nil)
        #expect(ScopeSelection.problem(with: "..") != nil)
    }

    @Test func theHeaderOrThePathPrefixNamesTheScope() async throws {
        let server = try TestServer.start(backends: [ScopeEcho()])
        defer { server.stop() }
        #expect(text(try await server.send("GET", "/x?q=1")) == "default 1 /x /x?q=1 ")
        #expect(text(try await server.send("GET", "/x", headers: ["X-Understudy-Scope": "ci-1"])) == "ci-1 1 /x /x ")
        // The prefix comes off the path and the target; links keep it through `basePath`.
        #expect(text(try await server.send("GET", "/__scope/ci-2/a/b?q=%20")) == "ci-2 1 /a/b /a/b?q=%20 /__scope/ci-2")
        #expect(text(try await server.send("GET", "/__scope/ci-2")) == "ci-2 2 / / /__scope/ci-2")
        #expect(text(try await server.send("GET", "/__scope/ci-2?q")) == "ci-2 3 / /?q /__scope/ci-2")
        #expect(text(try await server.send("GET", "/__scope/ci-1/x", headers: ["X-Understudy-Scope": "ci-1"])) == "ci-1 2 /x /x /__scope/ci-1")
        // The default scope's counter was not touched by the others.
        #expect(text(try await server.send("GET", "/x")) == "default 2 /x /x ")
        #expect(text(try await server.send("GET", "/x", headers: ["X-Understudy-Scope": "default"])) == "default 3 /x /x ")
    }

    @Test func badOrDisagreeingNamesAreRefusedWithTheReason() async throws {
        let server = try TestServer.start(backends: [ScopeEcho()])
        defer { server.stop() }
        let long = try await server.send("GET", "/x", headers: ["X-Understudy-Scope": String(repeating: "n", count: 65)])
        #expect(long.response.statusCode == 400)
        #expect(text(long).contains("has 65 bytes; at most 64 are allowed (in the X-Understudy-Scope header)"))
        let empty = try await server.send("GET", "/__scope//x")
        #expect(empty.response.statusCode == 400 && text(empty).contains("the scope name is empty (in the path prefix /__scope/NAME/)"))
        let both = try await server.send("GET", "/__scope/a/x", headers: ["X-Understudy-Scope": "b"])
        #expect(both.response.statusCode == 400 && text(both).contains(#"the path names the scope "a" and the X-Understudy-Scope header "b""#))
        let query = try await server.send("GET", "/__admin/requests?scope=c", headers: ["X-Understudy-Scope": "b"])
        #expect(query.response.statusCode == 400 && text(query).contains("query parameter scope"))
        // Outside the admin API the query parameter is the app's own.
        #expect(text(try await server.send("GET", "/x?scope=c")) == "default 1 /x /x?scope=c ")
        // Nothing refused made a scope.
        #expect(server.router?.scopes.all.map(\.name) == ["default"])
    }

    @Test func resetAndJournalActInTheRequestsScope() async throws {
        let server = try TestServer.start(backends: [ScopeEcho()])
        defer { server.stop() }
        let a = ["X-Understudy-Scope": "a"]
        let b = ["X-Understudy-Scope": "b"]
        _ = try await server.send("GET", "/one", headers: a)
        _ = try await server.send("GET", "/two", headers: a)
        _ = try await server.send("GET", "/three", headers: b)
        let listedInA = try json(try await server.send("GET", "/__admin/requests", headers: a).body)
        #expect((listedInA["requests"] as? [[String: Any]])?.compactMap { ($0["request"] as? [String: Any])?["url"] as? String } == ["/two", "/one"])
        let namedInQuery = try json(try await server.send("GET", "/__admin/requests?scope=a").body)
        #expect((namedInQuery["requests"] as? [[String: Any]])?.compactMap { $0["scope"] as? String } == ["a", "a"])
        #expect((listedInA["meta"] as? [String: Int])?["total"] == 2)
        let all = try json(try await server.send("GET", "/__admin/requests?scope=*").body)
        #expect((all["meta"] as? [String: Int])?["total"] == 3)
        let inB = try json(try await server.send("GET", "/__admin/requests?scope=b").body)
        #expect((inB["requests"] as? [[String: Any]])?.compactMap { ($0["request"] as? [String: Any])?["url"] as? String } == ["/three"])
        #expect(try json(try await server.send("GET", "/__admin/requests").body)["meta"] as? [String: Int] == ["total": 0])

        // A reset in a: its state and its journal entries, nothing of b's.
        #expect(try await server.send("POST", "/__admin/reset", headers: a).response.statusCode == 200)
        #expect(text(try await server.send("GET", "/x", headers: a)) == "a 1 /x /x ")
        #expect(text(try await server.send("GET", "/x", headers: b)) == "b 2 /x /x ")
        #expect(server.router?.journal.entriesOf(nil).map(\.request.path) == ["/three", "/x", "/x"])
        // DELETE /__admin/requests in b forgets b's entries only.
        _ = try await server.send("DELETE", "/__admin/requests", headers: b)
        #expect(server.router?.journal.entriesOf(nil).map(\.request.path) == ["/x"])
    }

    @Test func scopesAreListedResetAndDeleted() async throws {
        let server = try TestServer.start(backends: [ScopeEcho()])
        defer { server.stop() }
        _ = try await server.send("GET", "/x", headers: ["X-Understudy-Scope": "ci-1"])
        _ = try await server.send("GET", "/x", headers: ["X-Understudy-Scope": "ci-1"])
        _ = try await server.send("GET", "/__scope/ci-2/x")
        let listing = try json(try await server.send("GET", "/__admin/scopes").body)
        let scopes = try #require(listing["scopes"] as? [[String: Any]])
        #expect(scopes.compactMap { $0["name"] as? String } == ["default", "ci-1", "ci-2"])
        #expect(scopes[1]["requests"] as? Int == 2 && scopes[1]["journalEntries"] as? Int == 2)
        #expect((scopes[1]["estimatedBytes"] as? Int).map { $0 > 0 } == true)
        #expect((scopes[1]["created"] as? String)?.hasSuffix("Z") == true && (scopes[1]["lastUsed"] as? String)?.hasSuffix("Z") == true)
        #expect((listing["meta"] as? [String: Int])?["maxScopes"] == 100)
        #expect(try json(try await server.send("GET", "/__admin/scopes/ci-2").body)["requests"] as? Int == 1)
        #expect(try await server.send("GET", "/__admin/scopes/nope").response.statusCode == 404)

        #expect(try await server.send("POST", "/__admin/scopes/ci-1/reset").response.statusCode == 200)
        #expect(text(try await server.send("GET", "/x", headers: ["X-Understudy-Scope": "ci-1"])) == "ci-1 1 /x /x ")
        #expect(try await server.send("DELETE", "/__admin/scopes/default").response.statusCode == 400)
        #expect(try await server.send("DELETE", "/__admin/scopes/nope").response.statusCode == 404)
        #expect(try await server.send("DELETE", "/__admin/scopes/ci-2").response.statusCode == 200)
        #expect(server.router?.scopes.all.map(\.name) == ["default", "ci-1"])
        #expect(try await server.send("DELETE", "/__admin/scopes").response.statusCode == 200)
        #expect(server.router?.scopes.all.map(\.name) == ["default"])
        #expect(server.router?.journal.entriesOf(nil).isEmpty == true, "a deleted scope's journal entries go with it")
    }

    @Test func theLeastRecentlyUsedScopeMakesRoomAndItsStateIsDiscarded() {
        let scopes = StateScopes(limits: .init(maxScopes: 2, idleSeconds: 600))
        let key = ScopeKey { _ in NotingState() }
        let t0 = MonotonicClock.nanoseconds()
        let a = scopes.scope(named: "a", now: t0)
        let b = scopes.scope(named: "b", now: t0 + 1)
        let stateOfB = b[key]
        a.noteUse(at: t0 + 2, countsRequest: true)
        #expect(scopes.scope(named: "a", now: t0 + 3) === a)
        _ = scopes.scope(named: "c", now: t0 + 4)
        #expect(scopes.existing("b") == nil && scopes.existing("a") === a)
        #expect(stateOfB.events.withLock { $0 } == ["discard"])
        #expect(scopes.all.map(\.name) == ["default", "a", "c"])
        // Made again, a scope starts fresh.
        #expect(scopes.scope(named: "b", now: t0 + 5)[key] !== stateOfB)
    }

    /// A CI run that churns through scope names: the journal entries of scopes that went are
    /// dropped soon after, off the request path, so they neither pin memory nor show a gone state.
    @Test func theJournalEntriesOfGoneScopesAreReclaimed() async throws {
        let scopes = StateScopes(limits: .init(maxScopes: 2, idleSeconds: 600))
        let server = try TestServer.start(backends: [ScopeEcho()], scopes: scopes)
        defer { server.stop() }
        for name in ["a", "b", "c", "b"] { _ = try await server.send("GET", "/x", headers: ["X-Understudy-Scope": name]) }
        _ = try await server.send("GET", "/x")
        let journal = try #require(server.router?.journal)
        let deadline = ContinuousClock.now + .seconds(10)
        while journal.entries.contains(where: { $0.scope.name == "a" }), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(journal.entries.map(\.scope.name) == ["b", "c", "b", "default"], "a's entry went with a")
        #expect(scopes.evictionsSoFar == 1)
        let metrics = String(decoding: try await server.send("GET", "/__admin/metrics").body, as: UTF8.self)
        #expect(metrics.contains("understudy_scope_evictions_total 1"))
    }

    @Test func idleScopesExpire() {
        let scopes = StateScopes(limits: .init(maxScopes: 10, idleSeconds: 1))
        let key = ScopeKey { _ in NotingState() }
        let t0 = MonotonicClock.nanoseconds()
        let idle = scopes.scope(named: "idle", now: t0)[key]
        let busy = scopes.scope(named: "busy", now: t0)
        busy.noteUse(at: t0 + 4_000_000_000, countsRequest: true)
        scopes.default.noteUse(at: t0, countsRequest: true)
        scopes.sweepIfDue(now: t0 + 4_500_000_000)
        #expect(scopes.existing("idle") == nil && scopes.existing("busy") === busy)
        #expect(idle.events.withLock { $0 } == ["discard"])
        #expect(scopes.existing("default") === scopes.default, "default never expires")
    }

    @Test func resettingAScopeResetsEachStateInIt() {
        let scopes = StateScopes()
        let key = ScopeKey { _ in NotingState() }
        let counter = ScopeKey { _ in ScopedValue { 10 } }
        let scope = scopes.scope(named: "s")
        let state = scope[key]
        scope[counter].withValue { $0 += 5 }
        #expect(scope[key] === state, "made once, then kept")
        scope.reset()
        #expect(state.events.withLock { $0 } == ["reset"])
        #expect(scope[counter].withValue { $0 } == 10)
        #expect(scopes.default[counter].withValue { $0 } == 10)
    }
}
