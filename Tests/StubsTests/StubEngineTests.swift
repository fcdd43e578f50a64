import Foundation
import HTTPServer
import JSON
import MockCore
import Testing
import UnderstudyTesting

@testable import Stubs

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite struct StubEngineTests {
    func serve(_ files: [String: String]) throws -> (TestServer, StubEngine, URL) {
        let root = try makeTemporaryDirectory(files)
        let engine = StubEngine(stubsDirectory: root)
        return (try TestServer.start(backends: [engine]), engine, root)
    }

    func text(_ data: Data) -> String { String(decoding: data, as: UTF8.self) }

    @Test func mappingFilesAreServedAndABadFileDoesNotStopTheOthers() async throws {
        let (server, engine, root) = try serve([
            "mappings/hello.json":
                #"{"request": {"method": "GET", "urlPath": "/hello"}, "response": {"status": 200, "body": "hi", "headers": {"Content-Type": "text/plain", "Set-Cookie": ["a=1", "b=2"]}}}"#,
            "mappings/more/many.json":
                #"{"mappings": [{"request": {"url": "/json"}, "response": {"jsonBody": {"b": 1, "a": [true]}}}, {"request": {"url": "/file"}, "response": {"bodyFileName": "data/store.json"}}]}"#,
            "mappings/broken.json": "{\n  \"request\": {\"url\": \"/x\"},\n  \"response\": {\"status\": 200,}\n}",
            "mappings/wrong.json": #"{"request": {"url": "/y", "queryParamters": {}}, "response": {}}"#,
            "mappings/escape.json": #"{"request": {"url": "/z"}, "response": {"bodyFileName": "../mappings/hello.json"}}"#,
            "__files/data/store.json": #"{"store": 1}"#,
        ])
        defer {
            server.stop()
            try? FileManager.default.removeItem(at: root)
        }
        let (hello, response) = try await server.send("GET", "/hello?ignored=1")
        #expect(text(hello) == "hi")
        #expect(response.statusCode == 200)
        #expect(text(try await server.send("GET", "/json").body) == #"{"b":1,"a":[true]}"#)
        #expect(text(try await server.send("GET", "/file").body) == #"{"store": 1}"#)
        #expect(try await server.send("POST", "/hello").response.statusCode == 404)

        let errors = engine.reloadFiles().map(\.description)
        #expect(errors.count == 3)
        #expect(errors.contains { $0.hasSuffix("broken.json:3: column 30: expected a \"key\"") })
        #expect(
            errors.contains { $0.contains("wrong.json:1: request.queryParamters: unknown field 'queryParamters' (did you mean 'queryParameters'?)") })
        #expect(errors.contains { $0.contains("escape.json:1: response.bodyFileName: '../mappings/hello.json' leads outside") })
    }

    @Test func priorityThenNewestWins() async throws {
        let (server, engine, root) = try serve([:])
        defer {
            server.stop()
            try? FileManager.default.removeItem(at: root)
        }
        func add(_ json: String) throws {
            engine.add(try StubMapping.parse(try JSONValue.parse(json), in: engine.directory))
        }
        try add(#"{"request": {"urlPathPattern": "/p/.*"}, "response": {"body": "pattern, default priority"}}"#)
        try add(#"{"request": {"urlPath": "/p/1"}, "response": {"body": "exact, older"}}"#)
        try add(#"{"request": {"urlPath": "/p/1"}, "response": {"body": "exact, newer"}}"#)
        #expect(text(try await server.send("GET", "/p/1").body) == "exact, newer")
        try add(#"{"priority": 1, "request": {"urlPathPattern": "/p/[0-9]"}, "response": {"body": "pattern, priority 1"}}"#)
        #expect(text(try await server.send("GET", "/p/1").body) == "pattern, priority 1")
        #expect(text(try await server.send("GET", "/p/x").body) == "pattern, default priority")
    }

    @Test func scenariosStepThroughStatesAndReset() async throws {
        let (server, engine, root) = try serve([
            "mappings/cart.json": #"""
            {"mappings": [
              {"scenarioName": "cart", "requiredScenarioState": "Started", "newScenarioState": "added",
               "request": {"method": "POST", "urlPath": "/cart"}, "response": {"status": 201, "body": "added"}},
              {"scenarioName": "cart", "requiredScenarioState": "Started",
               "request": {"method": "GET", "urlPath": "/cart"}, "response": {"body": "empty"}},
              {"scenarioName": "cart", "requiredScenarioState": "added",
               "request": {"method": "GET", "urlPath": "/cart"}, "response": {"body": "one item"}}
            ]}
            """#
        ])
        defer {
            server.stop()
            try? FileManager.default.removeItem(at: root)
        }
        #expect(text(try await server.send("GET", "/cart").body) == "empty")
        #expect(try await server.send("POST", "/cart").response.statusCode == 201)
        #expect(text(try await server.send("GET", "/cart").body) == "one item")
        let scope = try #require(server.router?.scopes.default)
        #expect(engine.scenarioSummaries(in: scope).first?.state == "added")
        #expect(engine.scenarioSummaries(in: scope).first?.possibleStates == ["Started", "added"])
        _ = try await server.send("POST", "/__admin/reset")
        #expect(text(try await server.send("GET", "/cart").body) == "empty")
    }

    @Test func delaysAreTimersNotSleeps() async throws {
        let (server, _, root) = try serve([
            "mappings/slow.json": #"{"request": {"urlPath": "/slow"}, "response": {"body": "slow", "fixedDelayMilliseconds": 1500}}"#,
            "mappings/fast.json": #"{"request": {"urlPath": "/fast"}, "response": {"body": "fast"}}"#,
        ])
        defer {
            server.stop()
            try? FileManager.default.removeItem(at: root)
        }
        let order = Locked<[String]>([])
        let started = ContinuousClock.now
        async let slow: Void = {
            let body = try await server.send("GET", "/slow").body
            order.withLock { $0.append(self.text(body)) }
        }()
        try await Task.sleep(for: .milliseconds(50))
        let fast = try await server.send("GET", "/fast").body
        order.withLock { $0.append(text(fast)) }
        try await slow
        #expect(order.withLock { $0 } == ["fast", "slow"], "the fast stub is not held behind the delayed one")
        #expect(ContinuousClock.now - started >= .milliseconds(1500), "the delay is honoured")
    }

    @Test func proxyBaseUrlForwardsThroughTheOutboundClient() async throws {
        let upstream = try TestServer.start(
            handler: ClosureHandler { request, responder in
                responder.send(.text("upstream saw \(request.target) with \(request.headers["X-Added"] ?? "nothing")", status: 203))
            })
        defer { upstream.stop() }
        let (server, _, root) = try serve([
            "mappings/proxy.json":
                #"{"request": {"urlPathPattern": "/api/.*"}, "response": {"proxyBaseUrl": "\#(upstream.server.baseURL)", "additionalProxyRequestHeaders": {"X-Added": "yes"}}}"#
        ])
        defer {
            server.stop()
            try? FileManager.default.removeItem(at: root)
        }
        let (body, response) = try await server.send("GET", "/api/items?id=3")
        #expect(response.statusCode == 203)
        #expect(text(body) == "upstream saw /api/items?id=3 with yes")
    }

    @Test func httpsProxyBaseUrlsCheckTheUpstreamsCertificate() async throws {
        // Nothing listens with TLS here: the proxy tries, and says it was TLS that failed.
        let plain = try TestServer.start(handler: ClosureHandler { _, responder in responder.send(.text("plain")) })
        defer { plain.stop() }
        let port = plain.server.baseURL.split(separator: ":").last!
        let (server, _, root) = try serve([
            "mappings/proxy.json": #"{"request": {"urlPath": "/secure"}, "response": {"proxyBaseUrl": "https://127.0.0.1:\#(port)"}}"#
        ])
        defer {
            server.stop()
            try? FileManager.default.removeItem(at: root)
        }
        let (body, response) = try await server.send("GET", "/secure")
        #expect(response.statusCode == 502)
        #expect(text(body).hasPrefix("Proxying to https://127.0.0.1:\(port) failed: TLS with https://127.0.0.1:\(port)/secure failed"))
    }

    @Test func largeBodyFilesAreSentFromTheFile() async throws {
        let large = (0..<(BodyFiles.largeFile + 12_345)).map { UInt8(truncatingIfNeeded: $0 % 251) }
        let root = try makeTemporaryDirectory([
            "mappings/large.json": #"{"request": {"urlPath": "/large"}, "response": {"bodyFileName": "large.bin"}}"#
        ])
        defer { try? FileManager.default.removeItem(at: root) }
        try FileManager.default.createDirectory(at: root.appendingPathComponent("__files"), withIntermediateDirectories: true)
        try Data(large).write(to: root.appendingPathComponent("__files/large.bin"))
        let engine = StubEngine(stubsDirectory: root)
        let server = try TestServer.start(backends: [engine])
        defer { server.stop() }
        #expect(engine.mappings.first?.response.response.body.file != nil)
        #expect(Array(try await server.send("GET", "/large").body) == large)
        #expect(Array(try await server.send("GET", "/large").body) == large, "sent again from the same file")
    }

    @Test func recordingsAreCheckedAndLoadedAsRecordingsOnly() async throws {
        let root = try makeTemporaryDirectory([
            "mappings/user.json": #"{"request": {"urlPath": "/user"}, "response": {"body": "user"}}"#,
            "recorded/mappings/loose.json": #"{"request": {"urlPath": "/loose"}, "response": {"body": "loose"}}"#,
            "recorded/run/mappings/broken.json": #"{"request": {"urlPath": "/broken"}, "response": {"bodyFileName": "gone.json"}}"#,
        ])
        defer { try? FileManager.default.removeItem(at: root) }
        // Both the recordings folder's own mappings and its packs are checked, each once. A
        // missing body file loads (as in WireMock: a 500 when requested) with a warning.
        let report = StubCheck.run(stubsDirectory: root)
        #expect(report.files == 3 && report.problems.isEmpty && report.warnings.count == 1, "\(report.problems) \(report.warnings)")
        #expect(report.warnings.first?.description.contains("broken.json:1: response.bodyFileName: no file 'gone.json'") == true)
        // The user's engine leaves recordings to the recordings' engine.
        #expect(StubEngine(stubsDirectory: root).mappings.count == 1)
        #expect(StubEngine(stubsDirectory: root.appendingPathComponent("recorded"), name: "recordings", tier: .recordings).mappings.count == 2)
    }
}
