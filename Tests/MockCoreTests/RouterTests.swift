import Foundation
import HTTPServer
import Logging
import Testing
import UnderstudyTesting

@testable import MockCore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

func answering(_ text: String) -> @Sendable (Request) -> Reply {
    { _ in .response(.text(text)) }
}

@Suite struct RouterTests {
    @Test func mountPrefixesMatchWholeSegments() {
        #expect(Router.path("/a", isUnder: "/a"))
        #expect(Router.path("/a/b", isUnder: "/a"))
        #expect(!Router.path("/ab", isUnder: "/a"))
        #expect(Router.path("/anything", isUnder: "/"))
        #expect(!Router.path("/", isUnder: "/a"))
        #expect(Router.normalized("maps/api/") == "/maps/api")
        #expect(Router.normalized("/") == "/")
    }

    @Test func tiersThenLongestPrefixDecideAndDeclinesFallThrough() async throws {
        let router = try BackendTester(backends: [
            ClosureBackend(name: "emulator-short", mounts: ["/shop"], answering("short")),
            ClosureBackend(name: "emulator-long", mounts: ["/shop/en"]) { request in
                request.query("decline") == nil ? .response(.text("long")) : .decline
            },
            ClosureBackend(name: "stubs", mounts: ["/"], tier: .userStubs) { request in
                request.path == "/shop/en/stubbed" ? .response(.text("stub")) : .decline
            },
            ClosureBackend(name: "files", mounts: ["/"], tier: .fallback, answering("file")),
        ])
        func body(_ path: String) async -> String { String(decoding: await router.send(path).body.bytes, as: UTF8.self) }
        #expect(await body("/shop/en/x") == "long")
        #expect(await body("/shop/en/x?decline=1") == "short")
        #expect(await body("/shop/fr") == "short")
        #expect(await body("/shop/en/stubbed") == "stub", "user stubs override emulators")
        #expect(await body("/elsewhere") == "file")
    }

    @Test func unmatchedRequestsListWhatIsMountedAsTextOrJSON() async throws {
        let server = try TestServer.start(backends: [
            ClosureBackend(name: "geocoder", mounts: ["/maps/api/geocode"], answering("x"))
        ])
        defer { server.stop() }
        let (text, plain) = try await server.send("GET", "/nowhere?x=1")
        #expect(plain.statusCode == 404)
        #expect(plain.value(forHTTPHeaderField: "Content-Type") == "text/plain; charset=utf-8")
        let page = String(decoding: text, as: UTF8.self)
        #expect(page.hasPrefix("No backend or stub answers GET /nowhere?x=1\n"))
        #expect(page.contains("  /maps/api/geocode  geocoder\n"))
        #expect(page.contains("/__admin"))
        #expect(page.hasSuffix("the dashboard, /__admin/ui/\n"))

        // A browser's page load: the same, escaped, with the dashboard a click away.
        let (html, htmlResponse) = try await server.send(
            "GET", "/nowhere?a=1&b=2", headers: ["Accept": "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"])
        #expect(htmlResponse.statusCode == 404)
        #expect(htmlResponse.value(forHTTPHeaderField: "Content-Type") == "text/html; charset=utf-8")
        let htmlPage = String(decoding: html, as: UTF8.self)
        #expect(htmlPage.contains(#"<a href="/__admin/ui/">Open the dashboard</a>"#))
        #expect(htmlPage.contains("GET /nowhere?a=1&amp;b=2") && !htmlPage.contains("a=1&b=2"), "\(htmlPage)")

        let (json, jsonResponse) = try await server.send("GET", "/nowhere", headers: ["Accept": "application/json"])
        #expect(jsonResponse.statusCode == 404)
        #expect(jsonResponse.value(forHTTPHeaderField: "Content-Type") == "application/json")
        let object = try JSONSerialization.jsonObject(with: json) as? [String: Any]
        #expect(object?["status"] as? Int == 404)
        let mounted = object?["mounted"] as? [[String: String]]
        #expect(mounted?.contains(["prefix": "/maps/api/geocode", "backend": "geocoder"]) == true)
        #expect((object?["request"] as? [String: String])?["url"] == "/nowhere")
    }

    @Test func deferredRepliesAreSentLaterAndJournaled() async throws {
        let router = try BackendTester(backends: [
            ClosureBackend(name: "slow", mounts: ["/slow"]) { _ in
                .deferred { reply in reply.send(.text("later", status: 202), after: .milliseconds(200)) }
            }
        ])
        let response = await router.send("/slow")
        #expect(response.status == 202)
        #expect(response.body.bytes == Array("later".utf8))
        let entry = try #require(router.router.journal.entries.last)
        #expect(entry.backend == "slow")
        #expect(entry.status == 202)
        #expect(entry.durationNanos >= 150_000_000)
    }

