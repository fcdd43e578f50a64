import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
import MockCore
import Stubs
import UnderstudyTesting

@Suite struct HotReloadTests {
    func text(_ data: Data) -> String { String(decoding: data, as: UTF8.self) }

    /// Asks until the answer is `expected`; the watcher looks every 50 ms here, so this waits
    /// for an event rather than for a fixed time. Gives up after 10 s.
    func eventually(_ server: TestServer, _ path: String, is expected: String) async throws -> Bool {
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline {
            if text(try await server.send("GET", path).body) == expected { return true }
            try await Task.sleep(for: .milliseconds(20))
        }
        return false
    }

    /// A server on `files` whose engine is watched every 50 ms; `stop` ends all of it.
    func serveWatched(_ files: [String: String]) throws -> (server: TestServer, root: URL, stop: () -> Void) {
        let root = try makeTemporaryDirectory(files)
        let engine = StubEngine(stubsDirectory: root)
        let watcher = StubWatcher(engine: engine, every: .milliseconds(50))
        let server = try TestServer.start(backends: [engine])
        return (server, root, {
            server.stop()
            watcher.stop()
            try? FileManager.default.removeItem(at: root)
        })
    }

    @Test func changedAddedAndRemovedFilesApplyWithoutARestart() async throws {
        let (server, root, stop) = try serveWatched(["mappings/a.json": #"{"request": {"url": "/a"}, "response": {"body": "one"}}"#])
        defer { stop() }
        #expect(text(try await server.send("GET", "/a").body) == "one")

        let mapping = root.appendingPathComponent("mappings/a.json")
        try Data(#"{"request": {"url": "/a"}, "response": {"body": "two, a bit longer"}}"#.utf8).write(to: mapping)
        #expect(try await eventually(server, "/a", is: "two, a bit longer"))

        // A broken edit is reported and the last good version stays live.
        try Data(#"{"request": {"url": "/a"}, "response": {"body": "three"#.utf8).write(to: mapping)
        try Data(#"{"request": {"url": "/b"}, "response": {"body": "b"}}"#.utf8).write(to: root.appendingPathComponent("mappings/b.json"))
        #expect(try await eventually(server, "/b", is: "b"))
        #expect(text(try await server.send("GET", "/a").body) == "two, a bit longer")

        try FileManager.default.removeItem(at: mapping)
        let deadline = ContinuousClock.now + .seconds(10)
        while try await server.send("GET", "/a").response.statusCode != 404, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(try await server.send("GET", "/a").response.statusCode == 404)
    }

    @Test func aBodyFileChangeIsPickedUp() async throws {
        let (server, root, stop) = try serveWatched([
            "mappings/f.json": #"{"request": {"url": "/f"}, "response": {"bodyFileName": "f.txt"}}"#,
            "__files/f.txt": "old",
        ])
        defer { stop() }
        try Data("new body".utf8).write(to: root.appendingPathComponent("__files/f.txt"))
        #expect(try await eventually(server, "/f", is: "new body"))
    }

    @Test func apiMappingsSurviveReloadsAndResetDropsThem() async throws {
        let root = try makeTemporaryDirectory(["mappings/a.json": #"{"id": "6f1c5d52-5b2a-4c5e-9a51-2f7d0c1b9e01", "request": {"url": "/a"}, "response": {"body": "file"}}"#])
        defer { try? FileManager.default.removeItem(at: root) }
        let engine = StubEngine(stubsDirectory: root)
        let server = try TestServer.start(backends: [StubAdminAPI(engine: engine, journal: RequestJournal()), engine])
        defer { server.stop() }
        let edited = #"{"request": {"url": "/a"}, "response": {"body": "edited"}}"#
        #expect(try await server.send("PUT", "/__admin/mappings/6f1c5d52-5b2a-4c5e-9a51-2f7d0c1b9e01", body: Data(edited.utf8)).response.statusCode == 200)
        engine.reloadFiles()
        #expect(text(try await server.send("GET", "/a").body) == "edited", "an admin edit wins over the file until reset")
        #expect(engine.mappings.count == 1)
        engine.reset(scope: nil)
        #expect(text(try await server.send("GET", "/a").body) == "file")
    }
}
