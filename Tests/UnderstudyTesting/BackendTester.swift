import Foundation
import HTTPServer
import Logging
import MockCore

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

    /// `request`'s answer, as the backend that answered gave it (after its delay, if any).
    public func send(_ request: Request) async -> Response {
        guard let loop = try? Self.loop.get() else { return Response(status: 0) }
        return await withCheckedContinuation { continuation in
            let started = loop.execute { [router] in
                // The responder lives on the loop; the continuation resumes once, when it answers.
                router.handle(request, responder: Responder(inMemoryOn: loop) { continuation.resume(returning: $0) })
            }
            if !started { continuation.resume(returning: Response(status: 0)) }
        }
    }

    /// A request made from its parts, as a client would send it to this server.
    public func send(_ target: String, method: HTTPMethod = .get, headers: [(String, String)] = [], body: String = "") async -> Response {
        var fields = HTTPHeaders()
        for (name, value) in headers { fields.add(name, value) }
        return await send(Request(method: method, target: target, headers: fields, body: Array(body.utf8)))
    }
}
