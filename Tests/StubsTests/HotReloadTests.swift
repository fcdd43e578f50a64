import Foundation
import MockCore
import Stubs
import Testing
import UnderstudyTesting

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite struct HotReloadTests {
    func text(_ data: Data) -> String { String(decoding: data, as: UTF8.self) }

    /// Asks until the answer passes `check`; the watcher looks every 50 ms here, so this waits
    /// for an event rather than for a fixed time, about 10 s at most. It polls over a plain
    /// socket and sleeps its thread between tries: in a busy parallel test run an awaited answer
    /// or `Task.sleep` can wait seconds for a thread to resume on, which would use up the wait
    /// without saying anything of the watcher.
    func eventually(_ server: TestServer, _ path: String, _ check: (RawHTTPConnection.Response) -> Bool) throws -> Bool {
        for _ in 0..<500 {
            let connection = try server.connect()
            try connection.send("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
            if check(try connection.readResponse()) { return true }
            usleep(20_000)
        }
        return false
    }

    func eventually(_ server: TestServer, _ path: String, is expected: String) throws -> Bool {
        try eventually(server, path) { $0.bodyText == expected }
    }

    /// A server on `files` whose engine is watched every 50 ms; `stop` ends all of it.
    func serveWatched(_ files: [String: String]) throws -> (server: TestServer, root: URL, stop: () -> Void) {
        let root = try makeTemporaryDirectory(files)
        let engine = StubEngine(stubsDirectory: root)
        let watcher = StubWatcher(engine: engine, every: .milliseconds(50))
        let server = try TestServer.start(backends: [engine])
        return (
            server, root,
            {
                server.stop()
                watcher.stop()
                try? FileManager.default.removeItem(at: root)
            }
        )
    }

    @Test func changedAddedAndRemovedFilesApplyWithoutARestart() async throws {
        let (server, root, stop) = try serveWatched(["mappings/a.json": #"{"request": {"url": "/a"}, "response": {"body": "one"}}"#])
        defer { stop() }
        #expect(text(try await server.send("GET", "/a").body) == "one")

        let mapping = root.appendingPathComponent("mappings/a.json")
        try Data(#"{"request": {"url": "/a"}, "response": {"body": "two, a bit longer"}}"#.utf8).write(to: mapping)
        #expect(try eventually(server, "/a", is: "two, a bit longer"))

        // A broken edit is reported and the last good version stays live.
        try Data(#"{"request": {"url": "/a"}, "response": {"body": "three"#.utf8).write(to: mapping)
        try Data(#"{"request": {"url": "/b"}, "response": {"body": "b"}}"#.utf8).write(to: root.appendingPathComponent("mappings/b.json"))
        #expect(try eventually(server, "/b", is: "b"))
        #expect(text(try await server.send("GET", "/a").body) == "two, a bit longer")

        try FileManager.default.removeItem(at: mapping)
        #expect(try eventually(server, "/a") { $0.status == 404 })
        #expect(try await server.send("GET", "/a").response.statusCode == 404)
    }

    @Test func aBodyFileChangeIsPickedUp() async throws {
        let (server, root, stop) = try serveWatched([
            "mappings/f.json": #"{"request": {"url": "/f"}, "response": {"bodyFileName": "f.txt"}}"#,
            "__files/f.txt": "old",
        ])
        defer { stop() }
        try Data("new body".utf8).write(to: root.appendingPathComponent("__files/f.txt"))
        #expect(try eventually(server, "/f", is: "new body"))
    }

    @Test func apiMappingsSurviveReloadsAndResetDropsThem() async throws {
        let root = try makeTemporaryDirectory([
            "mappings/a.json": #"{"id": "6f1c5d52-5b2a-4c5e-9a51-2f7d0c1b9e01", "request": {"url": "/a"}, "response": {"body": "file"}}"#
        ])
        defer { try? FileManager.default.removeItem(at: root) }
        let engine = StubEngine(stubsDirectory: root)
        let server = try TestServer.start(backends: [StubAdminAPI(engine: engine, journal: RequestJournal()), engine])
        defer { server.stop() }
        let edited = #"{"request": {"url": "/a"}, "response": {"body": "edited"}}"#
        #expect(
            try await server.send("PUT", "/__admin/mappings/6f1c5d52-5b2a-4c5e-9a51-2f7d0c1b9e01", body: Data(edited.utf8)).response.statusCode == 200
        )
        engine.reloadFiles()
        #expect(text(try await server.send("GET", "/a").body) == "edited", "an admin edit wins over the file until reset")
        #expect(engine.mappings.count == 1)
        engine.resetMappings(in: try #require(server.router?.scopes.default))
        #expect(text(try await server.send("GET", "/a").body) == "file")
    }
}
