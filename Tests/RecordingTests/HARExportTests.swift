import Foundation
import HTTPServer
import JSON
import MockCore
import Stubs
import Testing
import UnderstudyTesting

@testable import Recording

/// `GET /__admin/requests?format=har`: the journal as HAR 1.2, with a recording's redaction and
/// what Understudy knows beside (`_understudy`); Tests/python/test_har_export.py reads one with
/// haralyzer, with a compressed answer, and replays it.
@Suite struct HARExportTests {
    @Test func theJournalIsAHARWithItsSecretsRedacted() async throws {
        let root = try makeTemporaryDirectory([
            "mappings/login.json":
                #"{"request": {"urlPath": "/login"}, "response": {"status": 200, "jsonBody": {"welcome": "ann"}, "headers": {"Set-Cookie": "SESSION=s3cr3tvalue; Path=/"}}}"#,
            "mappings/zip.json":
                #"{"id": "22222222-2222-2222-2222-222222222222", "request": {"urlPath": "/zip"}, "response": {"status": 200, "body": "{\"greeting\": \"hello\"}", "headers": {"Content-Type": "application/json"}}}"#,
        ])
        defer { try? FileManager.default.removeItem(at: root) }
        let journal = RequestJournal()
        let engine = StubEngine(stubsDirectory: root)
        let recorder = RecordingAdminAPI(proxy: RecordingProxy(), recordedDirectory: root.appendingPathComponent("recorded"), replay: nil)
        let server = try TestServer.start(backends: [StubAdminAPI(engine: engine, journal: journal), recorder, engine], journal: journal)
        defer { server.stop() }
        _ = try await server.send(
            "POST", "/login?token=abc&lang=en",
            headers: ["Authorization": "Bearer topsecret-token", "Content-Type": "application/json", "X-Understudy-Scope": "har"],
            body: Data(#"{"user": "ann", "password": "pw"}"#.utf8))
        _ = try await server.send("GET", "/zip", headers: ["X-Understudy-Scope": "har"])
        let (data, response) = try await server.send("GET", "/__admin/requests?format=har&scope=har")
        #expect(response.statusCode == 200)
        let log = try #require(try JSONValue.parse(Array(data))["log"])
        #expect(log["version"] == "1.2" && log["creator"]?["name"] == "Understudy")
        let entries = try #require(log["entries"]?.arrayValue)
        #expect(entries.count == 2)
        let login = entries[0]
        let text = login.serialized
        #expect(!text.contains("topsecret-token") && !text.contains("abc&") && !text.contains("\"pw\"") && !text.contains("s3cr3tvalue"), "\(text)")
        #expect(login["request"]?["url"]?.stringValue?.hasSuffix("/login?token=REDACTED&lang=en") == true)
        #expect(login["request"]?["postData"]?["text"] == #"{"user":"ann","password":"REDACTED"}"#)
        #expect(login["_understudy"]?["scope"] == "har" && login["_understudy"]?["servedBy"] == "stubs")
        #expect(login["time"]?.doubleValue == login["timings"]?["wait"]?.doubleValue)
        let zip = entries[1]
        #expect(zip["response"]?["content"]?["text"] == #"{"greeting": "hello"}"#)
        #expect(zip["response"]?["content"]?["size"] == 21)
        #expect(zip["_understudy"]?["stubId"] == "22222222-2222-2222-2222-222222222222")
        // Read back, it makes the same answers.
        let (exchanges, _, skipped) = try HARImport.exchanges(Array(data))
        #expect(skipped.isEmpty && exchanges.count == 2)
        #expect(String(decoding: exchanges[1].responseBody, as: UTF8.self) == #"{"greeting": "hello"}"#)
        #expect(try await server.send("GET", "/__admin/requests?format=xml").response.statusCode == 400)
    }
}
