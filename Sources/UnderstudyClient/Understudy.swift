import Foundation

#if canImport(XCTest)
import XCTest
#endif

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A running Understudy server, reached over its admin API: what a test starts from.
///
/// ```swift
/// let understudy = try Understudy.fromEnvironment()       // UNDERSTUDY_URL, default http://127.0.0.1:8080
/// try await understudy.waitUntilHealthy()
/// let scope = try await understudy.makeScope()            // a fresh state scope named after the test
/// ```
public struct Understudy: Sendable {
    public static let defaultURL = "http://127.0.0.1:8080"

    /// The server's base URL (no path), e.g. `http://127.0.0.1:8080`.
    public let url: URL
    /// Sent as `Authorization: Bearer …` on admin calls, for a server started with `--admin-token`.
    public let adminToken: String?
    let session: URLSession

    /// `url` must be an `http` or `https` URL; its path, if any, is ignored.
    public init(url: URL, adminToken: String? = nil) throws {
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https", url.host != nil,
            var parts = URLComponents(url: url, resolvingAgainstBaseURL: false)
        else { throw UnderstudyError.invalidURL(url.absoluteString) }
        parts.path = ""
        parts.query = nil
        parts.fragment = nil
        guard let root = parts.url else { throw UnderstudyError.invalidURL(url.absoluteString) }
        self.url = root
        self.adminToken = adminToken
        // Admin calls go straight to the server: no system proxy, no cookies, no cache.
        let configuration = URLSessionConfiguration.ephemeral
        configuration.connectionProxyDictionary = [:]
        configuration.httpCookieStorage = nil
        configuration.urlCache = nil
        configuration.timeoutIntervalForRequest = 30
        session = URLSession(configuration: configuration)
    }

    public init(_ text: String, adminToken: String? = nil) throws {
        guard let url = URL(string: text) else { throw UnderstudyError.invalidURL(text) }
        try self.init(url: url, adminToken: adminToken)
    }

    /// The server named by `UNDERSTUDY_URL` (default `http://127.0.0.1:8080`), with the token of
    /// `UNDERSTUDY_ADMIN_TOKEN` if set.
    public static func fromEnvironment(_ environment: [String: String] = ProcessInfo.processInfo.environment) throws -> Understudy {
        let token = environment["UNDERSTUDY_ADMIN_TOKEN"].flatMap { $0.isEmpty ? nil : $0 }
        return try Understudy(environment["UNDERSTUDY_URL"].flatMap { $0.isEmpty ? nil : $0 } ?? defaultURL, adminToken: token)
    }

    /// Waits until `GET /__admin/health` answers 200 (every backend loaded), asking every 100 ms.
    public func waitUntilHealthy(timeout: Duration = .seconds(30)) async throws {
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        var last = "no answer"
        while true {
            do {
                let (status, body) = try await send("GET", "/__admin/health", query: [])
                if status == 200 { return }
                last = "\(status) \(String(decoding: body.prefix(200), as: UTF8.self))"
            } catch let error as UnderstudyError {
                last = error.description
            }
            if clock.now >= deadline {
                let seconds = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
                throw UnderstudyError.notHealthy(url: url.absoluteString, seconds: seconds, lastAnswer: last)
            }
            try await Task.sleep(for: .milliseconds(100))
        }
    }

    // MARK: Scopes

    /// The scope every request is in when it names none.
    public var defaultScope: UnderstudyScope { UnderstudyScope(server: self, uncheckedName: "default") }

    /// The scope `name` (made by the server on its first use). Throws for a name the server would refuse.
    public func scope(_ name: String) throws -> UnderstudyScope {
        try ScopeName.check(name)
        return UnderstudyScope(server: self, uncheckedName: name)
    }

    /// A fresh scope of its own for one test, named after it (`CartTests.testCheckout-3f9a1c02`) and
    /// made on the server now, starting from the fixtures. Delete it when the test ends, or let the
    /// server's `--scope-idle-timeout` and `--max-scopes` clear it.
    public func makeScope(for test: String = #function, file: String = #fileID) async throws -> UnderstudyScope {
        let scope = UnderstudyScope(server: self, uncheckedName: ScopeName.unique(test: test, file: file))
        try await scope.reset()
        return scope
    }

