import Foundation
import HTTPServer
import MockCore
import Testing
import UnderstudyTesting

@testable import Stubs

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Mapping files read the way WireMock 2.35 reads them: unknown keys refused (with a "did you
/// mean"), the leniencies it allows (comments, single quotes, a string status, missing request
/// or response, two URL or body keys), a missing body file loaded as a 500.
@Suite struct MappingFileFormatTests {
    func text(_ data: Data) -> String { String(decoding: data, as: UTF8.self) }

    func serve(_ files: [String: String]) throws -> (BackendTester, StubEngine, URL) {
        let root = try makeTemporaryDirectory(files)
        let journal = RequestJournal()
        let engine = StubEngine(stubsDirectory: root)
        let server = try BackendTester(backends: [StubAdminAPI(engine: engine, journal: journal), engine], journal: journal)
        return (server, engine, root)
    }

    @Test func typosAreRefusedWithFileLineFieldAndASuggestion() async throws {
        let (server, engine, root) = try serve([
            "mappings/good.json": #"{"request": {"urlPath": "/good"}, "response": {"body": "good"}}"#,
            "mappings/query.json":
                "{\n  \"request\": {\n    \"urlPath\": \"/q\",\n    \"queryParamters\": {\"x\": {\"equalTo\": \"1\"}}\n  },\n  \"response\": {}\n}",
            "mappings/file.json": "{\"request\": {\"urlPath\": \"/f\"},\n \"response\": {\"bodyFile\": \"x.json\"}}",
            "mappings/top.json": #"{"request": {"urlPath": "/t"}, "response": {}, "zzz": 1}"#,
            "mappings/auth.json": #"{"request": {"urlPath": "/a", "basicAuthCredentials": {"username": "u", "pasword": "p"}}}"#,
            "mappings/delay.json": #"{"response": {"delayDistribution": {"type": "uniform", "lower": 1, "uper": 2}}}"#,
            "mappings/dribble.json": #"{"response": {"chunkedDribbleDelay": {"numberOfChunks": 1, "totalDuraton": 2}}}"#,
            "mappings/multipart.json": #"{"request": {"multipartPatterns": [{"nme": "file"}]}}"#,
            "mappings/custom.json": #"{"request": {"urlPath": "/c", "customMatcher": {"name": "mine"}}}"#,
            "mappings/operator.json": #"{"request": {"urlPath": "/o", "headers": {"X": {"equalT": "1"}}}}"#,
            // WireMock's StubMappingCollection knows no importOptions (the import API's), nor a priority that is no number.
            "mappings/many.json": #"{"mappings": [{"request": {"urlPath": "/m"}, "response": {}}], "importOptions": {"duplicatePolicy": "IGNORE"}}"#,
            "mappings/priority.json": #"{"priority": "high", "request": {"urlPath": "/p"}, "response": {}}"#,
        ])
        defer { try? FileManager.default.removeItem(at: root) }
        let errors = engine.reloadFiles().map(\.description)
        func expectError(_ text: String) { #expect(errors.contains { $0.contains(text) }, "\(text) in \(errors)") }
        #expect(errors.count == 11)
        expectError("many.json:1: importOptions: unknown field 'importOptions' beside `mappings`")
        expectError("priority.json:1: priority: expected a whole number")
        expectError("query.json:4: request.queryParamters: unknown field 'queryParamters' (did you mean 'queryParameters'?)")
        expectError("file.json:2: response.bodyFile: unknown field 'bodyFile' (did you mean 'bodyFileName'?)")
        expectError("top.json:1: zzz: unknown field 'zzz'")
        #expect(!errors.contains { $0.contains("'zzz' (did you mean") }, "no suggestion when nothing is close")
        expectError("request.basicAuthCredentials.pasword: unknown field 'pasword' (did you mean 'password'?)")
        expectError("response.delayDistribution.uper: unknown field 'uper' (did you mean 'upper'?)")
        expectError("response.chunkedDribbleDelay.totalDuraton: unknown field 'totalDuraton' (did you mean 'totalDuration'?)")
        expectError("request.multipartPatterns[0].nme: unknown field 'nme' (did you mean 'name'?)")
        expectError("request.customMatcher.name: 'mine': the one custom matcher Understudy has is graphql-body-matcher")
        expectError("request.headers.X: unknown operator 'equalT' (did you mean 'equalTo'?)")
        // The others still load, and the refused ones match nothing.
        #expect(text(try await server.send("GET", "/good").body) == "good")
        #expect(try await server.send("GET", "/q").response.statusCode == 404)
        #expect(try await server.send("GET", "/m").response.statusCode == 404, "the whole file is refused")
        #expect(engine.mappings.count == 1)
    }

    /// Jackson reads a priority given as text into WireMock's Integer: `"1"` is 1.
    @Test func aPriorityGivenAsTextIsItsNumber() throws {
        #expect(try StubMapping.priority(.string("1"), default: 5) == 1)
        #expect(try StubMapping.priority(nil, default: 5) == 5)
        #expect(try StubMapping.priority(.double(2), default: 5) == 2)
        #expect(throws: StubError.self) { try StubMapping.priority(.double(2.5), default: 5) }
        #expect(throws: StubError.self) { try StubMapping.priority(.bool(true), default: 5) }
    }

    @Test func keysWithoutEffectLoadWithAWarning() throws {
        let root = try makeTemporaryDirectory([
            "mappings/listeners.json":
                #"{"request": {"urlPath": "/l", "queryParameters": {"x": {"equalTo": "a", "caseInsensitiv": true}}}, "response": {"transformers": ["other"]}, "serveEventListeners": [{"name": "slack-notifier"}], "insertionIndex": 3, "metadata": {"tag": 1}}"#
        ])
        defer { try? FileManager.default.removeItem(at: root) }
        let report = StubCheck.run(stubsDirectory: root)
        #expect(report.problems.isEmpty, "\(report.problems)")
        let warnings = report.warnings.map(\.description)
        #expect(warnings.count == 3, "\(warnings)")
        #expect(
            warnings.contains {
                $0.contains(
                    "listeners.json:1: serveEventListeners[0].name: 'slack-notifier' is not a listener Understudy has: ignored (it has 'webhook')")
            })
        #expect(
            warnings.contains {
                $0.contains(
                    "request.queryParameters.x.caseInsensitiv: unknown key 'caseInsensitiv' ignored (as WireMock does) (did you mean 'caseInsensitive'?)"
                )
            })
        #expect(warnings.contains { $0.contains("response.transformers: transformer 'other' is not supported") })
    }

    @Test func theAdminAPIRefusesTyposInWireMocksShape() async throws {
        let (server, engine, root) = try serve([:])
        defer { try? FileManager.default.removeItem(at: root) }
        let typo = #"{"request": {"url": "/a", "queryParamters": {"x": {"equalTo": "1"}}}, "response": {"status": 200}}"#
        let (body, response) = try await server.send("POST", "/__admin/mappings", body: Data(typo.utf8))
        #expect(response.statusCode == 422)
        let error = try #require((try object(body)["errors"] as? [[String: Any]])?.first)
        #expect((error["source"] as? [String: String])?["pointer"] == "/request/queryParamters")
        #expect((error["detail"] as? String)?.contains("did you mean 'queryParameters'?") == true)

        let batch = #"{"mappings": [{"request": {"url": "/ok"}}, {"request": {"url": "/b", "queryParamters": {}}}]}"#
        let (imported, importResponse) = try await server.send("POST", "/__admin/mappings/import", body: Data(batch.utf8))
        #expect(importResponse.statusCode == 422)
        let importError = try #require((try object(imported)["errors"] as? [[String: Any]])?.first)
        #expect((importError["source"] as? [String: String])?["pointer"] == "/mappings/1/request/queryParamters")
        #expect(engine.mappings.isEmpty, "an import is all or nothing")

        // Journal queries too: a typo would count more than meant.
        let count = #"{"urlPath": "/a", "headrs": {"X": {"equalTo": "1"}}}"#
        let (counted, countResponse) = try await server.send("POST", "/__admin/requests/count", body: Data(count.utf8))
        #expect(countResponse.statusCode == 422)
        #expect(text(counted).contains("did you mean 'headers'?"))

        // Comments and single quotes, as WireMock's admin API takes them too.
        let lenient = "// a comment\n{'request': {'urlPath': '/lenient'}, /* x */ 'response': {'body': 'it\\'s'}}"
        #expect(try await server.send("POST", "/__admin/mappings", body: Data(lenient.utf8)).response.statusCode == 201)
        #expect(text(try await server.send("GET", "/lenient").body) == "it's")
    }

    @Test func filesWireMockLoadsLoad() async throws {
        let (server, engine, root) = try serve([
            "mappings/comments.json":
                "// WireMock's own samples have comments\n{\n  /* block */\n  \"request\": {\"urlPath\": \"/comments\"}, // trailing\n  \"response\": {\"body\": \"c\"}\n}\n",
            "mappings/quotes.json": #"{'request': {'urlPath': '/quotes'}, 'response': {'body': 'say "hi"'}}"#,
            "mappings/status.json": #"{"request": {"urlPath": "/status"}, "response": {"status": "201"}}"#,
            "mappings/id.json": #"{"id": "", "request": {"urlPath": "/id"}, "response": {"status": 202}}"#,
            "mappings/noresponse.json": #"{"request": {"urlPath": "/noresponse"}}"#,
            "mappings/norequest.json": #"{"priority": 9, "response": {"status": 418}}"#,
            "mappings/twourls.json": #"{"request": {"urlPath": "/two", "url": "/two?x=1"}, "response": {"body": "url wins"}}"#,
            "mappings/twobodies.json": #"{"request": {"urlPath": "/bodies"}, "response": {"jsonBody": {"a": 1}, "body": "body wins"}}"#,
            "mappings/missing.json": #"{"request": {"urlPath": "/missing"}, "response": {"bodyFileName": "gone.json"}}"#,
            "mappings/trailing.json": "{\"request\": {\"urlPath\": \"/trailing\"},\n \"response\": {},}",
            "mappings/fixed.json": #"{"request": {"urlPath": "/fixed"}, "response": {"delayDistribution": {"type": "fixed", "milliseconds": 20}}}"#,
        ])
        defer { try? FileManager.default.removeItem(at: root) }
        let errors = engine.reloadFiles().map(\.description)
        #expect(errors.count == 1 && errors.first?.contains("trailing.json:2:") == true, "trailing commas stay refused, as in WireMock: \(errors)")
        #expect(engine.mappings.first { $0.summary.hasSuffix("/fixed") }?.response.delay() == .milliseconds(20))
        #expect(text(try await server.send("GET", "/comments").body) == "c")
        #expect(text(try await server.send("GET", "/quotes").body) == #"say "hi""#)
        #expect(try await server.send("GET", "/status").response.statusCode == 201)
        #expect(try await server.send("GET", "/id").response.statusCode == 202)
        #expect(UUID(uuidString: try #require(engine.mappings.first { $0.summary.hasSuffix("/id") }?.id)) != nil)
        let (empty, emptyResponse) = try await server.send("GET", "/noresponse")
        #expect(emptyResponse.statusCode == 200 && empty.isEmpty)
        #expect(try await server.send("DELETE", "/anything/else").response.statusCode == 418, "no request: any request")
        #expect(text(try await server.send("GET", "/two?x=1").body) == "url wins")
        #expect(try await server.send("GET", "/two").response.statusCode == 418)
        #expect(text(try await server.send("GET", "/bodies").body) == "body wins")
        let (missing, missingResponse) = try await server.send("GET", "/missing")
        #expect(missingResponse.statusCode == 500)
        #expect(text(missing).contains("no file 'gone.json' in __files"))

        let report = StubCheck.run(stubsDirectory: root)
        #expect(report.warnings.contains { $0.description.contains("missing.json:1: response.bodyFileName: no file 'gone.json' in __files") })
        #expect(report.warnings.contains { $0.description.contains("twourls.json:1: request.urlPath: ignored: url is also given") })
        #expect(report.warnings.contains { $0.description.contains("twobodies.json:1: response.jsonBody: ignored: body is also given") })
    }

    @Test func basicAuthIsAnotherNameForBasicAuthCredentials() async throws {
        let (server, _, root) = try serve([
            "mappings/auth.json":
                #"{"request": {"urlPath": "/auth", "basicAuth": {"username": "ann", "password": "secret"}}, "response": {"body": "in"}}"#
        ])
        defer { try? FileManager.default.removeItem(at: root) }
        #expect(try await server.send("GET", "/auth").response.statusCode == 404)
        let credentials = "Basic " + Data("ann:secret".utf8).base64EncodedString()
        #expect(text(try await server.send("GET", "/auth", headers: ["Authorization": credentials]).body) == "in")
    }
}
