import Foundation
import Testing
import UnderstudyTesting

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Out of file descriptors (a low limit set in the child process, then many idle clients): the
/// stubs keep answering once descriptors are free again, a reload that could not list the files
/// keeps the mappings in use, and accept failures are logged a bounded number of times.
@Suite struct DescriptorExhaustionTests {
    @Test func stubsSurviveDescriptorExhaustionAndTheLogStaysBounded() async throws {
        let stubs = try makeTemporaryDirectory(["mappings/a.json": #"{"request": {"url": "/a"}, "response": {"body": "alive"}}"#])
        defer { try? FileManager.default.removeItem(at: stubs) }
        let started = ContinuousClock.now
        let process = ChildProcess()
        let stdout = childPipe()
        let stderr = childPipe()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", #"ulimit -n 64 && exec "$0" serve --port 0 --threads 1 --stubs "$1""#, understudyBinary.path, stubs.path]
        process.standardOutput = stdout
        process.standardError = stderr
        try ProcessEnvironment.run(process)
        var line: [UInt8] = []
        let listening = ContinuousClock.now + childProcessPatience
        while let byte = stdout.fileHandleForReading.readChunk(upTo: 1, before: listening)?.first, byte != 10 { line.append(byte) }
        let port = try #require(Int(String(decoding: line, as: UTF8.self).split(separator: ":").last ?? ""))

        func get(_ path: String) -> String? {
            guard let connection = try? RawHTTPConnection(host: "127.0.0.1", port: port, timeout: 5),
                (try? connection.send("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")) != nil,
                let response = try? connection.readResponse(), response.status == 200
            else { return nil }
            return response.bodyText
        }
        #expect(get("/a") == "alive")

        // Idle clients past the limit: the kernel completes their handshakes, accept() fails.
        var idle: [RawHTTPConnection] = []
        for _ in 0..<120 { if let connection = try? RawHTTPConnection(host: "127.0.0.1", port: port) { idle.append(connection) } }
        #expect(idle.count > 64)
        try await Task.sleep(for: .milliseconds(700))
        // A change while the watcher cannot even list the folder.
        try Data(#"{"request": {"url": "/b"}, "response": {"body": "added"}}"#.utf8).write(to: stubs.appendingPathComponent("mappings/b.json"))
        try await Task.sleep(for: .milliseconds(1_500))
        idle.removeAll()

        var answers: (a: String?, b: String?) = (nil, nil)
        let deadline = ContinuousClock.now + .seconds(20)
        while answers.a == nil || answers.b == nil, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(200))
            answers = (get("/a"), get("/b"))
        }
        #expect(answers.a == "alive", "the mappings in use stay when a reload cannot read the folder")
        #expect(answers.b == "added", "the change is picked up once descriptors are free")

        process.terminate()
        // Its log is read to its end before the wait: a log that filled the pipe would block its exit.
        let log = String(decoding: stderr.fileHandleForReading.readToEndOfStream(), as: UTF8.self)
        process.waitUntilExit(within: .seconds(30))
        let acceptLines = log.split(separator: "\n").filter { $0.contains("accepting connections failed") }
        #expect(!acceptLines.isEmpty, "accept failures are reported: \(log.prefix(2_000))")
        let seconds = Double((ContinuousClock.now - started).components.seconds)
        #expect(acceptLines.count <= Int(seconds / 5) + 2, "once per 5 s, not once per failure: \(acceptLines.count) in \(seconds) s")
        #expect(log.split(separator: "\n").count < 60, "\(log.prefix(4_000))")
        #expect(!log.contains("0 mappings live"))
    }

    /// A follower of the journal that goes away frees its connection at once, not when its
    /// long-poll times out a minute later.
    @Test(.enabled(if: FileManager.default.fileExists(atPath: "/proc/self/fd"), "counts descriptors in /proc"))
    func closedLongPollsFreeTheirDescriptors() async throws {
        let stubs = try makeTemporaryDirectory([:])
        defer { try? FileManager.default.removeItem(at: stubs) }
        let server = try UnderstudyProcess(["serve", "--port", "0", "--threads", "2", "--stubs", stubs.path])
        let port = try #require(Int(server.firstLine().split(separator: ":").last ?? ""))
        defer {
            server.signal(SIGTERM)
            _ = server.finish()
        }
        let descriptors = { (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(server.process.processIdentifier)/fd").count) ?? 0 }
        let idle = descriptors()
        var polls: [RawHTTPConnection] = []
        for _ in 0..<40 {
            let connection = try RawHTTPConnection(host: "127.0.0.1", port: port)
            try connection.send("GET /__admin/requests/live?timeout=60 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            polls.append(connection)
        }
        let deadline = ContinuousClock.now + .seconds(10)
        while descriptors() < idle + 40, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(50)) }
        #expect(descriptors() >= idle + 40, "every poll is waiting")
        polls.removeAll()
        let closedAt = ContinuousClock.now
        // Freed long before the polls' own timeout of 60 s (within a tick of 100 ms on an idle machine).
        while descriptors() > idle, ContinuousClock.now < closedAt + .seconds(30) { try await Task.sleep(for: .milliseconds(50)) }
        #expect(descriptors() <= idle, "descriptors still held 30 s after their clients closed")
    }
}
