import Foundation
import MockCore
import Stubs
import Testing
import UnderstudyTesting

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// XML from clients reaches the matchers and the `xPath` helper through the router: what crashed the
/// process or read its files before XML went through libxml2 with entities and network off.
@Suite struct UntrustedXMLTests {
    func serve() throws -> (BackendTester, URL) {
        let root = try makeTemporaryDirectory([
            "mappings/xpath.json":
                #"{"request": {"method": "POST", "url": "/xpath", "bodyPatterns": [{"matchesXPath": "/a"}]}, "response": {"body": "xpath"}}"#,
            "mappings/equal.json":
                #"{"request": {"method": "POST", "url": "/equal", "bodyPatterns": [{"equalToXml": "<a>1</a>"}]}, "response": {"body": "equal"}}"#,
            "mappings/echo.json":
                #"{"request": {"method": "POST", "url": "/echo"}, "response": {"body": "[{{xPath request.body '/a/text()'}}]", "transformers": ["response-template"]}}"#,
        ])
        let engine = StubEngine(stubsDirectory: root)
        let journal = RequestJournal()
        return (try BackendTester(backends: [StubAdminAPI(engine: engine, journal: journal), engine], journal: journal), root)
    }

    @Test func unmatchedAndMalformedBodiesAreNonMatchesAndTheServerStaysUp() async throws {
        let (server, root) = try serve()
        defer { try? FileManager.default.removeItem(at: root) }
        // The 404 page scores every stub, XML patterns included, against an empty body.
        #expect(try await server.send("GET", "/other").response.statusCode == 404)
        let bodies: [[UInt8]] = [
            [], Array("not xml".utf8), Array("<a".utf8), Array("<entry a".utf8) + [0xFF] + Array("=\"1\"/>".utf8),
            [0xFF, 0xFE, 0x3C, 0x00],
            Array(("<a " + (0..<40_000).map { "a\($0)='1'" }.joined(separator: " ") + "/>").utf8),
        ]
        for body in bodies {
            for path in ["/xpath", "/equal", "/other"] {
                let answer = try await server.send("POST", path, body: Data(body))
                #expect(answer.response.statusCode == 404, "\(path) \(body.prefix(20)) \(String(decoding: answer.body.prefix(300), as: UTF8.self))")
            }
        }
        #expect(String(decoding: try await server.send("POST", "/xpath", body: Data("<a/>".utf8)).body, as: UTF8.self) == "xpath")
        #expect(String(decoding: try await server.send("POST", "/equal", body: Data("<a>1</a>".utf8)).body, as: UTF8.self) == "equal")
    }

    @Test func externalEntitiesReadNoFile() async throws {
        let (server, root) = try serve()
        defer { try? FileManager.default.removeItem(at: root) }
        let secret = root.appendingPathComponent("secret.txt")
        try "TOP-SECRET".write(to: secret, atomically: true, encoding: .utf8)
        let attack = #"<?xml version="1.0"?><!DOCTYPE a [<!ENTITY x SYSTEM "file://\#(secret.path)">]><a>&x;</a>"#
        let echoed = String(decoding: try await server.send("POST", "/echo", body: Data(attack.utf8)).body, as: UTF8.self)
        #expect(!echoed.contains("TOP-SECRET"))
        #expect(echoed.hasPrefix("[[ERROR: ") && echoed.hasSuffix(" is not valid XML]]"), "the helper reports input it refuses: \(echoed)")
        #expect(try await server.send("POST", "/xpath", body: Data(attack.utf8)).response.statusCode == 404)
        #expect(String(decoding: try await server.send("POST", "/echo", body: Data("<a>hi</a>".utf8)).body, as: UTF8.self) == "[hi]")
    }
}
