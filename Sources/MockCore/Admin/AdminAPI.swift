import Foundation
import HTTPServer
import JSON
import WireFormat

/// The built-in part of the admin API under `/__admin`, in WireMock's paths and shapes:
/// `GET /health`, `GET /version`, `POST /reset`, `GET /requests` and `DELETE /requests` (also
/// `POST /requests/reset`, deprecated in WireMock but still what its Python client sends),
/// `GET`/`DELETE /requests/{id}`, `GET /requests/unmatched` and `/requests/unmatched/near-misses`,
/// `POST /shutdown`, the state scopes (`ScopesAdmin`), and Understudy's own `GET /requests/live`
/// (`JournalFeed`), `GET /backends` and `GET /metrics`. Calls act in the request's scope; the
/// journal's `?scope=*` shows every scope. The stub engine adds its own admin backends beside it.
final class AdminAPI: Backend {
    let name = "admin"
    let mounts = ["/__admin"]
    let tier = BackendTier.admin

    let backends: [any Backend]
    let journal: RequestJournal
    let scopes: ScopesAdmin
    let metrics: ServerMetrics
    let startedAt = MonotonicClock.nanoseconds()
    /// Stops the server (`POST /__admin/shutdown`); nil where there is nothing to stop.
    let shutdown: (@Sendable () -> Void)?

    /// Every admin route of the server: these, the scopes', the dashboard's and the backends'.
    /// It dispatches every request under `/__admin`.
    /// Set once, at the end of `init` (its routes take `self`).
    nonisolated(unsafe) private(set) var routeTable = AdminRouteTable([])

    init(
        backends: [any Backend], journal: RequestJournal, scopes: StateScopes, metrics: ServerMetrics,
        dashboard: DashboardPages = DashboardPages(), shutdown: (@Sendable () -> Void)?
    ) {
        self.backends = backends
        self.journal = journal
        self.metrics = metrics
        self.scopes = ScopesAdmin(scopes: scopes, backends: backends, journal: journal)
        self.shutdown = shutdown
        routeTable = AdminRouteTable(
            Self.endpoints.map { $0.route(servedByHolder: self) } + ScopesAdmin.endpoints.routes(servedBy: self.scopes)
                + DashboardPages.endpoints.routes(servedBy: dashboard)
                + backends.flatMap { ($0 as? any AdminRoutesProvider)?.adminRoutes ?? [] })
    }

    /// The built-in routes, the scopes' and the dashboard's, listed.
    static var builtInRoutes: [AdminRoute] { endpoints.listing() + ScopesAdmin.endpoints.listing() + DashboardPages.endpoints.listing() }

