import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One state scope on the server: its own carts, SQL rows, posts, stubs, scenario states and
/// journal. Everything here acts in this scope only, so tests running side by side keep apart.
public struct UnderstudyScope: Sendable, Hashable {
    public static let header = "X-Understudy-Scope"

    public let server: Understudy
    public let name: String
    /// The XCTest case it was made for, which its failed assertions are recorded on.
    let boundTestCase: BoundTestCase?

    init(server: Understudy, uncheckedName name: String, boundTo testCase: BoundTestCase? = nil) {
        self.server = server
        self.name = name
        boundTestCase = testCase
    }

    /// Reports a failed assertion at `site` on the running test (the XCTest case the scope was
    /// made for, or Swift Testing's current test), or throws it where no test runs.
    func report(_ failure: any Error & CustomStringConvertible, at site: CallSite) throws {
        if !TestReporting.record(failure, at: site, on: boundTestCase) { throw failure }
    }

    public static func == (left: UnderstudyScope, right: UnderstudyScope) -> Bool {
        left.name == right.name && left.server.url == right.server.url
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(name)
        hasher.combine(server.url)
    }

    // MARK: Putting an app's requests in the scope

    /// The server's URL with the scope's prefix and a trailing slash
    /// (`http://127.0.0.1:8080/__scope/NAME/`): for an app whose only setting is a base URL, so
    /// `URL(string: "api/cart", relativeTo: scope.baseURL)` stays in the scope. (A path with a
    /// leading slash, `"/api/cart"`, would leave it: use `url(_:)`.) Links and redirects in the
    /// answers keep the prefix.
    public var baseURL: URL {
        let base = name == "default" ? server.url : server.url.appendingPathComponent("__scope").appendingPathComponent(name)
        let text = base.absoluteString
        return text.hasSuffix("/") ? base : URL(string: text + "/") ?? base
    }

    /// `baseURL` with `path` (and query) after it, a leading slash or not: `scope.url("/informix/generic.php")`.
    public func url(_ path: String) -> URL {
        URL(string: baseURL.absoluteString + (path.hasPrefix("/") ? String(path.dropFirst()) : path)) ?? baseURL
    }

    /// The header that names the scope, for clients that can add one.
    public var headers: [String: String] { [Self.header: name] }

    /// `configuration` (by default a new ephemeral one) with the scope's header on every request:
    /// a `URLSession` made from it is in the scope, whatever URLs it asks for on this server.
    public func sessionConfiguration(_ configuration: URLSessionConfiguration = .ephemeral) -> URLSessionConfiguration {
        var headers = configuration.httpAdditionalHeaders ?? [:]
        headers[Self.header] = name
        configuration.httpAdditionalHeaders = headers
        return configuration
    }

    /// Device mode: a configuration whose requests, to any host, go through the scope's own proxy
    /// port (opened now if it is not yet), so that every request and TLS tunnel is in the scope.
    /// HTTPS hosts answer with certificates of the server's CA, which the device must trust
    /// (`understudy trust`). The port, not proxy credentials, names the scope: URLSession sends
    /// proxy credentials only when challenged, which a server without `--proxy-password` does not do.
    public func proxiedSessionConfiguration(_ configuration: URLSessionConfiguration = .ephemeral) async throws -> URLSessionConfiguration {
        let proxy = try await openProxy()
        configuration.connectionProxyDictionary = [
            "HTTPEnable": 1, "HTTPProxy": proxy.host, "HTTPPort": proxy.port,
            "HTTPSEnable": 1, "HTTPSProxy": proxy.host, "HTTPSPort": proxy.port,
        ]
        return configuration
    }

    /// The scope's own proxy port (device mode), opened if it is not yet; it closes when the scope goes.
    public func openProxy() async throws -> ScopeProxy {
        let answer = try await server.json("POST", "/__admin/scopes/\(name)/proxy")
        guard let port = answer["port"]?.intValue else {
            throw UnderstudyError.invalidJSON(answer.serialized, reason: "no port in the answer")
        }
        return ScopeProxy(
            host: server.url.host ?? "127.0.0.1", port: port,
            pac: answer["pac"]?.stringValue.flatMap(URL.init(string:)) ?? server.url.appendingPathComponent("proxy.pac"))
    }

