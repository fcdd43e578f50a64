import Foundation
import MockCore
import Stubs
import Templating
import Testing
import UnderstudyTesting

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Catastrophic backtracking in a stub's regex: `(a|aa)+b` over 60 `a`s takes about 10^12 steps.
/// Each match gives up after its budget, as a non-match, and the server keeps answering.
@Suite struct RegexBudgetTests {
    @Test func aRunawayMatchGivesUp() throws {
        let regex = try NSRegularExpression(pattern: "^(?:(a|aa)+b)$")
        #expect(regex.firstMatch(in: String(repeating: "a", count: 60)) == .gaveUp)
        #expect(regex.firstMatch(in: "aaab") == .matched(NSRange(location: 0, length: 4)))
        #expect(regex.firstMatch(in: "aaac") == .noMatch)
    }

    @Test func runawayStubRegexesAreNonMatchesOverTheSocket() async throws {
        let root = try makeTemporaryDirectory([
            "mappings/path.json": #"{"request": {"urlPathPattern": "/(a|aa)+b"}, "response": {"body": "path"}}"#,
            "mappings/body.json":
                #"{"request": {"method": "POST", "url": "/body", "bodyPatterns": [{"matches": "(a|aa)+b"}]}, "response": {"body": "body"}}"#,
            "mappings/not.json":
                #"{"request": {"method": "POST", "url": "/not", "bodyPatterns": [{"doesNotMatch": "(a|aa)+b"}]}, "response": {"body": "not"}}"#,
        ])
        defer { try? FileManager.default.removeItem(at: root) }
        let server = try TestServer.start(backends: [StubEngine(stubsDirectory: root)])
        defer { server.stop() }
        let runaway = String(repeating: "a", count: 60)
        #expect(try await server.send("GET", "/" + runaway).response.statusCode == 404)
        #expect(try await server.send("POST", "/body", body: Data(runaway.utf8)).response.statusCode == 404)
        #expect(try await server.send("POST", "/not", body: Data(runaway.utf8)).response.statusCode == 404, "undecided is not 'does not match'")
        #expect(String(decoding: try await server.send("GET", "/aab").body, as: UTF8.self) == "path")
        #expect(String(decoding: try await server.send("POST", "/not", body: Data("x".utf8)).body, as: UTF8.self) == "not")
    }
}