    static let endpoints: [AdminEndpoint<AdminAPI>] = [
        AdminEndpoint(
            "/__admin/health", isPublic: true, "`200` once every backend has loaded, `503` before", [.get: { api, _ in .response(api.health()) }]),
        AdminEndpoint("/__admin/version", "the server's version", [.get: { _, _ in .response(versionResponse()) }]),
        AdminEndpoint(
            "/__admin/metrics", "Prometheus text: requests, the journal, caches, recorders, connections, scopes",
            [.get: { api, _ in api.metricsText() }]),
        AdminEndpoint("/__admin/routes", "this table, as JSON", [.get: { api, _ in .response(.json(api.routeTable.json.serialized)) }]),
        AdminEndpoint(
            "/__admin/reset", "the calling scope's state back to the fixtures, its journal entries gone",
            [
                .post: { api, call in
                    api.scopes.reset(call.scope)
                    return .response(Response(status: 200))
                }
            ]),
        AdminEndpoint(
            "/__admin/requests", "the calling scope's journal (`?limit=N`), newest first (`?format=har`: as HAR); `DELETE` empties it",
            [.get: { api, call in api.requests(call) }, .delete: { api, call in .response(api.clearRequests(call)) }],
            input: [
                .get: RouteInput(query: [
                    ("limit", InputSchema.integer("the newest this many", minimum: 0)),
                    ("format", InputSchema.string("har: an HTTP Archive (1.2), oldest first", oneOf: ["har"])),
                    ("violations", InputSchema.string("true: only the exchanges that broke the API contract (serve --openapi)", oneOf: ["true"])),
                ])
            ]),
        AdminEndpoint(
            "/__admin/requests/reset", "as `DELETE /__admin/requests` (deprecated in WireMock; its Python client sends it)",
            [.post: { api, call in .response(api.clearRequests(call)) }]),
        AdminEndpoint(
            "/__admin/requests/{id}", "one serve event, with the stub that answered or the near misses; `DELETE` removes it",
            [
                .get: { api, call in .response(api.request(id: call.parameters[0])) },
                .delete: { api, call in .response(api.removeRequest(id: call.parameters[0])) },
            ]),
        AdminEndpoint(
            "/__admin/requests/unmatched", "the requests nothing answered", [.get: { api, call in .response(api.unmatchedRequests(call)) }]),
        AdminEndpoint(
            "/__admin/requests/unmatched/near-misses", "the stubs closest to each unmatched request",
            [
                .get: { api, call in
                    .response(
                        api.unmatchedNearMisses(
                            in: call.context.journalScope(for: call.request), understudyFields: call.request.asksForUnderstudyFields))
                }
            ]),
        AdminEndpoint(
            "/__admin/requests/live", "Understudy's own: the journal followed by long-poll (`after`, `timeout`, `limit`)",
            [.get: { api, call in JournalFeed(journal: api.journal).reply(to: call.request, in: call.context.journalScope(for: call.request)) }],
            input: [
                .get: RouteInput(query: [
                    ("after", InputSchema.integer("the sequence after which requests are wanted", minimum: 0)),
                    ("timeout", InputSchema.integer("seconds to wait for one (0: answer at once)", minimum: 0, maximum: 60)),
                    ("limit", InputSchema.integer("the newest this many", minimum: 1)),
                ])
            ]),
        AdminEndpoint(
            "/__admin/backends", "the backends: kind, mounts, readiness, fixture counts, cache and recorder figures",
            [.get: { api, _ in .response(.json(JSONValue.object([("backends", .array(api.backends.map(api.describe)))]).serialized)) }]),
        AdminEndpoint("/__admin/shutdown", "`200`, then the server stops as on SIGTERM", [.post: { api, _ in api.shutDown() }]),
    ]

    /// Every request under `/__admin` goes through the table; a path it does not hold is declined (the 404 page).
    func handle(_ request: Request, _ context: RequestContext) -> Reply {
        routeTable.dispatch(request, context) ?? .decline
    }

    private func metricsText() -> Reply {
        // Off the loop: counting open connections walks the descriptor table.
        let (metrics, journal, scopes, backends) = (metrics, journal, scopes.scopes, backends)
        return .computed(on: .global()) {
            var response = Response(status: 200, body: ResponseBody(metrics.text(journal: journal, scopes: scopes, backends: backends)))
            response.headers.set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
            return response
        }
    }

    private static func versionResponse() -> Response {
        .json(JSONValue.object([("version", .string(UnderstudyVersion.current))]).serialized)
    }