    #if canImport(XCTest)
    /// A fresh scope for the XCTest case `test`, named after it (`CartTests.testCheckout-3f9a1c02`,
    /// the same on Apple platforms and Linux), made on the server now and deleted when the test
    /// ends (`addTeardownBlock`). A failed `verify` in it is recorded at the `verify` line.
    public func makeScope(for test: XCTestCase) async throws -> UnderstudyScope {
        let scope = UnderstudyScope(
            server: self, uncheckedName: ScopeName.unique(test: test.name, file: #fileID), boundTo: BoundTestCase(testCase: test))
        try await scope.reset()
        test.addTeardownBlock { try await scope.delete() }
        return scope
    }
    #endif

    /// The names of the live scopes, `default` first.
    public func scopeNames() async throws -> [String] {
        let answer = try await json("GET", "/__admin/scopes")
        return (answer["scopes"]?.arrayValue ?? []).compactMap { $0["name"]?.stringValue }
    }

    /// Every named scope gone, with its state and journal entries.
    public func deleteAllScopes() async throws { _ = try await call("DELETE", "/__admin/scopes") }

    // MARK: Server-wide

    /// The local CA's certificate (DER) that device mode's TLS answers are signed with.
    public func caCertificate() async throws -> Data { try await call("GET", "/__admin/ca.der") }

    /// A body file every scope shares: written to the server's stubs folder on disk
    /// (`stubs/__files/NAME`), where it stays; what `Response.file(_:)` answers with. For a file of
    /// one test's alone, held in memory, use `UnderstudyScope.putFile`.
    public func putFile(_ name: String, _ contents: Data) async throws {
        _ = try await call("PUT", "/__admin/files/" + Self.pathSegments(name), body: contents)
    }

    /// Deletes a shared body file from the server's stubs folder.
    public func deleteFile(_ name: String) async throws {
        _ = try await call("DELETE", "/__admin/files/" + Self.pathSegments(name))
    }

    /// From now on, what no stub answers goes to `target` and is recorded (WireMock's recordings API).
    public func startRecording(from target: URL) async throws {
        _ = try await call("POST", "/__admin/recordings/start", body: JSONValue.object(["targetBaseUrl": .string(target.absoluteString)]).data)
    }

    /// Stops recording; the mappings recorded, which the server replays from now on.
    public func stopRecording() async throws -> [JSONValue] {
        try await json("POST", "/__admin/recordings/stop")["mappings"]?.arrayValue ?? []
    }

    // MARK: Transport

    /// An admin call that must answer 2xx; its body.
    @discardableResult
    func call(_ method: String, _ path: String, scope: String? = nil, body: Data? = nil, query: [URLQueryItem] = []) async throws -> Data {
        let (status, answer) = try await send(method, path, scope: scope, body: body, query: query)
        guard (200..<300).contains(status) else {
            if status == 410, let lost = try? JSONValue(parsing: answer), let scope = lost["scope"]?.stringValue,
                let replica = lost["lostReplica"]?.stringValue
            {
                throw UnderstudyError.scopeLost(scope: scope, replica: replica)
            }
            throw UnderstudyError.server(call: "\(method) \(path)", status: status, message: Self.message(in: answer))
        }
        return answer
    }

    /// An admin call that must answer 2xx with JSON (an empty body reads as `{}`).
    func json(_ method: String, _ path: String, scope: String? = nil, body: JSONValue? = nil, query: [URLQueryItem] = []) async throws -> JSONValue {
        let answer = try await call(method, path, scope: scope, body: body?.data, query: query)
        return answer.isEmpty ? .object([:]) : try JSONValue(parsing: answer)
    }

    /// The status and body of one call. Admin calls name their scope with `?scope=`, which also asks
    /// for Understudy's own fields (`scope`, `servedBy`, near misses' `misses`).
    func send(_ method: String, _ path: String, scope: String? = nil, body: Data? = nil, query: [URLQueryItem] = []) async throws -> (Int, Data) {
        guard var parts = URLComponents(url: url, resolvingAgainstBaseURL: false) else { throw UnderstudyError.invalidURL(url.absoluteString) }
        parts.percentEncodedPath = path
        let items = query + (scope.map { [URLQueryItem(name: "scope", value: $0)] } ?? [])
        parts.queryItems = items.isEmpty ? nil : items
        guard let target = parts.url else { throw UnderstudyError.invalidURL(path) }
        var request = URLRequest(url: target)
        request.httpMethod = method
        request.httpBody = body
        if body != nil { request.setValue("application/json", forHTTPHeaderField: "Content-Type") }
        if let adminToken { request.setValue("Bearer " + adminToken, forHTTPHeaderField: "Authorization") }
        do {
            let (data, response) = try await session.data(for: request)
            return ((response as? HTTPURLResponse)?.statusCode ?? 0, data)
        } catch {
            throw UnderstudyError.unreachable(url: target.absoluteString, reason: error.localizedDescription)
        }
    }

    /// What an error answer says: WireMock's `{"errors":[{"title"}]}`, Understudy's `{"message"}`, or its text.
    static func message(in body: Data) -> String {
        if let json = try? JSONValue(parsing: body) {
            if let titles = json["errors"]?.arrayValue?.compactMap({ $0["title"]?.stringValue ?? $0["detail"]?.stringValue }), !titles.isEmpty {
                return titles.joined(separator: "; ")
            }
            if let message = json["message"]?.stringValue { return message }
        }
        let text = String(decoding: body.prefix(2000), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        return text.isEmpty ? "(no message)" : text
    }

    /// A name as path segments, each percent-encoded.
    static func pathSegments(_ name: String) -> String {
        name.split(separator: "/", omittingEmptySubsequences: false)
            .map { $0.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(CharacterSet(charactersIn: "/?#;"))) ?? String($0) }
            .joined(separator: "/")
    }
}