    /// For XCUITest: `app.launchEnvironment.merge(scope.launchEnvironment) { $1 }` gives the app
    /// the server and the scope; its debug build reads them with `UnderstudyLaunchEnvironment`.
    public var launchEnvironment: [String: String] {
        [
            UnderstudyLaunchEnvironment.urlKey: server.url.absoluteString, UnderstudyLaunchEnvironment.scopeKey: name,
            UnderstudyLaunchEnvironment.baseURLKey: baseURL.absoluteString,
        ]
    }

    // MARK: The scope itself

    /// Everything in the scope back to the fixtures, its stubs and journal entries gone.
    public func reset() async throws { try await server.call("POST", "/__admin/reset", scope: name) }

    /// The scope gone with its state, journal entries and proxy port (`default` cannot go).
    public func delete() async throws { try await server.call("DELETE", "/__admin/scopes/\(name)") }

    // MARK: Stubs

    /// Adds `stub` to the scope's own stubs (which answer before the shared ones); its id.
    @discardableResult
    public func stub(_ stub: Stub) async throws -> UUID {
        try await self.stub(json: stub.json)
    }

    /// A stub in WireMock's JSON, for what the builders do not cover.
    @discardableResult
    public func stub(json: String) async throws -> UUID {
        try await stub(json: JSONValue(parsing: json))
    }

    @discardableResult
    public func stub(json: JSONValue) async throws -> UUID {
        let answer = try await server.json("POST", "/__admin/mappings", scope: name, body: json)
        guard let id = answer["id"]?.stringValue.flatMap(UUID.init(uuidString:)) else {
            throw UnderstudyError.invalidJSON(answer.serialized, reason: "the stub's answer has no id")
        }
        return id
    }

    /// A body file of this scope alone, for `Response.file(name)` in its stubs (read before the
    /// shared `__files/`): held in the server's memory, nothing written to disk, gone when the
    /// scope is reset or deleted. Put it before or after the stubs that name it.
    public func putFile(_ name: String, _ contents: Data) async throws {
        _ = try await server.call("PUT", "/__admin/files/" + Understudy.pathSegments(name), scope: self.name, body: contents)
    }

    /// Deletes one of this scope's own body files.
    public func deleteFile(_ name: String) async throws {
        _ = try await server.call("DELETE", "/__admin/files/" + Understudy.pathSegments(name), scope: self.name)
    }

    public func removeStub(_ id: UUID) async throws {
        try await server.call("DELETE", "/__admin/mappings/\(id.uuidString.lowercased())", scope: name)
    }

    /// The stubs this scope sees: its own, then the shared ones.
    public func stubs() async throws -> [JSONValue] {
        try await server.json("GET", "/__admin/mappings", scope: name)["mappings"]?.arrayValue ?? []
    }

    // MARK: Scenarios

    /// The scenario's state in this scope, `nil` for no such scenario.
    public func scenarioState(_ scenario: String) async throws -> String? {
        let scenarios = try await server.json("GET", "/__admin/scenarios", scope: name)["scenarios"]?.arrayValue ?? []
        return scenarios.first { $0["name"]?.stringValue == scenario }?["state"]?.stringValue
    }

    public func setScenarioState(_ scenario: String, to state: String) async throws {
        try await server.call(
            "PUT", "/__admin/scenarios/" + Understudy.pathSegments(scenario) + "/state", scope: name,
            body: JSONValue.object(["state": .string(state)]).data)
    }

    /// Every scenario of the scope back to `Scenario.started`.
    public func resetScenarios() async throws {
        try await server.call("POST", "/__admin/scenarios/reset", scope: name)
    }

    // MARK: The journal

    /// What the scope's journal holds, newest first.
    public func requests() async throws -> [ServeEvent] {
        (try await server.json("GET", "/__admin/requests", scope: name)["requests"]?.arrayValue ?? []).map(ServeEvent.init)
    }