    private func requests(_ call: AdminCall) -> Reply {
        let scope = call.context.journalScope(for: call.request)
        let limit = call.request.query("limit").flatMap(Int.init)
        guard let format = call.request.query("format") else {
            return .response(
                requests(
                    in: scope, limit: limit, understudyFields: call.request.asksForUnderstudyFields,
                    onlyViolations: call.request.query("violations") == "true"))
        }
        let exporters = backends.compactMap { $0 as? any JournalExporter }
        guard let exporter = exporters.first(where: { $0.exportFormats.contains(format) }) else {
            let known = exporters.flatMap(\.exportFormats)
            let message =
                "Unknown format \(format): the journal is given as JSON without ?format"
                + (known.isEmpty ? "" : ", or as \(known.joined(separator: ", "))")
            return .response(.json(JSONValue.object([("message", .string(message))]).serialized, status: 400))
        }
        // The journal's filters apply as to its JSON: the scope, `violations=true`, `limit`.
        let entries = journal.entriesOf(scope).filter { call.request.query("violations") != "true" || !$0.violations.isEmpty }
        let shown = Array(entries.suffix(max(0, limit ?? entries.count)))
        let channelHost = backends.lazy.compactMap { $0 as? any ChannelHost }.first
        let sessions = call.request.query("violations") == "true" ? [] : channelHost?.sessions(in: scope) ?? []
        let backends = backends
        // Off the loop: each entry's stub is found again, and the document may be large.
        return .computed(on: .global()) {
            exporter.export(
                shown.map { entry in
                    (entry, entry.backend.flatMap { name in backends.first { $0.name == name }?.answeringStub(for: entry.request, in: entry.scope) })
                }, sessions: sessions,
                format: format)
        }
    }

    private func clearRequests(_ call: AdminCall) -> Response {
        journal.clear(call.context.journalScope(for: call.request))
        return call.request.method == .delete ? .emptyJSONObject : Response(status: 200)
    }

    private func unmatchedRequests(_ call: AdminCall) -> Response {
        let requests = journal.entriesOf(call.context.journalScope(for: call.request)).filter { $0.backend == nil }
            .map { $0.serveEventJSON(in: journal)["request"] ?? .null }
        return .json(JSONValue.object([("requests", .array(requests))]).serialized)
    }

    private func request(id: String) -> Response {
        guard let entry = journal.entries.first(where: { $0.id == id }) else { return noRequest(id) }
        return .json(explained(entry).serialized)
    }

    private func removeRequest(id: String) -> Response {
        journal.remove { $0.id == id }.isEmpty ? noRequest(id) : .emptyJSONObject
    }

    private func shutDown() -> Reply {
        guard let shutdown else { return .response(.text("This server cannot be shut down from here.\n", status: 501)) }
        return .deferred { reply in
            // Answered first; the server then drains, which lets this reply go out.
            reply.send(Response(status: 200))
            shutdown()
        }
    }

    /// One journaled request as WireMock serves it, with the stub mapping that answered it
    /// (`stubMapping`, as WireMock's serve events) or, when nothing did, the closest ones
    /// (`nearMisses`, each with why it missed).
    private func explained(_ entry: JournalEntry) -> JSONValue {
        var event = entry.serveEventJSON(in: journal, understudyFields: true)
        guard case .object(var fields) = event else { return event }
        if let name = entry.backend {
            if let stub = backends.first(where: { $0.name == name })?.answeringStub(for: entry.request, in: entry.scope) {
                fields.append(("stubMapping", stub))
            }
        } else {
            let misses = NearMiss.closest(backends.flatMap { $0.nearMisses(for: entry.request, in: entry.scope) })
            fields.append(
                (
                    "nearMisses",
                    .array(
                        misses.map { miss in
                            .object([
                                ("summary", .string(miss.summary)), ("stubMapping", miss.stub),
                                ("matchResult", .object([("distance", .double(miss.distance))])),
                                ("misses", .array(miss.misses.map(JSONValue.string))),
                            ])
                        })
                ))
        }
        event = .object(fields)
        return event
    }

    /// A backend as `GET /__admin/backends` lists it: where it is mounted, whether it is ready,
    /// what it loaded and counted.
    private func describe(_ backend: any Backend) -> JSONValue {
        let kind =
            switch backend.tier {
            case .admin: "admin"
            case .userStubs: "stubs"
            case .recordings: "recordings"
            case .emulator: "emulator"
            case .fallback: "fallback"
            }
        return .object(
            [
                ("name", .string(backend.name)), ("kind", .string(kind)), ("mounts", .array(backend.mounts.map(JSONValue.string))),
                ("ready", .bool(backend.isReady)),
            ] + backend.report.json)
    }

