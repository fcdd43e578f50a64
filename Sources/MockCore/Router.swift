import HTTPServer
import Logging

/// Resolves every request to a backend (DESIGN.md's order: admin API, user stubs, recordings,
/// emulators, static files; within a tier the longest mount prefix first; a backend may decline),
/// answers 404 with what is mounted when none takes it, and journals every exchange.
public final class Router: HTTPHandler {
    public struct Route: Sendable {
        public let prefix: String
        public let backend: any Backend
    }

    /// Every mount, in the order requests try them.
    public let routes: [Route]
    public let journal: RequestJournal
    private let logger: Logger
    private let logsRequests: Bool

    /// `backends` are mounted beside the built-in admin API (`/__admin/health`, `/__admin/reset`,
    /// `/__admin/requests`).
    public init(backends: [any Backend], journal: RequestJournal = RequestJournal(), logger: Logger = Logger(label: "understudy")) {
        let admin = AdminAPI(backends: backends, journal: journal)
        let all: [any Backend] = [admin] + backends
        routes = all.flatMap { backend in backend.mounts.map { Route(prefix: Self.normalized($0), backend: backend) } }
            .enumerated()
            .sorted { a, b in
                let (x, y) = (a.element, b.element)
                if x.backend.tier != y.backend.tier { return x.backend.tier < y.backend.tier }
                if x.prefix.utf8.count != y.prefix.utf8.count { return x.prefix.utf8.count > y.prefix.utf8.count }
                return a.offset < b.offset
            }
            .map(\.element)
        self.journal = journal
        self.logger = logger
        self.logsRequests = logger.logLevel <= .debug
    }

    public func handle(_ request: Request, responder: Responder) {
        let context = RequestContext(scope: .shared)
        for route in routes where Self.path(request.path, isUnder: route.prefix) {
            switch route.backend.handle(request, context) {
            case .decline:
                continue
            case .response(let response):
                record(request, response, backend: route.backend.name)
                responder.send(response)
                return
            case .deferred(let start):
                let name = route.backend.name
                start(DeferredReply(responder: responder) { [self] response in
                    record(request, response, backend: name)
                })
                return
            }
        }
        let response = NotFoundPage.response(for: request, routes: routes)
        record(request, response, backend: nil)
        responder.send(response)
    }

    private func record(_ request: Request, _ response: Response, backend: String?) {
        let duration = MonotonicClock.nanoseconds() &- request.receivedAtNanos
        journal.record(request, backend: backend, status: response.status, loggedAt: MonotonicClock.wallSeconds(),
                       durationNanos: duration)
        if logsRequests {
            logger.debug("\(request.method.rawValue) \(request.target) → \(response.status) \(backend ?? "no match") \(Double(duration / 1000) / 1000) ms")
        }
    }

    /// Whether `path` is `prefix` itself or lies below it ("/a" holds "/a" and "/a/b", not "/ab").
    static func path(_ path: String, isUnder prefix: String) -> Bool {
        let p = path.utf8, q = prefix.utf8
        guard p.starts(with: q) else { return false }
        if p.count == q.count || q.last == UInt8(ascii: "/") { return true }
        return p[p.index(p.startIndex, offsetBy: q.count)] == UInt8(ascii: "/")
    }

    /// Mount prefixes start with "/" and, but for the root, end without one.
    static func normalized(_ prefix: String) -> String {
        var prefix = prefix.hasPrefix("/") ? prefix : "/" + prefix
        while prefix.count > 1 && prefix.hasSuffix("/") { prefix.removeLast() }
        return prefix
    }
}
