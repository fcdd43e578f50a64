import Foundation
import HTTPServer
import Logging
import MockCore
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Runs requests through the `Router` in memory, on an event loop of its own, with no socket and
/// no HTTP client: for tests of what a backend answers (status, headers it sets, body, state),
/// as Hummingbird's `.router` test mode. What the server adds on the wire (`Content-Length`,
/// `Date`, HEAD without a body, keep-alive) is not applied: tests of those use `TestServer`.
public final class BackendTester: Sendable {
    public let router: Router
    /// One loop for every tester: a client loop runs until the process ends.
    private static let loop = Result { try EventLoop.startClient() }

    public init(
        backends: [any Backend], journal: RequestJournal = RequestJournal(), scopes: StateScopes? = nil,
        logger: Logger = Logger(label: "understudy-test")
    ) throws {
        router = Router(backends: backends, journal: journal, scopes: scopes, logger: logger)
        _ = try Self.loop.get()
    }

    /// How long a request may take in memory before the test fails (with status 0) instead of waiting on.
    public static let patience: Duration = .seconds(60)

    /// `request`'s answer, as the backend that answered gave it (after its delay, if any).
    public func send(_ request: Request, sourceLocation: SourceLocation = #_sourceLocation) async -> Response {
        let answer = await withCheckedContinuation { continuation in
            let once = Locked<CheckedContinuation<Response?, Never>?>(continuation)
            let resume: @Sendable (Response?) -> Void = { answer in once.withLock { $0.take() }?.resume(returning: answer) }
            start(request) { resume($0) }
            DispatchQueue.global().asyncAfter(deadline: .now() + Self.patience.seconds) { resume(nil) }
        }
        return answer ?? unanswered(request, sourceLocation)
    }

    /// `request`'s answer, waited for on this thread while the tester's own loop makes it: for
    /// synchronous clients (`StoreBrowser`).
    public func sendAndWait(_ request: Request, sourceLocation: SourceLocation = #_sourceLocation) -> Response {
        let answered = DispatchSemaphore(value: 0)
        let answer = Locked<Response?>(nil)
        start(request) { response in
            answer.withLock { $0 = response }
            answered.signal()
        }
        guard answered.wait(timeout: .now() + Self.patience.seconds) == .success else { return unanswered(request, sourceLocation) }
        return answer.withLock { $0 } ?? Response(status: 0)
    }

    private func unanswered(_ request: Request, _ sourceLocation: SourceLocation) -> Response {
        Issue.record("\(request.method) \(request.target) had no answer within \(Self.patience)", sourceLocation: sourceLocation)
        return Response(status: 0)
    }

    /// Hands `request` to the router on the loop; `answered` gets its answer once (status 0 when
    /// the loop has gone).
    private func start(_ request: Request, answered: @escaping @Sendable (Response) -> Void) {
        guard let loop = try? Self.loop.get() else { return answered(Response(status: 0)) }
        let started = loop.execute { [router] in
            // The responder lives on the loop; it answers once.
            router.handle(request, responder: Responder(inMemoryOn: loop, received: answered))
        }
        if !started { answered(Response(status: 0)) }
    }

    /// A request made from its parts, as a client would send it to this server.
    public func send(_ target: String, method: HTTPMethod = .get, headers: [(String, String)] = [], body: String = "") async -> Response {
        var fields = HTTPHeaders()
        for (name, value) in headers { fields.add(name, value) }
        return await send(Request(method: method, target: target, headers: fields, body: Array(body.utf8)))
    }

    /// The port the requests that `send(method, path…)`, `raw` and their waiting forms make were
    /// received on, as if by a server listening there.
    public static let port = 8080
    /// The `Host` those requests carry unless they name their own, as a client of that server sends it.
    public static let authority = "127.0.0.1:\(port)"
    /// `port`, for what a test reads back of the links an answer makes.
    public var port: Int { Self.port }

    /// A request as URLSession sends one (with `Host`), answered as URLSession reads it: the body
    /// (none for `HEAD`, as on the wire) and an `HTTPURLResponse` of the backend's status and
    /// headers. Tests written against `TestServer.send` read the same.
    public func send(
        _ method: String = "GET", _ pathAndQuery: String, headers: [String: String] = [:], body: Data? = nil
    ) async throws -> (body: Data, response: HTTPURLResponse) {
        let answer = await send(request(method, pathAndQuery, headers: headers.map { ($0.key, $0.value) }, body: body.map(Array.init) ?? []))
        var fields: [String: String] = [:]
        for field in answer.headers.fields {
            fields[field.name] = fields[field.name].map { $0 + ", " + field.value } ?? field.value
        }
        guard let url = URL(string: "http://\(Self.authority)\(pathAndQuery)"),
            let response = HTTPURLResponse(url: url, statusCode: answer.status, httpVersion: "HTTP/1.1", headerFields: fields)
        else { throw BackendTesterError.notAURL(pathAndQuery) }
        return (method == "HEAD" ? Data() : Data(answer.body.bytes), response)
    }

    /// A request answered as a raw connection reads it: every status and header as the backend
    /// gave them, in order (redirects and challenges are not followed).
    public func raw(_ method: String, _ pathAndQuery: String, headers: [(String, String)] = [], body: String = "") async -> RawHTTPConnection.Response
    {
        Self.raw(method, await send(request(method, pathAndQuery, headers: headers, body: Array(body.utf8))))
    }

    /// `raw`, waited for on this thread (`sendAndWait`).
    public func rawAndWait(_ method: String, _ pathAndQuery: String, headers: [(String, String)] = [], body: String = "")
        -> RawHTTPConnection.Response
    {
        Self.raw(method, sendAndWait(request(method, pathAndQuery, headers: headers, body: Array(body.utf8))))
    }

    private static func raw(_ method: String, _ answer: Response) -> RawHTTPConnection.Response {
        RawHTTPConnection.Response(
            statusLine: "HTTP/1.1 \(answer.status) \(answer.reason ?? "")", headers: answer.headers.fields.map { ($0.name, $0.value) },
            body: method == "HEAD" ? [] : answer.body.bytes)
    }

    private func request(_ method: String, _ pathAndQuery: String, headers: [(String, String)], body: [UInt8]) -> Request {
        var fields = HTTPHeaders()
        if !headers.contains(where: { $0.0.lowercased() == "host" }) { fields.add("Host", Self.authority) }
        for (name, value) in headers { fields.add(name, value) }
        guard let method = HTTPMethod(rawValue: method) else { preconditionFailure("\(method) is not an HTTP method") }
        return Request(method: method, target: pathAndQuery, headers: fields, body: body, localPort: Self.port)
    }
}

public enum BackendTesterError: Error {
    case notAURL(String)
}
