import Foundation
import HTTPServer
import Logging
import MockCore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A real Understudy server on a free loopback port, with a URLSession client, for tests: each
/// test reads as the request it makes and the answer it expects.
public final class TestServer: Sendable {
    public let server: HTTPServer
    /// The router, when the server was started on backends.
    public let router: Router?
    public let session: URLSession

    /// Starts the MockCore router over `backends` (the admin API is always mounted).
    public static func start(
        backends: [any Backend], journal: RequestJournal = RequestJournal(), scopes: StateScopes? = nil, deviceMode: (any ForwardProxy)? = nil,
        logger: Logger = Logger(label: "understudy-test"), adminGuard: AdminGuard = AdminGuard(), requestLog: RequestLog? = nil,
        requestBudget: Duration? = nil, contract: (any ContractCheck)? = nil, configure: (inout ServerConfiguration) -> Void = { _ in }
    ) throws -> TestServer {
        let router = Router(
            backends: backends, journal: journal, scopes: scopes, deviceMode: deviceMode, logger: logger, adminGuard: adminGuard,
            requestLog: requestLog,
            requestBudgetNanoseconds: requestBudget.map {
                UInt64($0.components.seconds) * 1_000_000_000 + UInt64($0.components.attoseconds / 1_000_000_000)
            }, contract: contract)
        return try TestServer(handler: router, router: router, configure: configure)
    }

    /// Starts a bare HTTP server on `handler`.
    public static func start(handler: any HTTPHandler, configure: (inout ServerConfiguration) -> Void = { _ in }) throws -> TestServer {
        try TestServer(handler: handler, router: nil, configure: configure)
    }

    private init(handler: any HTTPHandler, router: Router?, configure: (inout ServerConfiguration) -> Void) throws {
        try TestLane.allow("a server on a socket (TestServer)")
        var configuration = ServerConfiguration()
        configuration.port = 0
        configuration.threads = 2
        configure(&configuration)
        server = try HTTPServer.start(configuration: configuration, handler: handler)
        self.router = router
        let sessionConfiguration = URLSessionConfiguration.ephemeral
        sessionConfiguration.timeoutIntervalForRequest = 30
        session = URLSession(configuration: sessionConfiguration)
    }

    public var port: Int { server.address.port }
    public var baseURL: URL { URL(string: server.baseURL)! }

    public func url(_ pathAndQuery: String) -> URL {
        URL(string: server.baseURL + pathAndQuery)!
    }

    /// Sends a request with URLSession; the answer's body and response.
    public func send(
        _ method: String = "GET", _ pathAndQuery: String, headers: [String: String] = [:],
        body: Data? = nil
    ) async throws -> (body: Data, response: HTTPURLResponse) {
        var request = URLRequest(url: url(pathAndQuery))
        request.httpMethod = method
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        request.httpBody = body
        let (data, response) = try await session.data(for: request)
        guard let http = response as? HTTPURLResponse else { throw TestServerError.notHTTP }
        return (data, http)
    }

    /// A raw TCP connection to the server, for what URLSession cannot send or hides.
    public func connect() throws -> RawHTTPConnection {
        try RawHTTPConnection(host: server.address.host, port: port)
    }

    /// Graceful stop; returns once every worker has ended.
    public func stop(gracePeriod: Duration = .seconds(5)) {
        session.invalidateAndCancel()
        server.shutdown(gracePeriod: gracePeriod)
        server.wait()
    }
}

public enum TestServerError: Error {
    case notHTTP
}

/// An `HTTPHandler` made of a closure.
public struct ClosureHandler: HTTPHandler {
    private let body: @Sendable (Request, Responder) -> Void

    public init(_ body: @escaping @Sendable (Request, Responder) -> Void) {
        self.body = body
    }

    public func handle(_ request: consuming Request, responder: Responder) {
        body(request, responder)
    }
}

/// A backend made of a closure, for router tests.
public final class ClosureBackend: Backend {
    public let name: String
    public let mounts: [String]
    public let tier: BackendTier
    private let body: @Sendable (Request) -> Reply
    private let onReset: @Sendable (StateScope) -> Void

    public init(
        name: String, mounts: [String], tier: BackendTier = .emulator,
        onReset: @escaping @Sendable (StateScope) -> Void = { _ in },
        _ body: @escaping @Sendable (Request) -> Reply
    ) {
        self.name = name
        self.mounts = mounts
        self.tier = tier
        self.body = body
        self.onReset = onReset
    }

    public func handle(_ request: Request, _ context: RequestContext) -> Reply { body(request) }
    public func reset(scope: StateScope) { onReset(scope) }
}