    public func clearRequests() async throws { try await server.call("DELETE", "/__admin/requests", scope: name) }

    /// How many requests in the scope match `pattern`.
    public func count(_ pattern: RequestPattern) async throws -> Int {
        let answer = try await server.json("POST", "/__admin/requests/count", scope: name, body: pattern.json)
        guard let count = answer["count"]?.intValue else { throw UnderstudyError.invalidJSON(answer.serialized, reason: "no count") }
        return count
    }

    /// The requests in the scope that match `pattern`, oldest first.
    public func find(_ pattern: RequestPattern) async throws -> [LoggedRequest] {
        (try await server.json("POST", "/__admin/requests/find", scope: name, body: pattern.json)["requests"]?.arrayValue ?? [])
            .map(LoggedRequest.init)
    }

    /// Fails the test at this line unless the scope received `times` requests matching `pattern`,
    /// with a `VerificationFailure` (the closest requests and why each missed). In an XCTest case
    /// whose scope was made with `makeScope(for: self)`, and in any Swift Testing test, the failure
    /// is recorded at the call's line and the test goes on (as `XCTAssert` and `#expect` do);
    /// elsewhere it is thrown. It throws `UnderstudyError` when the server cannot be asked.
    public func verify(
        _ pattern: RequestPattern, _ times: Times = .atLeast(1),
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column
    ) async throws {
        guard let failure = try await verification(of: pattern, times) else { return }
        try report(failure, at: CallSite(fileID: fileID, filePath: filePath, line: line, column: column))
    }

    /// What `verify` would report: nil when the scope received `times` requests matching `pattern`.
    public func verification(of pattern: RequestPattern, _ times: Times = .atLeast(1)) async throws -> VerificationFailure? {
        let count = try await count(pattern)
        guard !times.accepts(count) else { return nil }
        let nearMisses = count == 0 ? try await self.nearMisses(to: pattern) : []
        return VerificationFailure(pattern: pattern, expected: times, received: count, scope: name, nearMisses: nearMisses)
    }

    /// The journaled requests closest to `pattern`, closest first, and why each missed.
    public func nearMisses(to pattern: RequestPattern) async throws -> [NearMiss] {
        (try await server.json("POST", "/__admin/near-misses/request-pattern", scope: name, body: pattern.json)["nearMisses"]?
            .arrayValue ?? []).map(NearMiss.init)
    }

    /// The requests nothing answered, each with the stubs closest to it.
    public func unmatchedRequests() async throws -> [UnmatchedRequest] {
        let requests = try await server.json("GET", "/__admin/requests/unmatched", scope: name)["requests"]?.arrayValue ?? []
        var unmatched: [UnmatchedRequest] = []
        for request in requests {
            let misses = try await server.json("POST", "/__admin/near-misses/request", scope: name, body: request)
            unmatched.append(
                UnmatchedRequest(
                    request: LoggedRequest(request),
                    nearMisses: (misses["nearMisses"]?.arrayValue ?? []).map(NearMiss.init)))
        }
        return unmatched
    }

    // MARK: Network conditions (device mode)

    /// Every answer of the scope, from then on, travels as `conditions` say (admin calls never do).
    public func setNetwork(_ conditions: NetworkConditions) async throws {
        try await server.call("PUT", "/__admin/scopes/\(name)/network", body: conditions.json.data)
    }

    /// The scope's conditions, `nil` when its answers go at full speed.
    public func network() async throws -> NetworkConditions? {
        let answer = try await server.json("GET", "/__admin/scopes/\(name)/network")
        guard let network = answer["network"], network != .null else { return nil }
        return NetworkConditions(network)
    }

    public func clearNetwork() async throws { try await server.call("DELETE", "/__admin/scopes/\(name)/network") }
}

/// A scope's own proxy port (device mode).
public struct ScopeProxy: Sendable, Hashable {
    public let host: String
    public let port: Int
    /// The PAC file that sends the mapped hosts to this port.
    public let pac: URL
}