    /// The in-memory tester runs what a socket would: replies computed on another queue, faults
    /// (status 0), a reply dropped unsent (500, not a test waiting forever), the scope a request names.
    @Test func inMemoryExchangesCoverComputedRepliesFaultsAndScopes() async throws {
        let queue = DispatchQueue(label: "work")
        let router = try BackendTester(backends: [
            ClosureBackend(name: "computed", mounts: ["/computed"]) { _ in .computed(on: queue) { .text("from the queue") } },
            ClosureBackend(name: "broken", mounts: ["/broken"]) { _ in .deferred { reply in reply.fail(with: .connectionResetByPeer) } },
            ClosureBackend(name: "forgetful", mounts: ["/forgetful"]) { _ in .deferred { _ in } },
        ])
        #expect(await router.send("/computed").body.bytes == Array("from the queue".utf8))
        #expect(await router.send("/broken").status == 0)
        let dropped = await router.send("/forgetful")
        #expect(dropped.status == 500 && String(decoding: dropped.body.bytes, as: UTF8.self).contains("without replying"), "\(dropped.status)")
        _ = await router.send("/computed", headers: [("X-Understudy-Scope", "ci-7")])
        #expect(router.router.journal.entries.last?.scope.name == "ci-7")
    }

    @Test func everyExchangeIsJournaled() async throws {
        let router = try BackendTester(backends: [ClosureBackend(name: "one", mounts: ["/one"], answering("1"))])
        _ = await router.send("/one?x=1", method: .post, headers: [("X-Id", "7")], body: "payload")
        #expect(await router.send("/missing").status == 404)
        let entries = router.router.journal.entries
        #expect(entries.count == 2)
        #expect(entries[0].request.method == .post)
        #expect(entries[0].request.target == "/one?x=1")
        #expect(entries[0].request.headers["X-Id"] == "7")
        #expect(entries[0].request.bodyText == "payload")
        #expect(entries[0].backend == "one")
        #expect(entries[1].backend == nil)
        #expect(entries[1].status == 404)
        #expect(entries[0].sequence < entries[1].sequence)
    }
}

/// Keeps every log message, for tests of what the server logs.
struct CapturingLogHandler: LogHandler {
    let box: LogBox
    var logLevel: Logger.Level = .debug
    var metadata: Logger.Metadata = [:]

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        box.messages.withLock { $0.append("\(event.level): \(event.message)") }
    }
}

final class LogBox: Sendable {
    let messages = Locked<[String]>([])
}

@Suite struct RequestLoggingTests {
    @Test func verboseLogsOneLinePerRequest() async throws {
        let box = LogBox()
        let server = try TestServer.start(
            backends: [ClosureBackend(name: "one", mounts: ["/one"], answering("1"))],
            requestLog: RequestLog(colored: false) { line in box.messages.withLock { $0.append(line) } })
        defer { server.stop() }
        _ = try await server.send("GET", "/one?x=1")
        _ = try await server.send("GET", "/none", headers: ["X-Understudy-Scope": "ci-1"])
        let lines = box.messages.withLock { $0 }
        #expect(lines.count == 2)
        // Aligned columns: time, method, status, target, who answered, duration, the scope when named.
        #expect(
            lines.first?.range(
                of: #"^\d\d:\d\d:\d\d\.\d\d\d  GET     200  /one\?x=1 {41}one {8} *\d+\.\d+ ms\n$"#,
                options: .regularExpression) != nil, "\(lines)")
        #expect(lines.last?.contains("  GET     404  /none ") == true)
        #expect(lines.last?.hasSuffix(" ms  scope ci-1\n") == true)
    }

    @Test func aRequestLogLineColoursTheStatusAndNeutralisesControlCharacters() {
        let log = RequestLog(colored: true) { _ in }
        let line = log.line(loggedAt: 0, method: "GET", target: "/a\u{1B}[2J\u{9B}b", status: 503, servedBy: nil, micros: 1500, scope: "default")
        #expect(
            line == "00:00:00.000  GET     \u{1B}[31m503\u{1B}[0m  /a\\x1b[2J\\u{9b}b" + String(repeating: " ", count: 33) + "unmatched       1.5 ms")
    }

    @Test func nothingIsLoggedPerRequestByDefault() async throws {
        let box = LogBox()
        var logger = Logger(label: "test") { _ in CapturingLogHandler(box: box) }
        logger.logLevel = .info
        let server = try TestServer.start(backends: [], logger: logger)
        defer { server.stop() }
        _ = try await server.send("GET", "/none")
        #expect(box.messages.withLock { $0 }.isEmpty)
    }
}
