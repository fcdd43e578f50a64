import Foundation
import HTTPServer
import MockCore
import Testing
import UnderstudyTesting

@testable import Recording

/// Secrets an upstream echoes in places the redaction list does not name, and secrets in the
/// parts of a request that become file and scenario names (hostile-client audit).
@Suite struct RedactionTests {
    static let user = "ann", password = "Op3n-Sesame", bearer = "tok-9f8e7d6c", cookie = "c00kie-v4lue", queryToken = "a/b c+d9"
    static var basic: String { Data("\(user):\(password)".utf8).base64EncodedString() }

    /// Echoes what it was sent, decoded, where no redaction list looks.
    static func echoingUpstream() throws -> TestServer {
        let visits = Locked(0)
        let backend = ClosureBackend(name: "upstream", mounts: ["/"]) { request in
            let authorization = request.headers["Authorization"] ?? ""
            let decoded = MappingRecipe.basicCredentials(authorization).first ?? "-"
            let session = request.cookies.first { $0.name == "sid" }?.value ?? "-"
            let visit = visits.withLock {
                $0 += 1
                return $0
            }
            var headers: HTTPHeaders = ["Content-Type": "application/json", "X-Credentials": decoded, "X-Session": "is \(session)"]
            if let token = request.queryItems.first(where: { $0.name == "token" })?.value {
                headers.add("Location", "/done?t=" + MappingRecipe.percentEncoded(token))
            }
            let body =
                #"{"greeting": "hello \#(decoded)", "password": "\#(decoded.split(separator: ":").last ?? "")", "session": "\#(session)", "path": "\#(request.path)", "visit": \#(visit), "sent": \#(request.bodyText.isEmpty ? "null" : request.bodyText)}"#
            return .response(Response(status: 200, headers: headers, body: ResponseBody(body)))
        }
        return try TestServer.start(backends: [backend])
    }

    @Test func echoedSecretsNeverReachTheRecording() async throws {
        let upstream = try Self.echoingUpstream()
        let recorded = RecordingTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: recorded) }
        let (recorder, _) = try RecordingTests.recorder(upstream.server.baseURL, recorded.appendingPathComponent("run"))
        let json = #"{"note": "my token is \#(Self.bearer)", "count": 1}"#
        let requests = [
            "GET /greet HTTP/1.1\r\nHost: x\r\nAuthorization: Basic \(Self.basic)\r\nConnection: close\r\n\r\n",
            "GET /cookie HTTP/1.1\r\nHost: x\r\nCookie: sid=\(Self.cookie); lang=en\r\nConnection: close\r\n\r\n",
            "GET /next?token=a%2Fb%20c%2Bd9 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
            // The token as a path segment, asked twice with two answers: a scenario named after the path.
            "GET /session/\(Self.bearer)/profile HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(Self.bearer)\r\nConnection: close\r\n\r\n",
            "GET /session/\(Self.bearer)/profile HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(Self.bearer)\r\nConnection: close\r\n\r\n",
            "POST /notes HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(Self.bearer)\r\nContent-Type: application/json\r\nContent-Length: \(json.utf8.count)\r\nConnection: close\r\n\r\n\(json)",
        ]
        let live = try requests.map { try RecordingTests.exchange(recorder, $0) }
        // The client still gets the upstream's answer as it was.
        #expect(live[0].header("X-Credentials") == "\(Self.user):\(Self.password)")
        #expect(live[2].header("Location") == "/done?t=a%2Fb%20c%2Bd9")
        recorder.stop()
        upstream.stop()

        var everything = ""
        for file in FileManager.default.enumerator(at: recorded, includingPropertiesForKeys: nil)!.compactMap({ $0 as? URL }) {
            everything += file.path + "\n" + String(decoding: (try? Data(contentsOf: file)) ?? Data(), as: UTF8.self)
        }
        for secret in [
            Self.password, "\(Self.user):\(Self.password)", Self.basic, Self.bearer, Self.cookie, Self.queryToken,
            MappingRecipe.percentEncoded(Self.queryToken),
        ] {
            #expect(!everything.contains(secret), "\(secret) is in the recording")
        }
        #expect(everything.contains("REDACTED"))

        // The recording still replays: the path's token matches any token, the scenario plays on.
        let replayer = try RecordingTests.replayer(recorded)
        defer { replayer.stop() }
        let profile = "GET /session/other-token/profile HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
        let first = try RecordingTests.exchange(replayer, profile)
        let second = try RecordingTests.exchange(replayer, profile)
        #expect(first.status == 200 && first.bodyText.contains("\"visit\": 4"))
        #expect(second.status == 200 && second.bodyText.contains("\"visit\": 5"))
        #expect(try RecordingTests.exchange(replayer, requests[0]).header("X-Credentials") == "REDACTED")
        let notes = #"{"note": "my token is something-else", "count": 1}"#
        let posted = try RecordingTests.exchange(
            replayer,
            "POST /notes HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: \(notes.utf8.count)\r\nConnection: close\r\n\r\n\(notes)"
        )
        #expect(posted.status == 200)
    }

    @Test func theRecordedFromURLLosesItsUserInfo() {
        #expect(MappingRecipe.withoutUserInfo("https://ann:pw@api.example:8443/base?x=1") == "https://api.example:8443/base?x=1")
        #expect(MappingRecipe.withoutUserInfo("http://api.example/a@b") == "http://api.example/a@b")
    }
}
