import Foundation
import HTTPServer
import JSON
import MockCore
import Testing
import UnderstudyTesting

@testable import Stubs

/// Which of several requests finished first.
private actor CompletionOrder {
    var names: [String] = []
    func add(_ name: String) { names.append(name) }
}

/// `/__admin/settings`: a global delay for stub answers, as WireMock applies it.
@Suite struct GlobalSettingsTests {
    func serve() throws -> (TestServer, URL) {
        let root = try makeTemporaryDirectory([
            "mappings/plain.json": #"{"request": {"urlPath": "/plain"}, "response": {"body": "plain"}}"#,
            "mappings/own.json": #"{"request": {"urlPath": "/own"}, "response": {"body": "own", "fixedDelayMilliseconds": 10}}"#,
        ])
        let journal = RequestJournal()
        let engine = StubEngine(stubsDirectory: root)
        // One loop: a request answered while a delayed one waits shows that the loop is not held.
        return (try TestServer.start(backends: [StubAdminAPI(engine: engine, journal: journal), engine], journal: journal) { $0.threads = 1 }, root)
    }

    func timed(_ server: TestServer, _ path: String) async throws -> Duration {
        let clock = ContinuousClock()
        let start = clock.now
        #expect(try await server.send("GET", path).response.statusCode == 200)
        return clock.now - start
    }

    @Test func aFixedDelayHoldsEveryStubAnswerByATimer() async throws {
        let (server, root) = try serve()
        defer {
            server.stop()
            try? FileManager.default.removeItem(at: root)
        }
        #expect(String(decoding: try await server.send("GET", "/__admin/settings").body, as: UTF8.self) == #"{"settings":{}}"#)
        #expect(try await server.send("POST", "/__admin/settings", body: Data(#"{"fixedDelay": 500}"#.utf8)).response.statusCode == 200)
        #expect(try await timed(server, "/plain") >= .milliseconds(500))
        let settings = try object(try await server.send("GET", "/__admin/settings").body)
        #expect((settings["settings"] as? [String: Int])?["fixedDelay"] == 500)

        // Answers are held by a timer, not a blocked loop: on the server's one loop, an admin call
        // sent while a delayed answer waits is answered first (an order, not a timing).
        #expect(try await server.send("POST", "/__admin/settings", body: Data(#"{"fixedDelay": 3000}"#.utf8)).response.statusCode == 200)
        let order = CompletionOrder()
        async let delayed: Void = {
            _ = try? await server.send("GET", "/plain")
            await order.add("stub")
        }()
        try await Task.sleep(for: .milliseconds(300))
        _ = try await server.send("GET", "/__admin/settings")
        await order.add("admin")
        await delayed
        #expect(await order.names == ["admin", "stub"])
    }

    @Test func theGlobalDelayFillsWhatAMappingLeavesOut() throws {
        let settings = GlobalSettings()
        let root = try makeTemporaryDirectory([:])
        defer { try? FileManager.default.removeItem(at: root) }
        func definition(_ json: String) throws -> ResponseDefinition {
            var warnings: [StubError] = []
            return try ResponseDefinition.parse(try JSONValue.parse(json), in: StubDirectory(root: root), warnings: &warnings)
        }
        let plain = try definition(#"{"body": "x"}"#)
        let own = try definition(#"{"fixedDelayMilliseconds": 10}"#)
        #expect(settings.delay == nil, "nothing to look up on the request path while unset")

        try settings.update(try JSONValue.parse(#"{"fixedDelay": 300}"#), merging: false)
        #expect(plain.delay(globally: settings.delay) == .milliseconds(300))
        #expect(own.delay(globally: settings.delay) == .milliseconds(10), "a mapping's own fixed delay wins, as in WireMock")

        // PATCH changes only what it names; a global distribution adds to a mapping's fixed delay.
        try settings.update(try JSONValue.parse(#"{"delayDistribution": {"type": "uniform", "lower": 200, "upper": 200}}"#), merging: true)
        #expect(own.delay(globally: settings.delay) == .milliseconds(210))
        #expect(plain.delay(globally: settings.delay) == .milliseconds(500))

        // POST replaces every setting.
        try settings.update(try JSONValue.parse(#"{"settings": {"extended": {"team": "bus"}}}"#), merging: false)
        #expect(settings.delay == nil)
        #expect(settings.json.serialized == #"{"settings":{"extended":{"team":"bus"}}}"#)
    }

    @Test func badSettingsAre422AndChangeNothing() async throws {
        let (server, root) = try serve()
        defer {
            server.stop()
            try? FileManager.default.removeItem(at: root)
        }
        #expect(try await server.send("POST", "/__admin/settings", body: Data(#"{"fixedDelay": 100}"#.utf8)).response.statusCode == 200)
        for (bad, pointer) in [
            (#"{"fixedDelay": "x"}"#, "/fixedDelay"), (#"{"foo": 1}"#, "/foo"),
            (#"{"delayDistribution": {"type": "cubic"}}"#, "/delayDistribution/type"), ("[1]", "/"),
        ] {
            let (body, response) = try await server.send("POST", "/__admin/settings", body: Data(bad.utf8))
            #expect(response.statusCode == 422, "\(bad)")
            #expect(
                ((try object(body)["errors"] as? [[String: Any]])?.first?["source"] as? [String: String])?["pointer"] == pointer,
                "\(String(decoding: body, as: UTF8.self))")
        }
        #expect((try object(try await server.send("GET", "/__admin/settings").body)["settings"] as? [String: Int])?["fixedDelay"] == 100)
        let (_, scoped) = try await server.send(
            "POST", "/__admin/settings", headers: ["X-Understudy-Scope": "alice"], body: Data(#"{"fixedDelay": 1}"#.utf8))
        #expect(scoped.statusCode == 400, "settings are server-wide")
    }
}
