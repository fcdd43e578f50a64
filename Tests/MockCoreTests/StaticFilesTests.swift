import Foundation
import HTTPServer
import Testing
import UnderstudyTesting

@testable import MockCore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite struct StaticFilesTests {
    @Test func servesFilesWithTheirContentTypes() async throws {
        let root = try makeTemporaryDirectory(["fixed.txt": "plain", "data/store.json": "{\"id\":1}", "site/index.html": "<p>home</p>"])
        defer { try? FileManager.default.removeItem(at: root) }
        let server = try TestServer.start(backends: [StaticFiles(root: root)])
        defer { server.stop() }

        let (text, textResponse) = try await server.send("GET", "/fixed.txt")
        #expect(String(decoding: text, as: UTF8.self) == "plain")
        #expect(textResponse.value(forHTTPHeaderField: "Content-Type") == "text/plain; charset=utf-8")
        let (json, jsonResponse) = try await server.send("GET", "/data/store.json?ignored=1")
        #expect(String(decoding: json, as: UTF8.self) == "{\"id\":1}")
        #expect(jsonResponse.value(forHTTPHeaderField: "Content-Type") == "application/json")
        #expect(String(decoding: try await server.send("GET", "/site/").body, as: UTF8.self) == "<p>home</p>")
        #expect(String(decoding: try await server.send("GET", "/site").body, as: UTF8.self) == "<p>home</p>")
    }

    @Test func reloadPicksUpChangedAddedAndRemovedFiles() async throws {
        let root = try makeTemporaryDirectory(["a.txt": "old", "gone.txt": "bye"])
        defer { try? FileManager.default.removeItem(at: root) }
        let files = StaticFiles(root: root)
        let server = try TestServer.start(backends: [files])
        defer { server.stop() }
        try Data("new".utf8).write(to: root.appendingPathComponent("a.txt"))
        try Data("added".utf8).write(to: root.appendingPathComponent("b.txt"))
        try FileManager.default.removeItem(at: root.appendingPathComponent("gone.txt"))
        #expect(String(decoding: try await server.send("GET", "/a.txt").body, as: UTF8.self) == "old", "nothing changes before reload")
        files.reload()
        #expect(String(decoding: try await server.send("GET", "/a.txt").body, as: UTF8.self) == "new")
        #expect(String(decoding: try await server.send("GET", "/b.txt").body, as: UTF8.self) == "added")
        #expect(try await server.send("GET", "/gone.txt").response.statusCode == 404)
    }

    @Test func onlyGetAndHeadAndOnlyExistingFiles() async throws {
        let root = try makeTemporaryDirectory(["a.txt": "abc"])
        defer { try? FileManager.default.removeItem(at: root) }
        let server = try TestServer.start(backends: [StaticFiles(root: root)])
        defer { server.stop() }
        #expect(try await server.send("POST", "/a.txt").response.statusCode == 404)
        #expect(try await server.send("GET", "/b.txt").response.statusCode == 404)
        #expect(try await server.send("GET", "/../a.txt").response.statusCode == 200, "dot segments never leave the docroot")
        let head = try await server.send("HEAD", "/a.txt")
        #expect(head.response.statusCode == 200)
        #expect(head.response.value(forHTTPHeaderField: "Content-Length") == "3")
        #expect(head.body.isEmpty)
    }

    @Test func linksOutOfTheDocrootAreNotServed() throws {
        let root = try makeTemporaryDirectory(["inside.txt": "in"])
        let outside = try makeTemporaryDirectory(["secret.txt": "secret"])
        defer {
            try? FileManager.default.removeItem(at: root)
            try? FileManager.default.removeItem(at: outside)
        }
        try FileManager.default.createSymbolicLink(
            at: root.appendingPathComponent("leak.txt"),
            withDestinationURL: outside.appendingPathComponent("secret.txt"))
        let files = StaticFiles(root: root)
        #expect(files.paths == ["/inside.txt"])
    }

    @Test func aMissingDirectoryServesNothing() {
        #expect(StaticFiles(root: URL(fileURLWithPath: "/nonexistent/understudy")).paths.isEmpty)
    }
}
