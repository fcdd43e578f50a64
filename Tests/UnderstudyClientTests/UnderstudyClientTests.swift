import Foundation
import Testing
import UnderstudyClient
import UnderstudyTesting

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A real `understudy serve` for one test, on a free port, with a shared stub file, a body file and
/// a host name device mode maps to the stubs; stopped with SIGTERM at the end.
func withUnderstudy(files: [String: String] = [:], _ body: (Understudy) async throws -> Void) async throws {
    let stubs = try makeTemporaryDirectory(
        [
            "mappings/shared.json": #"{"request": {"method": "GET", "urlPath": "/shared"}, "response": {"body": "for everyone"}}"#,
            "__files/catalog.json": #"{"items": 3}"#,
            "hosts.json": #"{"api.example.test": "stubs"}"#,
        ].merging(files) { _, given in given })
    defer { try? FileManager.default.removeItem(at: stubs) }
    let process = try UnderstudyProcess([
        "serve", "--port", "0", "--threads", "2", "--no-watch", "--stubs", stubs.path,
        "--ca-dir", stubs.appendingPathComponent("ca").path,
    ])
    defer {
        process.signal(SIGTERM)
        _ = process.finish()
    }
    let port = try #require(Int(process.firstLine().split(separator: ":").last ?? ""))
    let understudy = try Understudy("http://127.0.0.1:\(port)")
    try await understudy.waitUntilHealthy(timeout: .seconds(30))
    try await body(understudy)
}

/// GET through `session`: status and body text.
func get(_ url: URL, _ session: URLSession = URLSession(configuration: .ephemeral), headers: [String: String] = [:]) async throws
    -> (status: Int, body: String)
{
    var request = URLRequest(url: url)
    for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
    let (data, response) = try await session.data(for: request)
    return ((response as? HTTPURLResponse)?.statusCode ?? 0, String(decoding: data, as: UTF8.self))
}

@Suite struct UnderstudyClientTests {
    @Test func aScopesStubsAnswerInThatScopeOnlyByPrefixHeaderOrSession() async throws {
        try await withUnderstudy { understudy in
            let mine = try await understudy.makeScope()
            let other = try await understudy.makeScope()
            let id = try await mine.stub(
                .get("/greeting").withQueryParameter("lang", .equalTo("fr"))
                    .willReturn(.text("bonjour", status: 201).withHeader("X-Kind", "greeting")))

            let byPrefix = try await get(mine.url("/greeting?lang=fr"))
            #expect(byPrefix.status == 201 && byPrefix.body == "bonjour")
            let session = URLSession(configuration: mine.sessionConfiguration())
            #expect(
                try await get(
                    understudy.url.appendingPathComponent("greeting").appending(queryItems: [.init(name: "lang", value: "fr")]),
                    session
                ).body == "bonjour")
            #expect(
                try await get(understudy.url.appendingPathComponent("greeting"), headers: mine.headers).status == 404,
                "the query parameter is part of the stub")
            #expect(try await get(other.url("/greeting?lang=fr")).status == 404, "another scope does not see it")
            #expect(try await get(understudy.defaultScope.url("/greeting?lang=fr")).status == 404, "nor does default")
            #expect(try await get(other.url("/shared")).body == "for everyone", "the mapping files are shared")

