import Foundation
import HTTPServer
import JSON
import MockCore
import Stubs
import Testing
import UnderstudyTesting

@testable import Recording

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Record from a real upstream on loopback, stop it, replay the recording and compare.
@Suite struct RecordingTests {
    /// The upstream: a few answers of every kind, counting how often each path was asked.
    final class Upstream: Sendable {
        let server: TestServer
        let gzipped: [UInt8]
        let largeGzipped: [UInt8]
        /// Bodies past the large-body threshold the tests set: every byte value, and text that
        /// compresses to more than the threshold still.
        static let largeBinary: [UInt8] = {
            var state: UInt32 = 7
            return (0..<1_500_000).map { _ in
                state = state &* 1_103_515_245 &+ 12345
                return UInt8(truncatingIfNeeded: state >> 16)
            }
        }()
        static let largeText = Array(largeBinary.prefix(400_000).map { String($0, radix: 16) }.joined(separator: " ").utf8)
        static let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0xFF, 0xFE, 0x00, 0x10, 0x80]
        private let counter = Counter()

        init(tls: TLSServerSettings? = nil) throws {
            let gzipped = try Self.gzip(Array(#"{"compressed": true, "items": [1, 2, 3]}"#.utf8))
            self.gzipped = gzipped
            let largeGzipped = try Self.gzip(Self.largeText)
            self.largeGzipped = largeGzipped
            let counter = self.counter
            let backend = ClosureBackend(name: "upstream", mounts: ["/"]) { request in
                let asked = counter.next(request.path)
                switch request.path {
                case "/text":
                    return .response(
                        Response(
                            status: 200,
                            headers: [
                                "Content-Type": "application/json; charset=UTF-8", "X-Upstream": "yes",
                                "Set-Cookie": "SESSION=abc123; Path=/; HttpOnly",
                            ],
                            body: ResponseBody(#"{"hello": "world", "query": "\#(request.rawQuery ?? "")"}"#)))
                case "/image.png":
                    return .response(Response(status: 200, headers: ["Content-Type": "image/png"], body: ResponseBody(Self.png)))
                case "/gzip":
                    return .response(
                        Response(
                            status: 200, headers: ["Content-Type": "application/json", "Content-Encoding": "gzip"],
                            body: ResponseBody(gzipped)))
                case "/brotli":
                    // Not really brotli: the bytes only have to come back as they were sent.
                    return .response(
                        Response(
                            status: 200,
                            headers: [
                                "Content-Type": "text/plain", "Content-Encoding": "br",
                                "X-Accepted": request.headers["Accept-Encoding"] ?? "none",
                            ],
                            body: ResponseBody(Self.png)))
                case "/counter":
                    return .response(Response(status: 200, headers: ["Content-Type": "text/plain"], body: ResponseBody("visit \(asked)")))
                case "/form":
                    return .response(.text("got \(request.bodyText)", status: 201))
                case "/large.bin":
                    return .response(
                        Response(status: 200, headers: ["Content-Type": "application/octet-stream"], body: ResponseBody(Self.largeBinary)))
                case "/large-text":
                    // Sent in chunks (Transfer-Encoding: chunked), compressed.
                    return .deferred { reply in
                        reply.sendDribbled(
                            Response(
                                status: 200, headers: ["Content-Type": "text/plain", "Content-Encoding": "gzip"],
                                body: ResponseBody(largeGzipped)), chunks: 8, over: .milliseconds(40))
                    }
                case "/large-counter":
                    return .response(
                        Response(
                            status: 200, headers: ["Content-Type": "application/octet-stream"],
                            body: ResponseBody(Array(repeating: UInt8(asked), count: 300_000))))
                case "/slow":
                    return .deferred { reply in reply.send(.text("late"), after: .seconds(3)) }
                case "/events":
                    // An event stream that ends: CRLF and LF lines, a multi-line event, a comment, a heartbeat, an unfinished tail.
                    return .response(
                        Response(
                            status: 200, headers: ["Content-Type": "text/event-stream", "Cache-Control": "no-cache"],
                            body: ResponseBody(RecordingTests.events)))
                default:
                    return .response(.text("no such page", status: 404))
                }
            }
            server = try TestServer.start(backends: [backend]) { configuration in configuration.tls = tls }
        }

        var baseURL: String { server.server.baseURL }

        static func gzip(_ bytes: [UInt8]) throws -> [UInt8] {
            // From a file: a pipe both ways would block once the output fills its pipe.
            let input = FileManager.default.temporaryDirectory.appendingPathComponent("gzip-input-\(UUID().uuidString)")
            try Data(bytes).write(to: input)
            defer { try? FileManager.default.removeItem(at: input) }
            let process = ChildProcess()
            process.executableURL = URL(fileURLWithPath: "/bin/gzip")
            process.arguments = ["-c", "-n", input.path]
            let output = childPipe()
            process.standardOutput = output
            try ProcessEnvironment.run(process)
            let data = output.fileHandleForReading.readToEndOfStream()
            process.waitUntilExit(within: childProcessPatience)
            return Array(data)
        }
    }

    static let events =
        "retry: 1500\r\n\r\n: prices follow\nid: 1\nevent: price\ndata: {\"bid\": 101.5}\n\n:\n\nid: 2\ndata: line one\ndata:line two\n\n"
        + "data: never finished"

    final class Counter: Sendable {
        private let counts = Locked<[String: Int]>([:])
        func next(_ key: String) -> Int {
            counts.withLock {
                $0[key, default: 0] += 1
                return $0[key]!
            }
        }
    }

    static func temporaryDirectory() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("recording-\(UUID().uuidString)")
    }

    /// A recording server in front of `upstream`, writing into `directory`.
    static func recorder(
        _ upstream: String, _ directory: URL, options: RecordingOptions = RecordingOptions(),
        tls: TLSClientSettings = TLSClientSettings(), timeout: Duration = .seconds(30)
    ) throws -> (TestServer, RecordingProxy) {
        let proxy = RecordingProxy(timeout: timeout, tls: tls)
        proxy.start(targets: [RecordingTarget(baseURL: upstream)], store: RecordingStore(directory: directory, options: options))
        return (try TestServer.start(backends: [proxy]), proxy)
    }

    /// A server replaying the packs under `recorded` as recordings.
    static func replayer(_ recorded: URL) throws -> TestServer {
        try TestServer.start(backends: [StubEngine(stubsDirectory: recorded, name: "recordings", tier: .recordings)])
    }

    static func exchange(_ server: TestServer, _ request: String) throws -> RawHTTPConnection.Response {
        let connection = try server.connect()
        try connection.send(request)
        return try connection.readResponse()
    }

    @Test func recordStopTheUpstreamReplayTheSameBytes() async throws {
        let upstream = try Upstream()
        let recorded = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: recorded) }
        let (recorder, _) = try Self.recorder(upstream.baseURL, recorded.appendingPathComponent("run"))
        let requests = [
            "GET /text?a=1&key=SECRET HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer TOKEN42\r\nConnection: close\r\n\r\n",
            "GET /image.png HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
            "GET /gzip HTTP/1.1\r\nHost: x\r\nAccept-Encoding: gzip\r\nConnection: close\r\n\r\n",
            "POST /form HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 25\r\nConnection: close\r\n\r\nname=ann&password=hunter2",
            "GET /missing HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
            "GET /brotli HTTP/1.1\r\nHost: x\r\nAccept-Encoding: br, gzip;q=0.8, zstd\r\nConnection: close\r\n\r\n",
        ]
        let live = try requests.map { try Self.exchange(recorder, $0) }
        // The client got the upstream's answer as sent (compressed stays compressed).
        #expect(live[0].status == 200 && live[0].bodyText.contains("\"query\": \"a=1&key=SECRET\""))
        #expect(live[1].body == Upstream.png)
        #expect(live[2].header("Content-Encoding") == "gzip" && live[2].body == upstream.gzipped)
        #expect(live[3].status == 201 && live[4].status == 404)
        // Only codings a recording can decode are asked for.
        #expect(live[5].header("X-Accepted") == "gzip;q=0.8")
        recorder.stop()
        upstream.server.stop()

        let replayer = try Self.replayer(recorded)
        defer { replayer.stop() }
        let replayed = try requests.map { try Self.exchange(replayer, $0) }
        for (index, (original, replay)) in zip(live, replayed).enumerated() {
            #expect(replay.status == original.status, "request \(index)")
            // Every header the upstream chose comes back; those of the transfer are the server's own.
            for (name, value) in original.headers
            where !["date", "content-length", "connection", "set-cookie"].contains(name.lowercased()) && index != 2 {
                #expect(replay.header(name) == value, "request \(index): \(name)")
            }
        }
        #expect(replayed[1].body == live[1].body && replayed[4].body == live[4].body)
        // A coding that cannot be undone is stored as sent, header and bytes.
        #expect(replayed[5].body == Upstream.png && replayed[5].header("Content-Encoding") == "br")
        // A secret the upstream echoed back is replaced in the recording.
        #expect(replayed[0].bodyText == live[0].bodyText.replacingOccurrences(of: "SECRET", with: "REDACTED"))
        #expect(replayed[3].bodyText == "got name=ann&password=REDACTED")
        // Compressed answers are stored decoded, their Content-Encoding dropped.
        #expect(replayed[2].bodyText == #"{"compressed": true, "items": [1, 2, 3]}"# && replayed[2].header("Content-Encoding") == nil)
        #expect(replayed[0].header("X-Upstream") == "yes")
        // Redacted: another key matches; the cookie keeps its name, not its value.
        let otherKey = try Self.exchange(replayer, "GET /text?a=1&key=OTHER HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        #expect(otherKey.status == 200)
        #expect(otherKey.header("Set-Cookie") == "SESSION=REDACTED; Path=/; HttpOnly")
        let otherPassword = try Self.exchange(
            replayer,
            "POST /form HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 19\r\nConnection: close\r\n\r\nname=ann&password=x"
        )
        #expect(otherPassword.status == 201)
        #expect(try Self.exchange(replayer, "GET /text?a=2&key=SECRET HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").status == 404)
        // Nothing secret reached the disk; the binary body is a file of its own.
        var everything = ""
        for file in FileManager.default.enumerator(at: recorded, includingPropertiesForKeys: nil)!.compactMap({ $0 as? URL }) {
            everything += String(decoding: (try? Data(contentsOf: file)) ?? Data(), as: UTF8.self)
        }
        for secret in ["SECRET", "TOKEN42", "hunter2", "abc123"] { #expect(!everything.contains(secret), "\(secret)") }
        let files = try FileManager.default.contentsOfDirectory(atPath: recorded.appendingPathComponent("run/__files").path)
        #expect(files.contains { $0.hasPrefix("get-image-png-") && $0.hasSuffix(".png") })
    }

    /// An event stream is recorded as its events (an SSE stub), which replay in order with the
    /// upstream gone, as a browser's EventSource would have read them.
    @Test func anEventStreamIsRecordedAsItsEvents() async throws {
        let upstream = try Upstream()
        let recorded = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: recorded) }
        let (recorder, _) = try Self.recorder(upstream.baseURL, recorded.appendingPathComponent("run"))
        let request = "GET /events HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\nConnection: close\r\n\r\n"
        let live = try Self.exchange(recorder, request)
        #expect(live.bodyText == Self.events)
        recorder.stop()
        upstream.server.stop()

        let files = try FileManager.default.contentsOfDirectory(
            at: recorded.appendingPathComponent("run/mappings"), includingPropertiesForKeys: nil)
        let mapping = try JSONValue.parse(String(decoding: try Data(contentsOf: try #require(files.first)), as: UTF8.self))
        let expected = try JSONValue.parse(
            #"{"events": [{"retry": 1500}, {"comment": "prices follow", "id": "1", "event": "price", "data": "{\"bid\": 101.5}"}, "#
                + #"{"id": "2", "data": "line one\nline two"}]}"#)
        #expect(mapping["response"]?["eventStream"] == expected, "\(mapping)")
        #expect(mapping["response"]?["body"] == nil && mapping["response"]?["headers"]?["Content-Type"] == "text/event-stream")

        let replayer = try Self.replayer(recorded)
        defer { replayer.stop() }
        let (replayed, answer) = try await URLSession(configuration: .ephemeral).data(
            from: try #require(URL(string: replayer.server.baseURL + "/events")))
        #expect((answer as? HTTPURLResponse)?.statusCode == 200)
        #expect((answer as? HTTPURLResponse)?.value(forHTTPHeaderField: "Content-Type") == "text/event-stream")
        #expect(
            String(decoding: replayed, as: UTF8.self)
                == "retry: 1500\n\n: prices follow\nid: 1\nevent: price\ndata: {\"bid\": 101.5}\n\nid: 2\ndata: line one\ndata: line two\n\n")
    }

    @Test func aRequestAnsweredDifferentlyAgainIsAScenario() async throws {
        let upstream = try Upstream()
        let recorded = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: recorded) }
        let (recorder, _) = try Self.recorder(upstream.baseURL, recorded.appendingPathComponent("run"))
        let ask = "GET /counter HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
        #expect(try (1...3).map { _ in try Self.exchange(recorder, ask).bodyText } == ["visit 1", "visit 2", "visit 3"])
        recorder.stop()
        upstream.server.stop()
        let mappings = try FileManager.default.contentsOfDirectory(atPath: recorded.appendingPathComponent("run/mappings").path).sorted()
        #expect(mappings.count == 3)
        // Replayed in order; the last answer repeats. The admin API shows and restarts the scenario.
        let recordings = StubEngine(stubsDirectory: recorded, name: "recordings", tier: .recordings)
        let userStubs = StubEngine(stubsDirectory: recorded.appendingPathComponent("no-user-stubs"))
        let replayer = try TestServer.start(backends: [
            StubAdminAPI(engine: userStubs, journal: RequestJournal(), recordings: recordings), recordings,
        ])
        defer { replayer.stop() }
        #expect(try (1...4).map { _ in try Self.exchange(replayer, ask).bodyText } == ["visit 1", "visit 2", "visit 3", "visit 3"])
        let scenarios = try JSONValue.parse(Array(try await replayer.send("GET", "/__admin/scenarios").body))
        #expect(scenarios["scenarios"]?.arrayValue?.first?["state"]?.stringValue == "step-3")
        #expect(try await replayer.send("POST", "/__admin/scenarios/reset").response.statusCode == 200)
        #expect(try Self.exchange(replayer, ask).bodyText == "visit 1")
    }

    @Test func largeAnswersGoThroughFilesAndReplayByteForByte() async throws {
        let upstream = try Upstream()
        let recorded = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: recorded) }
        var options = RecordingOptions()
        options.largeBodyThreshold = 64 * 1024
        let (recorder, _) = try Self.recorder(upstream.baseURL, recorded.appendingPathComponent("run"), options: options)
        let requests = ["/large.bin", "/large-text", "/large-counter", "/large-counter"].map {
            "GET \($0) HTTP/1.1\r\nHost: x\r\nAccept-Encoding: gzip\r\nConnection: close\r\n\r\n"
        }
        let live = try requests.map { try Self.exchange(recorder, $0) }
        #expect(upstream.largeGzipped.count > options.largeBodyThreshold)
        #expect(live[0].body == Upstream.largeBinary && live[0].header("Content-Length") == "1500000")
        #expect(live[1].body == upstream.largeGzipped && live[1].header("Content-Encoding") == "gzip")
        #expect(live[2].body == Array(repeating: 1, count: 300_000) && live[3].body == Array(repeating: 2, count: 300_000))
        recorder.stop()
        upstream.server.stop()

        let files = recorded.appendingPathComponent("run/__files")
        let names = try FileManager.default.contentsOfDirectory(atPath: files.path)
        #expect(names.count == 4 && !names.contains { $0.hasPrefix(".") }, "\(names)")
        let replayer = try Self.replayer(recorded)
        defer { replayer.stop() }
        let replayed = try requests.map { try Self.exchange(replayer, $0) }
        #expect(replayed[0].body == Upstream.largeBinary)
        // Stored decoded, like small compressed answers.
        #expect(replayed[1].body == Upstream.largeText && replayed[1].header("Content-Encoding") == nil)
        // Two answers to one call: a scenario, replayed in order.
        #expect(replayed[2].body == live[2].body && replayed[3].body == live[3].body)
    }

    @Test func upstreamFailuresAnswer502Or504AndSaveNothing() async throws {
        let upstream = try Upstream()
        let recorded = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: recorded) }
        let (slow, _) = try Self.recorder(upstream.baseURL, recorded.appendingPathComponent("slow"), timeout: .seconds(1))
        defer { slow.stop() }
        let timedOut = try Self.exchange(slow, "GET /slow HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        #expect(timedOut.status == 504 && timedOut.bodyText.contains("Nothing was saved"))
        upstream.server.stop()
        let refused = try Self.exchange(slow, "GET /text HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        #expect(refused.status == 502)
        #expect(!FileManager.default.fileExists(atPath: recorded.appendingPathComponent("slow/mappings").path))
    }

    @Test func httpsUpstreamsAreVerifiedAgainstTrustedCertificates() async throws {
        let certificates = Self.temporaryDirectory()
        try FileManager.default.createDirectory(at: certificates, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: certificates) }
        let (certificate, key) = try SelfSignedCertificate.make(in: certificates)
        let upstream = try Upstream(tls: TLSServerSettings(certificateFile: certificate.path, privateKeyFile: key.path))
        defer { upstream.server.stop() }
        #expect(upstream.baseURL.hasPrefix("https://127.0.0.1:"))
        let ask = "GET /text?a=1 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"

        // Not trusted: the handshake fails, the client gets 502, nothing is saved.
        let untrusted = Self.temporaryDirectory()
        let (strict, _) = try Self.recorder(upstream.baseURL, untrusted)
        defer { strict.stop() }
        let refused = try Self.exchange(strict, ask)
        #expect(refused.status == 502 && refused.bodyText.contains("TLS"))
        #expect(!FileManager.default.fileExists(atPath: untrusted.path))

        // Trusted explicitly: recorded, and replayed byte for byte.
        let recorded = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: recorded) }
        let (trusting, _) = try Self.recorder(
            upstream.baseURL, recorded.appendingPathComponent("tls"),
            tls: TLSClientSettings(trustedCertificates: certificate.path))
        let live = try Self.exchange(trusting, ask)
        #expect(live.status == 200 && live.bodyText.contains("hello"))
        // A second request goes over the kept TLS connection.
        #expect(try Self.exchange(trusting, "GET /image.png HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").body == Upstream.png)
        trusting.stop()
        let replayer = try Self.replayer(recorded)
        defer { replayer.stop() }
        #expect(try Self.exchange(replayer, ask).body == live.body)

        // Verification off: any certificate.
        let (insecure, _) = try Self.recorder(
            upstream.baseURL, certificates.appendingPathComponent("insecure"),
            tls: TLSClientSettings(verifyCertificates: false))
        defer { insecure.stop() }
        #expect(try Self.exchange(insecure, ask).status == 200)
    }

    @Test func theAdminAPIRecordsLikeWireMocks() async throws {
        let upstream = try Upstream()
        defer { upstream.server.stop() }
        let recorded = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: recorded) }
        let replay = StubEngine(stubsDirectory: recorded, name: "recordings", tier: .recordings)
        let proxy = RecordingProxy()
        // As `serve` composes them: the recorder before the recordings.
        let server = try TestServer.start(backends: [RecordingAdminAPI(proxy: proxy, recordedDirectory: recorded, replay: replay), proxy, replay])
        defer { server.stop() }
        #expect(String(decoding: try await server.send("GET", "/__admin/recordings/status").body, as: UTF8.self) == #"{"status":"NeverStarted"}"#)
        let start = #"{"targetBaseUrl": "\#(upstream.baseURL)", "captureHeaders": {"Accept": {}}}"#
        #expect(try await server.send("POST", "/__admin/recordings/start", body: Data(start.utf8)).response.statusCode == 200)
        #expect(try await server.send("POST", "/__admin/recordings/start", body: Data(start.utf8)).response.statusCode == 409)
        let live = try await server.send("GET", "/text?x=1", headers: ["Accept": "application/json"])
        #expect(String(decoding: live.body, as: UTF8.self).contains("hello"))
        let snapshot = try JSONValue.parse(Array(try await server.send("POST", "/__admin/recordings/snapshot").body))
        #expect(snapshot["mappings"]?.arrayValue?.count == 1)
        // While recording, what was recorded already is asked of the upstream again.
        #expect(String(decoding: try await server.send("GET", "/counter").body, as: UTF8.self) == "visit 1")
        replay.reloadFiles()  // as the watcher does once the recording's files are written
        #expect(String(decoding: try await server.send("GET", "/counter").body, as: UTF8.self) == "visit 2")
        let stopped = try JSONValue.parse(Array(try await server.send("POST", "/__admin/recordings/stop").body))
        #expect(stopped["mappings"]?.arrayValue?.count == 3)
        let mapping = try #require(stopped["mappings"]?.arrayValue?.first)
        #expect(mapping["request"]?["headers"]?["Accept"]?["equalTo"]?.stringValue == "application/json")
        #expect(String(decoding: try await server.send("GET", "/__admin/recordings/status").body, as: UTF8.self) == #"{"status":"Stopped"}"#)
        #expect(try await server.send("POST", "/__admin/recordings/stop").response.statusCode == 400)
        // Persisted as a new pack and replayed at once, the upstream no longer asked.
        #expect(FileManager.default.fileExists(atPath: recorded.appendingPathComponent("recording-1/mappings").path))
        upstream.server.stop()
        let replayed = try await server.send("GET", "/text?x=1", headers: ["Accept": "application/json"])
        #expect(replayed.body == live.body)
        #expect(String(decoding: try await server.send("GET", "/counter").body, as: UTF8.self) == "visit 1")
    }

    @Test func onlyCodingsARecordingCanDecodeAreAskedFor() {
        #expect(ContentDecoding.decodable(acceptEncoding: "br, GZIP;q=0.8 ,\tdeflate, zstd") == "GZIP;q=0.8, deflate")
        #expect(ContentDecoding.decodable(acceptEncoding: "identity") == "identity")
        #expect(ContentDecoding.decodable(acceptEncoding: "br") == nil)
        #expect(ContentDecoding.decode(Array("not gzip".utf8), encoding: "gzip") == nil)
        #expect(ContentDecoding.decode([1, 2], encoding: "br") == nil)
    }

    @Test func harEntriesBecomeMappingsAndBadOnesAreSkipped() async throws {
        let har = #"""
            {"log": {"version": "1.2", "entries": [
              {"request": {"method": "GET", "url": "https://api.example.com/v1/items?page=2&api_key=K", "headers": [{"name": ":authority", "value": "api.example.com"}]},
               "response": {"status": 200, "headers": [{"name": "Content-Type", "value": "application/json"}, {"name": "Content-Encoding", "value": "gzip"}],
                            "content": {"mimeType": "application/json", "text": "{\"items\": [3, 4]}"}}},
              {"request": {"method": "POST", "url": "https://api.example.com/v1/login", "headers": [{"name": "Content-Type", "value": "application/json"}],
                           "postData": {"mimeType": "application/json", "text": "{\"user\": \"ann\", \"password\": \"secret\"}"}},
               "response": {"status": 200, "headers": [{"name": "Content-Type", "value": "image/png"}],
                            "content": {"mimeType": "image/png", "encoding": "base64", "text": "iVBORw0KGgo="}}},
              {"request": {"method": "BREW", "url": "https://api.example.com/pot"}, "response": {"status": 418}},
              {"request": {"method": "GET", "url": "https://api.example.com/failed"}, "response": {"status": 0}},
              {"request": {"method": "GET"}, "response": {"status": 200}}
            ]}}
            """#
        let (exchanges, _, skipped) = try HARImport.exchanges(Array(har.utf8))
        #expect(exchanges.count == 2)
        #expect(
            skipped.map(\.message) == [
                "log.entries[2]: method BREW is not supported; skipped",
                "log.entries[3]: the request got no response (status 0); skipped",
                "log.entries[4]: request.url is missing or not an absolute URL; skipped",
            ])
        let recorded = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: recorded) }
        let store = RecordingStore(directory: recorded.appendingPathComponent("har"), options: RecordingOptions())
        for exchange in exchanges { try store.record(exchange) }
        let replayer = try Self.replayer(recorded)
        defer { replayer.stop() }
        let items = try Self.exchange(replayer, "GET /v1/items?page=2&api_key=OTHER HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        #expect(items.bodyText == #"{"items": [3, 4]}"# && items.header("Content-Encoding") == nil)
        let body = #"{"password": "whatever", "user": "ann"}"#
        let login = try Self.exchange(
            replayer,
            "POST /v1/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)"
        )
        #expect(login.status == 200 && login.body == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        #expect(throws: HARImport.Problem.self) { try HARImport.exchanges(Array("{}".utf8)) }
    }
}

/// A self-signed certificate for 127.0.0.1, made with the openssl command.
enum SelfSignedCertificate {
    static func make(in directory: URL) throws -> (certificate: URL, key: URL) {
        let certificate = directory.appendingPathComponent("cert.pem")
        let key = directory.appendingPathComponent("key.pem")
        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key.path, "-out", certificate.path,
            "-days", "2", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
        ]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try ProcessEnvironment.run(process)
        process.waitUntilExit(within: childProcessPatience)
        guard process.terminationStatus == 0 else { throw CocoaError(.fileWriteUnknown) }
        return (certificate, key)
    }
}
