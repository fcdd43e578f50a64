import Foundation
import Testing
import UnderstudyTesting

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `understudy record`, `serve --replay-only` and `import-har` as a user runs them.
@Suite(.serialized) struct RecordCommandTests {
    static func port(of run: UnderstudyProcess) throws -> Int {
        try #require(Int(run.firstLine().split(separator: ":").last ?? ""))
    }

    static func get(_ session: URLSession, _ url: String) async throws -> (status: Int, body: String) {
        let (body, response) = try await session.data(from: URL(string: url)!)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, String(decoding: body, as: UTF8.self))
    }

    @Test func recordThroughTheProxyThenReplayWithTheBackendGone() async throws {
        let upstreamStubs = try makeTemporaryDirectory([
            "mappings/hello.json":
                #"{"request": {"urlPath": "/hello", "queryParameters": {"name": {"equalTo": "ann"}}}, "response": {"status": 200, "headers": {"Content-Type": "application/json"}, "body": "{\"greeting\": \"hello ann\"}"}}"#
        ])
        let replayStubs = try makeTemporaryDirectory([:])
        defer {
            try? FileManager.default.removeItem(at: upstreamStubs)
            try? FileManager.default.removeItem(at: replayStubs)
        }
        let upstream = try UnderstudyProcess(["serve", "--port", "0", "--stubs", upstreamStubs.path, "--threads", "1"])
        let upstreamPort = try Self.port(of: upstream)
        let recorder = try UnderstudyProcess([
            "record", "--port", "0", "--threads", "1", "--target", "http://127.0.0.1:\(upstreamPort)",
            "--out", replayStubs.appendingPathComponent("recorded/hello").path,
        ])
        let recorderPort = try Self.port(of: recorder)
        let session = URLSession(configuration: .ephemeral)
        defer { session.invalidateAndCancel() }
        let live = try await Self.get(session, "http://127.0.0.1:\(recorderPort)/hello?name=ann&key=my-api-key-1")
        #expect(live.status == 200 && live.body == #"{"greeting": "hello ann"}"#)
        recorder.signal(SIGTERM)
        let recorded = recorder.finish()
        #expect(recorded.status == 0)
        #expect(recorded.stderr.contains("recording http://127.0.0.1:\(upstreamPort)"))
        upstream.signal(SIGTERM)
        _ = upstream.finish()

        let replayer = try UnderstudyProcess(["serve", "--port", "0", "--stubs", replayStubs.path, "--replay-only", "--threads", "1"])
        let replayPort = try Self.port(of: replayer)
        defer {
            replayer.signal(SIGTERM)
            _ = replayer.finish()
        }
        // The API key was redacted: any key replays.
        let replayed = try await Self.get(session, "http://127.0.0.1:\(replayPort)/hello?name=ann&key=another-key")
        #expect(replayed.status == 200 && replayed.body == live.body)
        let missed = try await Self.get(session, "http://127.0.0.1:\(replayPort)/hello?name=bob&key=another-key")
        #expect(missed.status == 404 && missed.body.contains("get-hello-"), "near-misses name the recorded mapping")
    }

    /// A request a device sends its proxy: absolute form, for a real host.
    static func proxied(_ proxyPort: Int, _ url: String) throws -> RawHTTPConnection.Response {
        let connection = try RawHTTPConnection(host: "127.0.0.1", port: proxyPort)
        let authority = URL(string: url).map { "\($0.host ?? ""):\($0.port ?? 80)" } ?? ""
        try connection.send("GET \(url) HTTP/1.1\r\nHost: \(authority)\r\n\r\n")
        return try connection.readResponse()
    }

    @Test func aDeviceSessionThroughTheProxyBecomesAStubPackForItsHost() async throws {
        let upstreamStubs = try makeTemporaryDirectory([
            "mappings/hello.json": #"{"request": {"urlPath": "/hello"}, "response": {"status": 200, "body": "hello from the real host"}}"#
        ])
        let replayStubs = try makeTemporaryDirectory([:])
        defer {
            try? FileManager.default.removeItem(at: upstreamStubs)
            try? FileManager.default.removeItem(at: replayStubs)
        }
        let upstream = try UnderstudyProcess(["serve", "--port", "0", "--stubs", upstreamStubs.path, "--threads", "1"])
        let upstreamPort = try Self.port(of: upstream)
        let pack = replayStubs.appendingPathComponent("recorded/device")
        let recorder = try UnderstudyProcess(["record", "--port", "0", "--threads", "1", "--proxy", "--out", pack.path])
        let recorderPort = try Self.port(of: recorder)
        // "localhost" stands for a real host name: the device asks for it through its proxy.
        let live = try Self.proxied(recorderPort, "http://localhost:\(upstreamPort)/hello?name=ann")
        #expect(live.status == 200 && live.bodyText == "hello from the real host")
        // Only what a device meant for a real host is recorded.
        let direct = try RawHTTPConnection(host: "127.0.0.1", port: recorderPort)
        try direct.send("GET /hello HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        #expect(try direct.readResponse().status == 404)
        recorder.signal(SIGTERM)
        #expect(recorder.finish().status == 0)
        upstream.signal(SIGTERM)
        _ = upstream.finish()
        let files = try FileManager.default.contentsOfDirectory(atPath: pack.appendingPathComponent("mappings").path)
        #expect(files.count == 1)
        let mapping = try JSONSerialization.jsonObject(with: Data(contentsOf: pack.appendingPathComponent("mappings/\(try #require(files.first))")))
        let host = ((mapping as? [String: Any])?["request"] as? [String: Any])?["host"] as? [String: String]
        #expect(host == ["equalTo": "localhost"], "the mapping answers the host it was recorded from")

        // Replayed for that host only, with the real host gone.
        let replayer = try UnderstudyProcess(["serve", "--port", "0", "--stubs", replayStubs.path, "--replay-only", "--threads", "1"])
        let replayPort = try Self.port(of: replayer)
        defer {
            replayer.signal(SIGTERM)
            _ = replayer.finish()
        }
        let replayed = try Self.proxied(replayPort, "http://localhost:\(upstreamPort)/hello?name=ann")
        #expect(replayed.status == 200 && replayed.bodyText == live.bodyText)
        let otherHost = try Self.proxied(replayPort, "http://otherhost.test:\(upstreamPort)/hello?name=ann")
        #expect(otherHost.status == 502 && otherHost.bodyText.contains("does not answer for otherhost.test"))
    }

    @Test func theFallbackProxyRecordsWhatNothingElseAnswers() async throws {
        let upstreamStubs = try makeTemporaryDirectory([
            "mappings/live.json": #"{"request": {"url": "/live"}, "response": {"body": "from the backend"}}"#,
            "mappings/local.json": #"{"request": {"url": "/local.txt"}, "response": {"body": "the backend's file"}}"#,
        ])
        let stubs = try makeTemporaryDirectory(["__files/local.txt": "a local file"])
        defer {
            try? FileManager.default.removeItem(at: upstreamStubs)
            try? FileManager.default.removeItem(at: stubs)
        }
        let upstream = try UnderstudyProcess(["serve", "--port", "0", "--stubs", upstreamStubs.path, "--threads", "1"])
        let upstreamPort = try Self.port(of: upstream)
        let server = try UnderstudyProcess([
            "serve", "--port", "0", "--stubs", stubs.path, "--replay-only", "--threads", "1",
            "--fallback-proxy", "http://127.0.0.1:\(upstreamPort)",
        ])
        let port = try Self.port(of: server)
        defer {
            server.signal(SIGTERM)
            _ = server.finish()
        }
        let session = URLSession(configuration: .ephemeral)
        defer { session.invalidateAndCancel() }
        #expect(try await Self.get(session, "http://127.0.0.1:\(port)/local.txt").body == "a local file")
        #expect(try await Self.get(session, "http://127.0.0.1:\(port)/live").body == "from the backend")
        upstream.signal(SIGTERM)
        _ = upstream.finish()
        #expect(FileManager.default.fileExists(atPath: stubs.appendingPathComponent("recorded/fallback/mappings").path))
        // The recording is picked up by the watcher; until then the gone backend means 502.
        var replayed = (status: 0, body: "")
        for _ in 0..<50 where replayed.status != 200 {
            replayed = try await Self.get(session, "http://127.0.0.1:\(port)/live")
            if replayed.status != 200 { try await Task.sleep(for: .milliseconds(100)) }
        }
        #expect(replayed.status == 200 && replayed.body == "from the backend")
    }

    @Test func importHARReportsBadEntriesAndWritesTheRest() throws {
        let directory = try makeTemporaryDirectory([
            "capture.har": #"""
            {"log": {"version": "1.2", "entries": [
              {"request": {"method": "GET", "url": "https://example.com/items"},
               "response": {"status": 200, "content": {"mimeType": "text/plain", "text": "items"}}},
              {"request": {"method": "GET", "url": "items"}, "response": {"status": 200}}
            ]}}
            """#,
            "broken.har": "{\"log\": ",
        ])
        defer { try? FileManager.default.removeItem(at: directory) }
        let out = directory.appendingPathComponent("recorded/browser")
        let run = try UnderstudyProcess(["import-har", directory.appendingPathComponent("capture.har").path, "--out", out.path])
        #expect(run.firstLine() == "imported 1 of 2 entries into \(out.path) (mapping files written: 1)")
        let (status, errors) = run.finish()
        #expect(status == 0)
        #expect(errors.contains("capture.har: log.entries[1]: request.url is missing or not an absolute URL; skipped"))
        let mappings = try FileManager.default.contentsOfDirectory(atPath: out.appendingPathComponent("mappings").path)
        #expect(mappings.count == 1 && mappings[0].hasPrefix("get-items-"))

        let broken = try UnderstudyProcess(["import-har", directory.appendingPathComponent("broken.har").path, "--out", out.path])
        let (brokenStatus, brokenErrors) = broken.finish()
        #expect(brokenStatus == 1 && brokenErrors.contains("broken.har: not JSON: line 1"))
        #expect(!brokenErrors.contains("Usage"), "a bad file is not a usage error")
    }
}
