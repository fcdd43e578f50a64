import Foundation
import Testing
import UnderstudyTesting

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What `serve` and `tail` print for a person at a terminal: the start-up summary under the
/// `listening on` line, one aligned line per request with `--verbose`, and `tail` following
/// another server's journal.
@Suite(.serialized) struct TerminalOutputTests {
    let mapping = #"{"name": "hello", "request": {"method": "GET", "urlPath": "/hello"}, "response": {"status": 200, "body": "hi"}}"#

    @Test func serveSummarisesWhatItLoadedAndLogsEachRequestWithVerbose() async throws {
        let stubs = try makeTemporaryDirectory(["mappings/hello.json": mapping, "__files/a.txt": "a"])
        defer { try? FileManager.default.removeItem(at: stubs) }
        let run = try UnderstudyProcess(["serve", "--port", "0", "--stubs", stubs.path, "--threads", "1", "--verbose"])
        let port = try #require(Int(run.firstLine().split(separator: ":").last ?? ""))
        #expect(run.firstLine() == "  dashboard   http://127.0.0.1:\(port)/__admin/ui/")
        #expect(run.firstLine() == "  stubs       1 mappings")

        let session = URLSession(configuration: .ephemeral)
        defer { session.invalidateAndCancel() }
        _ = try await session.data(from: URL(string: "http://127.0.0.1:\(port)/hello")!)
        _ = try await session.data(from: URL(string: "http://127.0.0.1:\(port)/nothing%1B%5B2J?x=1")!)
        let answered = run.errorLine(containing: "/hello")
        // Not a terminal: no colour codes. Time, method, status, target, who answered, duration.
        #expect(!answered.contains("\u{1B}"))
        #expect(
            answered.range(of: #"^\d\d:\d\d:\d\d\.\d\d\d  GET     200  /hello {43}stubs +\d+\.\d+ ms$"#, options: .regularExpression) != nil,
            "\(answered)")
        let unmatched = run.errorLine(containing: "/nothing")
        #expect(unmatched.contains("  GET     404  /nothing%1B%5B2J?x=1"))
        #expect(unmatched.contains(" unmatched "))
        run.signal(SIGTERM)
        #expect(run.finish().status == 0)
    }

    @Test func serveLogsNoRequestsWithoutVerbose() async throws {
        let stubs = try makeTemporaryDirectory(["mappings/hello.json": mapping])
        defer { try? FileManager.default.removeItem(at: stubs) }
        let run = try UnderstudyProcess(["serve", "--port", "0", "--stubs", stubs.path, "--threads", "1"])
        let port = try #require(Int(run.firstLine().split(separator: ":").last ?? ""))
        let session = URLSession(configuration: .ephemeral)
        defer { session.invalidateAndCancel() }
        _ = try await session.data(from: URL(string: "http://127.0.0.1:\(port)/hello")!)
        run.signal(SIGTERM)
        let (status, errors) = run.finish()
        #expect(status == 0)
        #expect(!errors.contains("/hello"))
    }

    @Test func tailFollowsAnotherServersRequests() async throws {
        let stubs = try makeTemporaryDirectory(["mappings/hello.json": mapping])
        defer { try? FileManager.default.removeItem(at: stubs) }
        let server = try UnderstudyProcess(["serve", "--port", "0", "--stubs", stubs.path, "--threads", "1"])
        let port = try #require(Int(server.firstLine().split(separator: ":").last ?? ""))
        let session = URLSession(configuration: .ephemeral)
        defer { session.invalidateAndCancel() }
        _ = try await session.data(from: URL(string: "http://127.0.0.1:\(port)/hello?before=1")!)

        let tail = try UnderstudyProcess(["tail", "--url", "http://127.0.0.1:\(port)", "--last", "5"])
        // What the journal held, then what comes while it follows, in another scope too.
        #expect(tail.errorLine(containing: "/hello?before=1").contains("  GET     200  /hello?before=1"))
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)/hello?after=1")!)
        request.setValue("ci-7", forHTTPHeaderField: "X-Understudy-Scope")
        _ = try await session.data(for: request)
        let followed = tail.errorLine(containing: "/hello?after=1")
        #expect(followed.contains(" stubs "))
        #expect(followed.hasSuffix(" ms  scope ci-7"))
        // A WebSocket's messages too, one line each.
        let socket = try TestWebSocket(try #require(URL(string: "ws://127.0.0.1:\(port)/chat")))
        try socket.send(text: "hi tail")
        #expect(tail.errorLine(containing: "\"hi tail\"").contains("  ws  received  \"hi tail\"  channel "))
        tail.signal(SIGTERM)
        #expect(tail.finish().status == 0)
        server.signal(SIGTERM)
        #expect(server.finish().status == 0)
    }

