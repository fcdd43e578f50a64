import Foundation
import HTTPServer
import MockCore
import Testing
import UnderstudyTesting

@testable import Stubs

/// `/__admin/files`: the body files, listed, read, written and deleted, never outside `__files/`.
@Suite struct BodyFilesAdminTests {
    func serve() throws -> (BackendTester, URL) {
        let root = try makeTemporaryDirectory([
            "__files/a.txt": "hello",
            "__files/sub/b.json": "{}",
            "mappings/a.json": #"{"request": {"urlPath": "/a"}, "response": {"bodyFileName": "a.txt"}}"#,
            "secret.txt": "do not serve",
        ])
        let journal = RequestJournal()
        let engine = StubEngine(stubsDirectory: root)
        return (try BackendTester(backends: [StubAdminAPI(engine: engine, journal: journal), engine], journal: journal), root)
    }

    @Test func listReadWriteDelete() async throws {
        let (server, root) = try serve()
        defer { try? FileManager.default.removeItem(at: root) }
        let (listing, _) = try await server.send("GET", "/__admin/files")
        #expect(try JSONSerialization.jsonObject(with: listing) as? [String] == ["a.txt", "sub/b.json"])
        #expect(String(decoding: try await server.send("GET", "/__admin/files/sub/b.json").body, as: UTF8.self) == "{}")
        #expect(try await server.send("GET", "/__admin/files/none.txt").response.statusCode == 404)

        let (written, response) = try await server.send("PUT", "/__admin/files/d1/d2/new.txt", body: Data("new body".utf8))
        #expect(response.statusCode == 200)
        #expect(try JSONSerialization.jsonObject(with: written, options: .fragmentsAllowed) as? String == Data("new body".utf8).base64EncodedString())
        #expect(try String(contentsOf: root.appendingPathComponent("__files/d1/d2/new.txt"), encoding: .utf8) == "new body")

        #expect(try await server.send("DELETE", "/__admin/files/d1/d2/new.txt").response.statusCode == 200)
        #expect(!FileManager.default.fileExists(atPath: root.appendingPathComponent("__files/d1/d2/new.txt").path))
        #expect(try await server.send("DELETE", "/__admin/files/d1/d2/new.txt").response.statusCode == 404)
    }

    @Test func aStubAnswersWithTheBodyFileAsItIsNow() async throws {
        let (server, root) = try serve()
        defer { try? FileManager.default.removeItem(at: root) }
        _ = try await server.send(
            "POST", "/__admin/mappings", body: Data(#"{"request": {"urlPath": "/b"}, "response": {"bodyFileName": "/a.txt"}}"#.utf8))
        #expect(String(decoding: try await server.send("GET", "/a").body, as: UTF8.self) == "hello")
        _ = try await server.send("PUT", "/__admin/files/a.txt", body: Data("changed".utf8))
        for path in ["/a", "/b"] {
            #expect(String(decoding: try await server.send("GET", path).body, as: UTF8.self) == "changed", "\(path): a file's and the API's mapping")
        }
        _ = try await server.send("DELETE", "/__admin/files/a.txt")
        #expect(try await server.send("GET", "/a").response.statusCode == 500, "as WireMock: a mapping whose body file is gone fails")
        _ = try await server.send("PUT", "/__admin/files/a.txt", body: Data("back".utf8))
        #expect(String(decoding: try await server.send("GET", "/b").body, as: UTF8.self) == "back")
    }

    @Test func namesLeadingOutsideAreRefused() async throws {
        let (server, root) = try serve()
        defer { try? FileManager.default.removeItem(at: root) }
        try FileManager.default.createSymbolicLink(at: root.appendingPathComponent("__files/link"), withDestinationURL: root)
        for name in ["..%2Fsecret.txt", "sub/..%2F..%2Fsecret.txt", "link/secret.txt"] {
            let (_, read) = try await server.send("GET", "/__admin/files/\(name)")
            #expect(read.statusCode == 400 || read.statusCode == 404, "\(name)")
            let (_, write) = try await server.send("PUT", "/__admin/files/\(name)", body: Data("x".utf8))
            #expect(write.statusCode == 400, "\(name)")
        }
        #expect(try String(contentsOf: root.appendingPathComponent("secret.txt"), encoding: .utf8) == "do not serve")
        // In a named scope: the scope's own file, in memory (not written to the folder), read there only.
        let (_, scoped) = try await server.send("PUT", "/__admin/files/c.txt", headers: ["X-Understudy-Scope": "alice"], body: Data("x".utf8))
        #expect(scoped.statusCode == 200)
        #expect(!FileManager.default.fileExists(atPath: root.appendingPathComponent("__files/c.txt").path))
        #expect(
            String(decoding: try await server.send("GET", "/__admin/files/c.txt", headers: ["X-Understudy-Scope": "alice"]).body, as: UTF8.self)
                == "x")
        #expect(try await server.send("GET", "/__admin/files/c.txt").response.statusCode == 404)
        #expect(try await server.send("GET", "/__admin/files/a.txt", headers: ["X-Understudy-Scope": "alice"]).response.statusCode == 200)
        let (_, sharedDelete) = try await server.send("DELETE", "/__admin/files/a.txt", headers: ["X-Understudy-Scope": "alice"])
        #expect(sharedDelete.statusCode == 400, "a scope cannot delete a shared file")
        // A scope's files count in its byte cap with its mappings (4 MiB by default): past it, 413.
        let (_, large) = try await server.send(
            "PUT", "/__admin/files/big.bin", headers: ["X-Understudy-Scope": "alice"], body: Data(count: StubAdminAPI.defaultMaxScopeMappingBytes))
        #expect(large.statusCode == 413)
        #expect(try await server.send("GET", "/__admin/files/big.bin", headers: ["X-Understudy-Scope": "alice"]).response.statusCode == 404)
        // A name leading outside is refused in a scope as well.
        let (_, outside) = try await server.send(
            "PUT", "/__admin/files/..%2Fsecret.txt", headers: ["X-Understudy-Scope": "alice"], body: Data("x".utf8))
        #expect(outside.statusCode == 400)
    }
}
