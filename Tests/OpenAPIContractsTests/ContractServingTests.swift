import ContractValidation
import Foundation
import JSON
import MockCore
import Stubs
import Testing
import UnderstudyTesting

@testable import OpenAPIContracts

/// The router with a contract: answers given now and later (a delayed stub), soft and hard.
@Suite struct ContractServingTests {
    static let stubs = [
        "mappings/good.json":
            #"{"request": {"urlPath": "/tasks/5"}, "response": {"status": 200, "headers": {"Content-Type": "application/json"}, "jsonBody": {"title": "wash", "done": true}}}"#,
        // Answered later (a timer), and breaking the contract: `done` is a string.
        "mappings/late.json":
            #"{"request": {"urlPath": "/tasks/6"}, "response": {"status": 200, "fixedDelayMilliseconds": 20, "headers": {"Content-Type": "application/json"}, "jsonBody": {"title": "wash", "done": "yes"}}}"#,
    ]

    static func serve(_ enforcement: ContractEnforcement, _ test: (TestServer, RequestJournal) async throws -> Void) async throws {
        let root = try makeTemporaryDirectory(stubs)
        defer { try? FileManager.default.removeItem(at: root) }
        let contract = try OpenAPIContract.load(try ContractTests.spec("tasks.json"), enforcement: enforcement)
        let journal = RequestJournal()
        let server = try TestServer.start(backends: [StubEngine(stubsDirectory: root)], journal: journal, contract: contract)
        defer { server.stop() }
        try await test(server, journal)
    }

    @Test func hardEnforcementReplacesALaterAnswerThatBreaksTheContract() async throws {
        try await Self.serve(.hard) { server, journal in
            let (_, good) = try await server.send("GET", "/tasks/5")
            #expect(good.statusCode == 200)
            let (body, late) = try await server.send("GET", "/tasks/6")
            #expect(late.statusCode == 502)
            #expect(late.value(forHTTPHeaderField: "X-Understudy-Contract") == "violated")
            #expect(try JSONValue.parse(Array(body))["violations"]?.arrayValue?.first?["pointer"] == "/done")
            // The journal keeps what was sent, and why.
            let entry = try #require(journal.entries.last)
            #expect(entry.status == 502 && entry.violations.map(\.rule) == ["expected boolean, found string"])
            // A request the contract does not have is refused before any stub sees it.
            let (_, unknown) = try await server.send("GET", "/users")
            #expect(unknown.statusCode == 400)
            #expect(journal.entries.last?.backend == "contract")
        }
    }

    @Test func softEnforcementSendsTheAnswerAndJournalsTheViolation() async throws {
        try await Self.serve(.soft) { server, journal in
            let (body, late) = try await server.send("GET", "/tasks/6")
            #expect(late.statusCode == 200)
            #expect(try JSONValue.parse(Array(body))["done"] == "yes")
            #expect(journal.entries.last?.violations.map(\.pointer) == ["/done"])
            let (list, _) = try await server.send("GET", "/__admin/requests?violations=true")
            let entries = try JSONValue.parse(Array(list))["requests"]?.arrayValue ?? []
            #expect(entries.count == 1)
            #expect(entries.first?["violations"]?.arrayValue?.first?["specLocation"] == "#/components/schemas/Task/properties/done/type")
            // The live list's summary counts them, for the dashboard's flag.
            let (live, _) = try await server.send("GET", "/__admin/requests/live?timeout=0")
            #expect(try JSONValue.parse(Array(live))["requests"]?.arrayValue?.last?["violations"] == 1)
        }
    }
}
