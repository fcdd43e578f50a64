import Foundation
import Testing
import HTTPServer
import MockCore
@testable import Stubs
import UnderstudyTesting

/// `/__admin/settings`: a global delay for stub answers, as WireMock applies it.
@Suite struct GlobalSettingsTests {
    func serve() throws -> (TestServer, URL) {
        let root = try makeTemporaryDirectory([
            "mappings/plain.json": #"{"request": {"urlPath": "/plain"}, "response": {"body": "plain"}}"#,
            "mappings/own.json": #"{"request": {"urlPath": "/own"}, "response": {"body": "own", "fixedDelayMilliseconds": 10}}"#,
        ])
        let journal = RequestJournal()
        let engine = StubEngine(stubsDirectory: root)
        return (try TestServer.start(backends: [StubAdminAPI(engine: engine, journal: journal), engine], journal: journal), root)
    }

    func timed(_ server: TestServer, _ path: String) async throws -> Duration {
        let clock = ContinuousClock()
        let start = clock.now
        #expect(try await server.send("GET", path).response.statusCode == 200)
        return clock.now - start
    }

    @Test func aFixedDelayHoldsEveryStubAnswerThatSetsNone() async throws {
        let (server, root) = try serve()
        defer { server.stop(); try? FileManager.default.removeItem(at: root) }
        #expect(String(decoding: try await server.send("GET", "/__admin/settings").body, as: UTF8.self) == #"{"settings":{}}"#)
        #expect(try await server.send("POST", "/__admin/settings", body: Data(#"{"fixedDelay": 300}"#.utf8)).response.statusCode == 200)
        #expect(try await timed(server, "/plain") >= .milliseconds(300))
        #expect(try await timed(server, "/own") < .milliseconds(250), "a mapping's own fixed delay wins, as in WireMock")
        let settings = try object(try await server.send("GET", "/__admin/settings").body)
        #expect((settings["settings"] as? [String: Int])?["fixedDelay"] == 300)

        // Answers are held by a timer, not a blocked loop: two delayed requests overlap.
        let clock = ContinuousClock()
        let start = clock.now
        async let first = server.send("GET", "/plain")
        async let second = server.send("GET", "/plain")
        _ = try await (first, second)
        #expect(clock.now - start < .milliseconds(550))

        // POST replaces every setting; PATCH changes only those given.
        #expect(try await server.send("POST", "/__admin/settings", body: Data(#"{"settings": {"extended": {"team": "bus"}}}"#.utf8)).response.statusCode == 200)
        #expect(try await timed(server, "/plain") < .milliseconds(250))
        #expect(try await server.send("PATCH", "/__admin/settings", body: Data(#"{"delayDistribution": {"type": "uniform", "lower": 200, "upper": 200}}"#.utf8)).response.statusCode == 200)
        let patched = try #require(try object(try await server.send("GET", "/__admin/settings").body)["settings"] as? [String: Any])
        #expect((patched["extended"] as? [String: String])?["team"] == "bus")
        #expect(try await timed(server, "/own") >= .milliseconds(210), "a global distribution adds to a mapping's fixed delay")
        #expect(try await server.send("POST", "/__admin/settings", body: Data("{}".utf8)).response.statusCode == 200)
        #expect(try await timed(server, "/plain") < .milliseconds(150))
    }

    @Test func badSettingsAre422AndChangeNothing() async throws {
        let (server, root) = try serve()
        defer { server.stop(); try? FileManager.default.removeItem(at: root) }
        #expect(try await server.send("POST", "/__admin/settings", body: Data(#"{"fixedDelay": 100}"#.utf8)).response.statusCode == 200)
        for (bad, pointer) in [(#"{"fixedDelay": "x"}"#, "/fixedDelay"), (#"{"foo": 1}"#, "/foo"), (#"{"delayDistribution": {"type": "cubic"}}"#, "/delayDistribution/type"), ("[1]", "/")] {
            let (body, response) = try await server.send("POST", "/__admin/settings", body: Data(bad.utf8))
            #expect(response.statusCode == 422, "\(bad)")
            #expect(((try object(body)["errors"] as? [[String: Any]])?.first?["source"] as? [String: String])?["pointer"] == pointer, "\(String(decoding: body, as: UTF8.self))")
        }
        #expect((try object(try await server.send("GET", "/__admin/settings").body)["settings"] as? [String: Int])?["fixedDelay"] == 100)
        let (_, scoped) = try await server.send("POST", "/__admin/settings", headers: ["X-Understudy-Scope": "alice"], body: Data(#"{"fixedDelay": 1}"#.utf8))
        #expect(scoped.statusCode == 400, "settings are server-wide")
    }
}