    private func noRequest(_ id: String) -> Response {
        .json(JSONValue.object([("message", .string("No journaled request with id \(id)"))]).serialized, status: 404)
    }

    /// WireMock's shape: `{"nearMisses": [{"request", "stubMapping", "matchResult": {"distance"}}]}`,
    /// up to three per unmatched request, closest first; with Understudy's fields, each one's `misses`.
    private func unmatchedNearMisses(in scope: StateScope?, understudyFields: Bool) -> Response {
        var items: [JSONValue] = []
        for entry in journal.entriesOf(scope) where entry.backend == nil {
            let logged = entry.serveEventJSON(in: journal)["request"] ?? .null
            for miss in NearMiss.closest(backends.flatMap { $0.nearMisses(for: entry.request, in: entry.scope) }) {
                items.append(
                    .object(
                        [
                            ("request", logged), ("stubMapping", miss.stub), ("matchResult", .object([("distance", .double(miss.distance))])),
                        ] + (understudyFields ? [("misses", .array(miss.misses.map(JSONValue.string)))] : [])))
            }
        }
        return .json(JSONValue.object([("nearMisses", .array(items))]).serialized)
    }

    private func health() -> Response {
        let waiting = backends.filter { !$0.isReady }.map(\.name)
        let uptime = (MonotonicClock.nanoseconds() - startedAt) / 1_000_000_000
        let body: JSONValue = .object([
            ("status", .string(waiting.isEmpty ? "healthy" : "unhealthy")),
            ("message", .string(waiting.isEmpty ? "Understudy is ok" : "still loading: " + waiting.joined(separator: ", "))),
            ("version", .string(UnderstudyVersion.current)),
            ("uptimeInSeconds", .int(Int(uptime))),
            ("timestamp", .string(Timestamp.iso8601(MonotonicClock.wallSeconds()))),
        ])
        return .json(body.serialized, status: waiting.isEmpty ? 200 : 503)
    }

    /// `{"requests": [...], "meta": {"total": n}, "requestJournalDisabled": false}`, newest first.
    private func requests(in scope: StateScope?, limit: Int?, understudyFields: Bool, onlyViolations: Bool) -> Response {
        let entries = onlyViolations ? journal.entriesOf(scope).filter { !$0.violations.isEmpty } : journal.entriesOf(scope)
        let shown = entries.reversed().prefix(limit ?? entries.count)
        let body: JSONValue = .object([
            ("requests", .array(shown.map { $0.serveEventJSON(in: journal, understudyFields: understudyFields) })),
            ("meta", .object([("total", .int(entries.count))])),
            ("requestJournalDisabled", false),
        ])
        return .json(body.serialized)
    }
}