    @Test func tailRefusesAURLItCannotFollow() throws {
        let run = try UnderstudyProcess(["tail", "--url", "ftp://example.com"])
        let (status, errors) = run.finish()
        #expect(status != 0)
        #expect(errors.contains("--url must be an http:// or https:// URL"))
    }

    /// `understudy health` (the container image's health check): 0 while the server answers 200,
    /// 1 with the reason when nothing listens or the answer is not 200.
    @Test func healthExitsZeroOnlyWhileTheServerIsHealthy() async throws {
        let stubs = try makeTemporaryDirectory(["mappings/hello.json": mapping])
        defer { try? FileManager.default.removeItem(at: stubs) }
        let server = try UnderstudyProcess(["serve", "--port", "0", "--stubs", stubs.path, "--threads", "1"])
        let port = try #require(Int(server.firstLine().split(separator: ":").last ?? ""))
        #expect(try UnderstudyProcess(["health", "--url", "http://127.0.0.1:\(port)"]).finish().status == 0)
        // A server that answers, but not 200 (here: no such path under it).
        let unhealthy = try UnderstudyProcess(["health", "--url", "http://127.0.0.1:\(port)/nothing-here"]).finish()
        #expect(unhealthy.status == 1)
        #expect(unhealthy.stderr.contains("answered 404"), "\(unhealthy.stderr)")
        server.signal(SIGTERM)
        #expect(server.finish().status == 0)
        let gone = try UnderstudyProcess(["health", "--url", "http://127.0.0.1:\(port)", "--timeout", "2"]).finish()
        #expect(gone.status == 1)
        #expect(gone.stderr.contains("cannot reach http://127.0.0.1:\(port)/__admin/health"), "\(gone.stderr)")
    }

    #if os(Linux)
    /// Long work counts on a terminal (util-linux's `script` gives the command one) and prints only
    /// its summary into a pipe.
    @Test func importHARShowsProgressOnATerminalOnly() throws {
        let entries = (0..<300).map {
            #"{"request": {"method": "GET", "url": "http://api.example.com/items/\#($0)", "headers": [], "queryString": []}, "response": {"status": 200, "headers": [], "content": {"mimeType": "text/plain", "text": "item \#($0)"}}}"#
        }
        let folder = try makeTemporaryDirectory([
            "big.har": #"{"log": {"version": "1.2", "creator": {"name": "t", "version": "1"}, "entries": ["# + entries.joined(separator: ",") + "]}}"
        ])
        defer { try? FileManager.default.removeItem(at: folder) }
        func run(_ executable: String, _ arguments: [String]) throws -> String {
            let process = ChildProcess()
            let output = childPipe()
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = arguments
            process.standardOutput = output
            process.standardError = output
            try ProcessEnvironment.run(process)
            let text = String(decoding: output.fileHandleForReading.readToEndOfStream(), as: UTF8.self)
            process.waitUntilExit(within: childProcessPatience)
            return text
        }
        let har = folder.appendingPathComponent("big.har").path
        let onTerminal = try run("/usr/bin/script", ["-qec", "\(understudyBinary.path) import-har \(har) --out \(folder.path)/tty", "/dev/null"])
        #expect(onTerminal.contains("\r\u{1B}[Kimporting 1 of 300 entries"), "\(onTerminal.prefix(200))")
        #expect(onTerminal.contains("imported 300 of 300 entries"))
        let piped = try run(understudyBinary.path, ["import-har", har, "--out", folder.path + "/piped"])
        #expect(!piped.contains("importing") && !piped.contains("\u{1B}"))
        #expect(piped.contains("imported 300 of 300 entries"))
    }
    #endif
}
