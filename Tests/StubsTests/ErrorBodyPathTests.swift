import Foundation
import MockCore
import Stubs
import Testing
import UnderstudyTesting

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// No answer a client can provoke names a path on the server's disk (hostile-client audit: the
/// 404 for a missing body file showed the absolute stubs path); files are named relative to the
/// stubs folder.
@Suite struct ErrorBodyPathTests {
    func text(_ data: Data) -> String { String(decoding: data, as: UTF8.self) }

    @Test func errorBodiesNameFilesRelativeToTheStubsFolder() async throws {
        let root = try makeTemporaryDirectory([
            "mappings/user.json":
                #"{"request": {"urlPathPattern": "/users/.+"}, "response": {"bodyFileName": "users/{{request.pathSegments.[1]}}.json", "transformers": ["response-template"]}}"#,
            "mappings/fixture.json":
                #"{"request": {"urlPath": "/fixture"}, "response": {"body": "{{fixture request.query.name}}", "transformers": ["response-template"]}}"#,
            "mappings/bus.json": #"{"name": "bus list", "request": {"method": "GET", "urlPath": "/bus"}, "response": {"body": "buses"}}"#,
            "pack/mappings/pack.json":
                #"{"request": {"urlPathPattern": "/pack/.+"}, "response": {"bodyFileName": "{{request.pathSegments.[1]}}.txt", "transformers": ["response-template"]}}"#,
            "__files/users/ann.json": "{}",
        ])
        defer { try? FileManager.default.removeItem(at: root) }
        let engine = StubEngine(stubsDirectory: root)
        let journal = RequestJournal()
        let server = try TestServer.start(backends: [StubAdminAPI(engine: engine, journal: journal), engine], journal: journal)
        defer { server.stop() }
        // The real path too, as a resolved temporary folder may differ (/tmp vs /private/tmp).
        let secrets = [root.path, root.resolvingSymlinksInPath().path, NSTemporaryDirectory()].filter { $0.count > 1 }

        var bodies: [(String, String)] = []
        let missingBodyFile = try await server.send("GET", "/users/bob")
        #expect(missingBodyFile.response.statusCode == 404)
        #expect(text(missingBodyFile.body).contains("no file 'users/bob.json' in __files"))
        bodies.append(("missing body file", text(missingBodyFile.body)))
        let outside = try await server.send("GET", "/users/..%2F..%2F..%2Fetc%2Fpasswd")
        #expect(outside.response.statusCode == 404)
        bodies.append(("outside", text(outside.body)))
        let inPack = try await server.send("GET", "/pack/nothing")
        #expect(text(inPack.body).contains("in pack/__files"))
        bodies.append(("pack", text(inPack.body)))
        bodies.append(("fixture", text(try await server.send("GET", "/fixture?name=absent.json").body)))
        bodies.append(("404 text", text(try await server.send("GET", "/bus/x", headers: ["Accept": "text/plain"]).body)))
        bodies.append(("404 json", text(try await server.send("GET", "/bus/x", headers: ["Accept": "application/json"]).body)))
        let posted = try await server.send(
            "POST", "/__admin/mappings", headers: ["Content-Type": "application/json"],
            body: Data(#"{"request": {"url": "/p"}, "response": {"bodyFileName": "gone.json"}}"#.utf8))
        // WireMock takes a mapping whose body file is missing, and answers 500 when it is requested.
        #expect(posted.response.statusCode == 201)
        let gone = try await server.send("GET", "/p")
        #expect(gone.response.statusCode == 500)
        #expect(text(gone.body).contains("no file 'gone.json' in __files"))
        bodies.append(("missing body file of a posted mapping", text(gone.body)))

        for (what, body) in bodies {
            for secret in secrets { #expect(!body.contains(secret), "\(what): \(body)") }
        }
    }
}