            #expect(try await mine.stubs().contains { $0["id"]?.stringValue == id.uuidString.lowercased() })
            try await mine.removeStub(id)
            #expect(try await get(mine.url("/greeting?lang=fr")).status == 404)
        }
    }

    @Test func scopesRunSideBySideKeepTheirStubsScenariosAndJournalsApart() async throws {
        try await withUnderstudy { understudy in
            func run(_ number: Int) async throws -> (String, Int, String?) {
                let scope = try await understudy.makeScope(for: "worker\(number)")
                try await scope.stub(.post("/cart").willReturn(.status(204)).inScenario("cart", willSetStateTo: "full"))
                try await scope.stub(.get("/cart").willReturn(.json(["worker": .int(number)])))
                for _ in 0..<number { _ = try await get(scope.url("/cart")) }
                var post = URLRequest(url: scope.url("/cart"))
                post.httpMethod = "POST"
                _ = try await URLSession(configuration: .ephemeral).data(for: post)
                let body = try await get(scope.url("/cart")).body
                try await scope.verify(.get("/cart"), .exactly(number + 1))
                try await scope.verify(.post("/cart"), .once)
                return (body, try await scope.count(.anyRequest), try await scope.scenarioState("cart"))
            }
            async let one = run(1)
            async let two = run(2)
            async let three = run(3)
            async let four = run(4)
            let results = try await [one, two, three, four]
            for (index, (body, count, state)) in results.enumerated() {
                let number = index + 1
                #expect(try JSONValue(parsing: body) == ["worker": .int(number)])
                #expect(count == number + 2)
                #expect(state == "full")
            }
            #expect(try await understudy.defaultScope.scenarioState("cart") == nil, "default never saw the scenario")
        }
    }

    @Test func aFailedVerificationNamesTheClosestRequestsAndWhyEachMissed() async throws {
        try await withUnderstudy { understudy in
            let scope = try await understudy.makeScope()
            _ = try await get(scope.url("/orderz?page=2"))
            var post = URLRequest(url: scope.url("/orders"))
            post.httpMethod = "POST"
            _ = try await URLSession(configuration: .ephemeral).data(for: post)

            let pattern = RequestPattern.get("/orders").withHeader("Accept", .contains("json"))
            let failure = try #require(await scope.verification(of: pattern, .once))
            #expect(failure.received == 0 && failure.expected == .once && failure.scope == scope.name)
            let message = failure.description
            #expect(
                message.hasPrefix(
                    "Expected exactly 1 request matching GET /orders (header Accept contains \"json\") in scope \"\(scope.name)\", but received 0."))
            #expect(message.contains("The closest requests received:\n  1. "))
            #expect(message.contains("GET /orderz?page=2") && message.contains("POST /orders"))
            #expect(failure.nearMisses.count == 2 && failure.nearMisses.allSatisfy { !$0.misses.isEmpty })
            #expect(failure.nearMisses.flatMap(\.misses).contains { $0.contains("/orderz") }, "each miss says what differed")
            #expect(failure.localizedDescription == message, "XCTest shows the same text")

            // Too many: the count, without near misses.
            let tooMany = try #require(await scope.verification(of: .anyRequest, .atMost(1)))
            #expect(
                tooMany.description.hasPrefix("Expected at most 1 request matching any method any URL in scope \"\(scope.name)\", but received 2."))
            try await scope.verify(.post("/orders"), .between(1, 2))
            #expect(try await scope.find(.get(.pathMatching("/order.*"))).map(\.url) == ["/orderz?page=2"])
            let empty = try await understudy.makeScope()
            let nothing = try #require(await empty.verification(of: .get("/orders")))
            #expect(nothing.description.contains("No request in this scope came close"))
            #expect(try await scope.verification(of: .post("/orders"), .once) == nil)

            // In a test, verify records the failure at its own line and the test goes on.
            let line = #line + 2
            try await withKnownIssue {
                try await empty.verify(.get("/orders"))
            } matching: { issue in
                issue.sourceLocation?.line == line && issue.sourceLocation?.fileID == #fileID
                    && issue.comments.contains { $0.rawValue.hasPrefix("Expected at least 1 request matching GET /orders in scope") }
            }
        }
    }

    @Test func unmatchedRequestsComeWithTheStubsClosestToThem() async throws {
        try await withUnderstudy { understudy in
            let scope = try await understudy.makeScope()
            try await scope.stub(.get("/api/users").willReturn(.json(["users": []])))
            _ = try await get(scope.url("/api/user"))
            _ = try await get(scope.url("/api/users"))
            let unmatched = try await scope.unmatchedRequests()
            #expect(unmatched.map(\.request.url) == ["/api/user"])
            let closest = try #require(unmatched.first?.nearMisses.first)
            #expect(closest.stub?["request"]?["urlPath"] == "/api/users")
            #expect(closest.misses.contains { $0.contains("/api/users") }, "\(closest.misses)")
            let events = try await scope.requests()
            #expect(events.map(\.request.url) == ["/api/users", "/api/user"], "newest first")
            #expect(events.map(\.wasMatched) == [true, false] && events.first?.status == 200 && events.first?.servedBy != nil)
            try await scope.clearRequests()
            #expect(try await scope.requests().isEmpty)
        }
    }

    @Test func scenariosMoveAndResetAndAScopeResetForgetsItsStubs() async throws {
        try await withUnderstudy { understudy in
            let scope = try await understudy.makeScope()
            try await scope.stub(.get("/door").willReturn(.text("closed")).inScenario("door", whenState: Scenario.started))
            try await scope.stub(.post("/door").willReturn(.status(204)).inScenario("door", willSetStateTo: "open"))
            try await scope.stub(.get("/door").willReturn(.text("open")).inScenario("door", whenState: "open"))
            #expect(try await get(scope.url("/door")).body == "closed")
            try await scope.setScenarioState("door", to: "open")
            #expect(try await get(scope.url("/door")).body == "open")
            #expect(try await scope.scenarioState("door") == "open")
            try await scope.resetScenarios()
            #expect(try await scope.scenarioState("door") == Scenario.started)

            try await scope.reset()
            #expect(try await scope.requests().isEmpty, "its journal is emptied")
            #expect(try await get(scope.url("/door")).status == 404, "and its own stubs are gone")
            #expect(try await get(scope.url("/shared")).body == "for everyone", "the shared ones stay")
            let unknown = try await #require(throws: UnderstudyError.self) { try await scope.setScenarioState("nothing", to: "x") }
            guard case .server(_, let status, let message) = unknown else {
                Issue.record("\(unknown)")
                return
            }
            #expect(status == 404 && message.contains("nothing"))
        }
    }

    @Test func responsesFromFilesBytesTemplatesRawJSONAndDelays() async throws {
        try await withUnderstudy { understudy in
            let scope = try await understudy.makeScope()
            try await scope.stub(.get("/catalog").willReturn(.file("catalog.json").withHeader("Content-Type", "application/json")))
            try await understudy.putFile("greetings/hi.txt", Data("hi from a file".utf8))
            try await scope.stub(.get("/hi").willReturn(.file("greetings/hi.txt")))
            try await scope.stub(.get("/bytes").willReturn(.data(Data([0, 1, 2, 255]))))
            try await scope.stub(.get(.pathTemplate("/users/{id}")).willReturn(.text("user {{request.path.id}}").templated()))
            try await scope.stub(json: #"{"request": {"urlPath": "/raw", "method": "PUT"}, "response": {"status": 202, "body": "raw"}}"#)
            try await scope.stub(.get("/slow").willReturn(.text("late").delayed(by: .milliseconds(300))))
            try await scope.stub(.get("/broken").willReturn(.fault(.connectionResetByPeer)))

            #expect(try await get(scope.url("/catalog")).body == #"{"items": 3}"#)
            #expect(try await get(scope.url("/hi")).body == "hi from a file")
            let (bytes, _) = try await URLSession(configuration: .ephemeral).data(from: scope.url("/bytes"))
            #expect(bytes == Data([0, 1, 2, 255]))
            #expect(try await get(scope.url("/users/42")).body == "user 42")
            var put = URLRequest(url: scope.url("/raw"))
            put.httpMethod = "PUT"
            let (_, raw) = try await URLSession(configuration: .ephemeral).data(for: put)
            #expect((raw as? HTTPURLResponse)?.statusCode == 202)
            let began = ContinuousClock.now
            #expect(try await get(scope.url("/slow")).body == "late")
            #expect(ContinuousClock.now - began >= .milliseconds(300))
            await #expect(throws: (any Error).self) { _ = try await get(scope.url("/broken")) }
            try await understudy.deleteFile("greetings/hi.txt")
            try await scope.stub(.get("/gone").willReturn(.file("greetings/hi.txt")))
            #expect(try await get(scope.url("/gone")).status == 500, "a stub of a file that is not there")
        }
    }

    /// A scope's own body files: read by its stubs before the shared ones, put before or after the
    /// stub, never on disk nor seen by another scope, gone with the scope's reset.
    @Test func aScopesBodyFilesAreItsOwn() async throws {
        try await withUnderstudy(files: ["__files/menu.json": #"{"shared": true}"#]) { understudy in
            let mine = try await understudy.makeScope()
            let other = try await understudy.makeScope()
            try await mine.stub(.get("/menu").willReturn(.file("menu.json")))
            try await other.stub(.get("/menu").willReturn(.file("menu.json")))
            #expect(try await get(mine.url("/menu")).body == #"{"shared": true}"#, "the shared file until the scope has its own")
            try await mine.putFile("menu.json", Data(#"{"mine": true}"#.utf8))
            try await mine.putFile("late/hi.txt", Data("hi".utf8))
            try await mine.stub(.get("/hi").willReturn(.file("/late/hi.txt")))
            #expect(try await get(mine.url("/menu")).body == #"{"mine": true}"#, "a stub added before the file reads it")
            #expect(try await get(mine.url("/hi")).body == "hi")
            #expect(try await get(other.url("/menu")).body == #"{"shared": true}"#, "another scope keeps the shared one")
            #expect(try await get(other.url("/hi")).status == 404)
            // Not in the shared folder: its list has no such file; the scope's list has both.
            let shared = try await get(understudy.url.appendingPathComponent("__admin/files")).body
            #expect(shared.contains("menu.json") && !shared.contains("late/hi.txt"), "\(shared)")
            #expect(try await get(mine.url("/__admin/files")).body.contains("late/hi.txt"))
            try await mine.deleteFile("late/hi.txt")
            #expect(try await get(mine.url("/hi")).status == 500, "a stub of a file that is not there")
            let refused = try await #require(throws: UnderstudyError.self) { try await mine.deleteFile("menu-never.json") }
            guard case .server(_, let status, _) = refused else {
                Issue.record("\(refused)")
                return
            }
            #expect(status == 404)
            try await mine.reset()
            try await mine.stub(.get("/menu").willReturn(.file("menu.json")))
            #expect(try await get(mine.url("/menu")).body == #"{"shared": true}"#, "a reset forgets the scope's files")
        }
    }

    @Test func errorsCarryTheServersMessageAndBadNamesAreRefusedBeforeSending() async throws {
        try await withUnderstudy { understudy in
            let scope = try await understudy.makeScope()
            let refused = try await #require(throws: UnderstudyError.self) {
                try await scope.stub(json: #"{"request": {"urlPath": "/x", "headers": {"A": {"nonsense": "1"}}}, "response": {}}"#)
            }
            guard case .server(let call, let status, let message) = refused else {
                Issue.record("\(refused)")
                return
            }
            #expect(call == "POST /__admin/mappings" && (400..<500).contains(status) && message.contains("nonsense"), "\(refused)")
            await #expect(throws: UnderstudyError.self) { try await scope.stub(json: "{not json") }
            #expect(throws: UnderstudyError.invalidScopeName("a/b", reason: "only letters, digits, '.', '_' and '-' are allowed")) {
                try understudy.scope("a/b")
            }
            #expect(throws: UnderstudyError.self) { try understudy.scope(String(repeating: "x", count: 65)) }
            #expect(throws: UnderstudyError.self) { try understudy.scope("-lead") }
            #expect(try understudy.scope("ci-3.worker_1").name == "ci-3.worker_1")
        }
        // Nothing listening: unreachable, and health gives up after its timeout with the reason.
        let nobody = try Understudy("http://127.0.0.1:9")
        let gaveUp = try await #require(throws: UnderstudyError.self) { try await nobody.waitUntilHealthy(timeout: .milliseconds(300)) }
        guard case .notHealthy(_, _, let last) = gaveUp else {
            Issue.record("\(gaveUp)")
            return
        }
        #expect(last.contains("not reachable"))
        #expect(throws: UnderstudyError.invalidURL("ftp://x")) { try Understudy("ftp://x") }
    }

    @Test func aScopeIsNamedAfterItsTestUniquelyAndValidly() async throws {
        try await withUnderstudy { understudy in
            let first = try await understudy.makeScope()
            let second = try await understudy.makeScope()
            // Cut to 64 with its 9-character suffix.
            #expect(first.name.hasPrefix("UnderstudyClientTests.aScopeIsNamedAfterItsTestUniquely-"), "\(first.name)")
            #expect(first.name != second.name && first.name.count == 64)
            let xctest = try await understudy.makeScope(for: "-[CartTests testCheckout]")
            #expect(xctest.name.hasPrefix("CartTests.testCheckout-") && xctest.name.count == "CartTests.testCheckout-".count + 8)
            let linux = try await understudy.makeScope(for: "CartTests.testCheckout", file: "MyAppTests/CartTests.swift")
            #expect(linux.name.hasPrefix("CartTests.testCheckout-"), "XCTest's name on Linux, the class not doubled: \(linux.name)")
            let odd = try await understudy.makeScope(for: "test ü(with:)", file: "App/.Weird File!.swift")
            #expect(odd.name.hasPrefix("Weird-File-.test-") && odd.name.count == "Weird-File-.test-".count + 8, "\(odd.name)")
            let long = try await understudy.makeScope(for: String(repeating: "long", count: 40), file: "X.swift")
            #expect(long.name.count == 64)
            #expect(try await understudy.scopeNames().contains(odd.name), "made on the server at once")
            try await odd.delete()
            #expect(try await !understudy.scopeNames().contains(odd.name))
            try await understudy.deleteAllScopes()
            #expect(try await understudy.scopeNames() == ["default"])
        }
    }

    @Test func theLaunchEnvironmentCarriesTheScopeToTheApp() async throws {
        try await withUnderstudy { understudy in
            let scope = try await understudy.makeScope()
            let environment = scope.launchEnvironment
            #expect(UnderstudyLaunchEnvironment.scope(environment) == scope.name)
            let base = try #require(UnderstudyLaunchEnvironment.baseURL(environment))
            #expect(base == scope.baseURL && base.path == "/__scope/" + scope.name)
            #expect(UnderstudyLaunchEnvironment.baseURL([:]) == nil)
            try await scope.stub(.get("/hello").willReturn(.text("app")))
            #expect(try await get(base.appendingPathComponent("hello")).body == "app", "what the app does with it")
            #expect(try Understudy.fromEnvironment(environment).url == understudy.url)
            #expect(try Understudy.fromEnvironment([:]).url.absoluteString == Understudy.defaultURL)
        }
    }

    @Test func networkConditionsAndTheCAAndAScopesProxyPort() async throws {
        try await withUnderstudy { understudy in
            let slow = try await understudy.makeScope()
            let quick = try await understudy.makeScope()
            for scope in [slow, quick] { try await scope.stub(.get("/ping").willReturn(.text("pong"))) }
            try await slow.setNetwork(NetworkConditions(latencyMs: 300, downKbps: 780))
            #expect(try await slow.network() == NetworkConditions(latencyMs: 300, downKbps: 780))
            let began = ContinuousClock.now
            #expect(try await get(slow.url("/ping")).body == "pong")
            #expect(ContinuousClock.now - began >= .milliseconds(300))
            #expect(try await quick.network() == nil)
            try await slow.setNetwork(.profile(.threeG))
            #expect(try await slow.network()?.downKbps == 780)
            try await slow.clearNetwork()
            #expect(try await slow.network() == nil)

            let der = try await understudy.caCertificate()
            #expect(der.first == 0x30 && der.count > 300, "a DER certificate")

            let proxy = try await quick.openProxy()
            #expect(proxy.port > 0 && proxy.pac.absoluteString.hasSuffix("/proxy.pac?scope=" + quick.name))
            #expect(try await quick.openProxy() == proxy, "one port per scope")
            #if canImport(Darwin)
            // Apple's URLSession honours connectionProxyDictionary: a mapped host, unchanged URL, in the scope.
            let session = URLSession(configuration: try await quick.proxiedSessionConfiguration())
            #expect(try await get(URL(string: "http://api.example.test/ping")!, session).body == "pong")
            try await quick.verify(.get("/ping"), .once)
            #else
            let configuration = try await quick.proxiedSessionConfiguration()
            #expect(configuration.connectionProxyDictionary?["HTTPPort"] as? Int == proxy.port)
            #endif
        }
    }

    @Test func recordingARealBackendGivesItsMappings() async throws {
        try await withUnderstudy { backend in
            try await backend.defaultScope.stub(.get("/real").willReturn(.text("from the backend")))
            try await withUnderstudy { understudy in
                try await understudy.startRecording(from: backend.url)
                #expect(try await get(understudy.url.appendingPathComponent("real")).body == "from the backend")
                let mappings = try await understudy.stopRecording()
                #expect(mappings.count == 1 && mappings.first?["request"]?["urlPath"] == "/real", "\(mappings)")
                #expect(try await get(understudy.url.appendingPathComponent("real")).body == "from the backend", "replayed")
            }
        }
    }
}

@Suite struct MessageStubClientTests {
    /// `url` with the ws scheme.
    static func webSocketURL(_ url: URL) throws -> URL {
        var components = try #require(URLComponents(url: url, resolvingAgainstBaseURL: false))
        components.scheme = "ws"
        return try #require(components.url)
    }

    @Test func aMessageStubAnswersTheAppsWebSocketAndTheTestPushesWaitsAndVerifies() async throws {
        try await withUnderstudy { understudy in
            let scope = try await understudy.makeScope()
            let other = try await understudy.makeScope()
            try await scope.stub(MessageStub(on: .get("/chat"), when: .matches("hello.*"), reply: [.text("You said: {{message.body}}")]))
            // The app's socket: URLSessionWebSocketTask on Apple platforms; Foundation on Linux has none.
            let socket = try TestWebSocket(try Self.webSocketURL(scope.url("/chat")))
            try socket.send(text: "hello there")
            #expect(try socket.receiveText() == "You said: hello there")

            #expect(try await scope.send(.json(["price": 101]), toChannelsOpenedBy: .get("/chat")) == 1)
            #expect(try socket.receiveText() == #"{"price":101}"#)
            #expect(try await other.send(.text("not yours"), toChannelsOpenedBy: .get("/chat")) == 0, "another scope's channels")

            try socket.send(text: "bye")
            let waited = try await scope.waitForMessage(.equalTo("bye"), timeout: .seconds(5))
            #expect(waited?.direction == .received && waited?.wasMatched == false)
            try await scope.verifyMessages(.matches("hello.*"), .once)
            let failure = try #require(await scope.messageVerification(of: .equalTo("never sent")))
            #expect(failure.description.contains("received 0") && failure.description.contains("\"bye\""))
            let line = #line + 2
            try await withKnownIssue {
                try await scope.verifyMessages(.equalTo("never sent"))
            } matching: { issue in
                issue.sourceLocation?.line == line && issue.comments.contains { $0.rawValue.contains("received 0") }
            }
        }
    }
}

@Suite struct ClientRoughEdgesTests {
    struct Order: Codable, Equatable {
        let id: Int
        let items: [String]
    }

    @Test func codableBodiesRelativeURLsAndReadableJSON() async throws {
        try await withUnderstudy { understudy in
            let scope = try await understudy.makeScope()
            try await scope.stub(.get("/api/order").willReturn(try .json(encoding: Order(id: 7, items: ["tea"]))))
            try await scope.stub(.get("/api/blob").willReturn(.data(Data([0, 1, 2]))))
            // A relative URL under the scope's base URL stays in the scope.
            #expect(scope.baseURL.absoluteString.hasSuffix("/__scope/\(scope.name)/"))
            let relative = try #require(URL(string: "api/order", relativeTo: scope.baseURL)).absoluteURL
            var request = URLRequest(url: relative)
            request.cachePolicy = .reloadIgnoringLocalCacheData
            let (data, response) = try await URLSession(configuration: .ephemeral).data(for: request)
            #expect(try JSONDecoder().decode(Order.self, from: data) == Order(id: 7, items: ["tea"]))
            #expect((response as? HTTPURLResponse)?.value(forHTTPHeaderField: "Content-Type") == "application/json")
            #expect(scope.url("/api/order") == scope.url("api/order"), "a leading slash or not, the same URL")
            let (_, blob) = try await URLSession(configuration: .ephemeral).data(from: scope.url("/api/blob"))
            #expect((blob as? HTTPURLResponse)?.value(forHTTPHeaderField: "Content-Type") == "application/octet-stream")
            #expect("\(JSONValue.object(["worker": .int(3)]))" == #"{"worker":3}"#, "printed as JSON, not as enum cases")
            // A scenario step on the request, as WireMock's Java DSL writes it.
            try await scope.stub(.get("/api/state").inScenario("flow", whenState: "Started", willSetStateTo: "done").willReturn(.text("first")))
            try await scope.stub(.get("/api/state").inScenario("flow", whenState: "done").willReturn(.text("then")))
            let first = try await get(scope.url("/api/state")).body
            let then = try await get(scope.url("/api/state")).body
            #expect(first == "first" && then == "then")
            #expect(NetworkConditions(latency: .milliseconds(300)).latencyMs == 300 && NetworkConditions(latencyMs: 80).latency == .milliseconds(80))
        }
    }
}