extension JournalEntry {
    /// This entry in WireMock's serve-event shape, as `GET /__admin/requests` lists it; with
    /// `understudyFields`, also the state scope it was in (`scope`), the backend that answered
    /// it (`servedBy`, null when none did) and, for a body kept only in part, the size sent
    /// (`responseBodyTruncatedFrom`).
    public func serveEventJSON(in journal: RequestJournal, understudyFields: Bool = false) -> JSONValue {
        let request = self.request
        var queryParams: [(String, JSONValue)] = []
        for item in request.queryItems where !queryParams.contains(where: { $0.0 == item.name }) {
            let values = request.queryItems.filter { $0.name == item.name }.map { JSONValue.string($0.value ?? "") }
            queryParams.append((item.name, .object([("key", .string(item.name)), ("values", .array(values))])))
        }
        // A request sent to a proxy in absolute form names its server in the target; others in Host.
        let host = request.proxiedAuthority ?? request.headers["Host"] ?? "localhost:\(request.localPort)"
        let absoluteURL = "\(request.scheme)://\(host)\(request.target)"
        let parsed = HostName.of(authority: Substring(host))
        let (hostName, port) = (parsed?.host ?? host, parsed?.port ?? (request.isSecure ? 443 : 80))
        return .object(
            [
                ("id", .string(id)),
                (
                    "request",
                    .object([
                        ("url", .string(request.target)),
                        ("absoluteUrl", .string(absoluteURL)),
                        ("method", .string(request.method.rawValue)),
                        ("clientIp", .string(request.clientIP)),
                        ("headers", Self.headersJSON(request.headers)),
                        ("cookies", .object(request.cookies.map { ($0.name, .string($0.value)) })),
                        ("browserProxyRequest", .bool(request.isProxied)),
                        ("loggedDate", .int(Int(loggedAt * 1000))),
                        ("bodyAsBase64", .string(Data(request.body).base64EncodedString())),
                        ("body", .string(request.bodyText)),
                        ("protocol", "HTTP/1.1"),
                        ("scheme", .string(request.scheme)),
                        ("host", .string(hostName)),
                        ("port", .int(port)),
                        ("loggedDateString", .string(Timestamp.iso8601(loggedAt))),
                        ("queryParams", .object(queryParams)),
                    ])
                ),
                // WireMock's clients read `wasMatched` from `fromConfiguredStub`, true when absent.
                ("responseDefinition", .object([("status", .int(status))] + (backend == nil ? [("fromConfiguredStub", false)] : []))),
                (
                    "response",
                    .object([
                        ("status", .int(status)),
                        ("headers", Self.headersJSON(response.headers)),
                        ("bodyAsBase64", .string(Data(response.body.bytes).base64EncodedString())),
                        ("body", .string(response.body.text)),
                    ])
                ),
                ("wasMatched", .bool(backend != nil)),
            ] + understudyMembers(understudyFields) + [
                ("timing", .object([("totalTime", .int(Int(durationNanos / 1_000_000)))]))
            ] + Self.subEventsMember(journal.subEvents(of: self))
                // Only with a contract's violations: WireMock's clients know no such field.
                + (violations.isEmpty ? [] : [("violations", .array(violations.map(\.json)))]))
    }

    private func understudyMembers(_ wanted: Bool) -> [(String, JSONValue)] {
        guard wanted else { return [] }
        let members: [(String, JSONValue)] = [("scope", .string(scope.name)), ("servedBy", backend.map(JSONValue.string) ?? .null)]
        return members + (truncatedFrom.map { [("responseBodyTruncatedFrom", JSONValue.int($0))] } ?? [])
    }

    /// WireMock 3's `subEvents`, only when there are some: 2.35's clients know no such field.
    private static func subEventsMember(_ events: [JournalSubEvent]) -> [(String, JSONValue)] {
        events.isEmpty ? [] : [("subEvents", .array(events.map(\.json)))]
    }
}

extension JournalEntry {
    /// A header sent more than once is listed with an array of values.
    public static func headersJSON(_ fields: HTTPHeaders) -> JSONValue {
        var headers: [(String, JSONValue)] = []
        for field in fields where !headers.contains(where: { HTTPHeaders.namesEqual($0.0, field.name) }) {
            let values = fields.values(for: field.name)
            headers.append((field.name, values.count == 1 ? .string(values[0]) : .array(values.map(JSONValue.string))))
        }
        return .object(headers)
    }
}

extension Response {
    /// `{}`: what WireMock answers to most admin calls that change something (deletions, scenario
    /// moves), and what its clients may parse.
    public static var emptyJSONObject: Response { .json("{}") }
}

extension Request {
    /// Whether an admin call names its scope in the query (`?scope=NAME`, or `*` for every scope).
    /// WireMock's clients never do, and they refuse fields their model lacks, so only then do
    /// WireMock-shaped answers carry Understudy's own fields (`scope`, `servedBy`, `misses`).
    public var asksForUnderstudyFields: Bool {
        rawQuery != nil && query("scope") != nil
    }
}

extension RequestContext {
    /// Whose journal entries an admin call reads or removes: the request's scope, or every
    /// scope's for `?scope=*`.
    public func journalScope(for request: Request) -> StateScope? {
        request.rawQuery != nil && request.query("scope") == "*" ? nil : scope
    }
}
