import HTTPServer
import JSON
import Logging
import WorkLimits

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

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
    /// Every live state scope; each request names one (or gets `default`).
    public let scopes: StateScopes
    /// Proxy duty for devices (CONNECT, hosts.json); nil: requests are routed by path alone.
    public let deviceMode: (any ForwardProxy)?
    /// Each backend once (a backend may have several mounts).
    private let backends: [any Backend]
    /// Counters for `/__admin/metrics`, and each route's backend number in them.
    let metrics: ServerMetrics
    private let routeMetricSlots: [Int]
    private var proxyMetricSlot: Int { backends.count }
    /// Every route's prefix bytes back to back, so one pass per request tests them all without
    /// touching reference counts.
    private let prefixBytes: [UInt8]
    private let prefixRanges: [Range<Int>]
    /// Of the first 64 routes: the bits of those mounted at "/", and the others with their prefix's bytes.
    private let rootMountBits: UInt64
    private let prefixedRoutes: [(index: Int, range: Range<Int>)]
    private let logger: Logger
    /// One line per request (`--verbose`); nil: nothing on the request path.
    private let requestLog: RequestLog?
    private let adminGuard: AdminGuard
    /// The other replicas of a team server, which the `default` scope's admin writes reach too.
    private let fleet: (any TeamFleet)?
    /// Every admin route, for the guard's public ones.
    public let adminRoutes: AdminRouteTable
    /// The bit of the built-in admin API's route in `mountsHolding`.
    private let adminMountBit: UInt64
    /// Where WebSocket channels go (the message stubs); nil: upgrades are answered as requests.
    private let channelHost: (any ChannelHost)?
    /// What may record a WebSocket instead (the recording proxy while it records).
    private let channelRecorders: [any ChannelRecorder]
    /// The work one request may make its loop do; nil: `RequestBudget`'s default.
    private let requestBudgetNanoseconds: UInt64?
    /// The API contract requests and answers are checked against (`serve --openapi`); nil: none.
    private let contract: (any ContractCheck)?

    /// `backends` are mounted beside the built-in admin API (`/__admin/health`, `/__admin/reset`,
    /// `/__admin/requests`, `/__admin/scopes`); `shutdown` is what `POST /__admin/shutdown` calls;
    /// `adminGuard` decides who may reach anything under `/__admin`.
    public init(
        backends: [any Backend], journal: RequestJournal = RequestJournal(), scopes: StateScopes? = nil,
        deviceMode: (any ForwardProxy)? = nil, logger: Logger = Logger(label: "understudy"), adminGuard: AdminGuard = AdminGuard(),
        requestLog: RequestLog? = nil, fleet: (any TeamFleet)? = nil,
        requestBudgetNanoseconds: UInt64? = nil, contract: (any ContractCheck)? = nil, shutdown: (@Sendable () -> Void)? = nil
    ) {
        self.requestBudgetNanoseconds = requestBudgetNanoseconds
        self.contract = contract
        let scopes = scopes ?? StateScopes(logger: logger)
        let metrics = ServerMetrics(backends: backends.map(\.name) + ["proxy", "contract"])
        let admin = AdminAPI(backends: backends, journal: journal, scopes: scopes, metrics: metrics, shutdown: shutdown)
        let all: [any Backend] = [admin] + backends
        adminRoutes = admin.routeTable
        routes = all.flatMap { backend in backend.mounts.map { Route(prefix: Self.normalized($0), backend: backend) } }
            .enumerated()
            .sorted { a, b in
                let (x, y) = (a.element, b.element)
                if x.backend.tier != y.backend.tier { return x.backend.tier < y.backend.tier }
                if x.prefix.utf8.count != y.prefix.utf8.count { return x.prefix.utf8.count > y.prefix.utf8.count }
                return a.offset < b.offset
            }
            .map(\.element)
        var bytes: [UInt8] = []
        var ranges: [Range<Int>] = []
        for route in routes {
            ranges.append(bytes.count..<(bytes.count + route.prefix.utf8.count))
            bytes += route.prefix.utf8
        }
        self.backends = backends
        channelHost = backends.lazy.compactMap { $0 as? any ChannelHost }.first
        channelRecorders = backends.compactMap { $0 as? any ChannelRecorder }
        self.metrics = metrics
        routeMetricSlots = routes.map { route in backends.firstIndex { $0 === route.backend } ?? backends.count }
        prefixBytes = bytes
        prefixRanges = ranges
        let firstRoutes = routes.prefix(64).enumerated()
        rootMountBits = firstRoutes.reduce(0) { bits, route in route.element.prefix == "/" ? bits | 1 << UInt64(route.offset) : bits }
        prefixedRoutes = firstRoutes.filter { $0.element.prefix != "/" }.map { ($0.offset, ranges[$0.offset]) }
        self.journal = journal
        self.scopes = scopes
        // Entries of scopes that have gone: their state is gone too, and they would pin memory.
        scopes.onReclaim { [journal] in journal.remove { $0.scope.isDiscarded } }
        self.deviceMode = deviceMode
        self.logger = logger
        self.requestLog = requestLog
        self.adminGuard = adminGuard
        self.fleet = fleet
        // The admin tier sorts first, so this index is far below 64.
        let adminIndex = routes.firstIndex { $0.backend === admin } ?? 0
        adminMountBit = adminIndex < 64 ? 1 << UInt64(adminIndex) : 0
    }

    /// A request's way through the server, step by step: a CONNECT opens a tunnel; otherwise the
    /// request is admitted (its scope named, the admin guard passed), its scope's network applied,
    /// device mode's gate decides which emulators may answer, the API contract checks it, and the
    /// mounted backends are asked in order; the 404 page when none answers.
    public func handle(_ request: consuming Request, responder: Responder) {
        if request.method == .connect { return openTunnel(request, responder) }
        if let fleet, let waiting = fleet.answerWhileJoining(request) { return responder.send(waiting) }
        // Everything the request makes this loop do, from matching to the 404 page's near misses,
        // draws on one budget.
        let budget = RequestBudget.begin(limitNanoseconds: requestBudgetNanoseconds)
        defer { budget.end() }
        let admission: Admission
        do throws(Refusal) {
            admission = try admit(&request)
        } catch {
            return responder.send(error.response)
        }
        if let elsewhere = admission.elsewhere, let fleet {
            return fleet.answer(request, elsewhere: elsewhere, responder) { [self] request, responder in handle(request, responder: responder) }
        }
        let scope = admission.scope
        scope.noteUse(at: request.receivedAtNanos, countsRequest: !admission.isAdmin)
        // The scope's simulated network (admin calls are never slowed). Offline: the request never
        // arrived, so the connection closes without an answer and nothing is journaled.
        if !admission.isAdmin, let conditions = scope.networkConditions {
            if conditions.offline { return responder.fail(with: .emptyResponse) }
            responder.pacing = conditions.pacing(uploadBytes: request.body.count)
        }
        scopes.sweepIfDue(now: request.receivedAtNanos)
        var context = RequestContext(scope: scope, basePath: admission.basePath)
        let (emulators, offlineHost) = admission.isAdmin ? (.all, nil) : passDeviceGate(request, &context)
        if !admission.isAdmin, WebSocketHandshake.isUpgrade(request), tookUpgrade(request, responder, scope: scope, offlineHost: offlineHost) {
            return
        }
        var finding: ContractFinding? = nil
        if !admission.isAdmin, let contract {
            let screened = screen(request, against: contract, scope: scope)
            if let refusal = screened.refusal { return responder.send(refusal) }
            finding = screened.finding
        }
        if let (reply, route) = askBackends(request, admission, context, emulators) {
            let backend = routes[route].backend.name
            return finish(
                reply, from: backend, slot: routeMetricSlots[route], request, responder, isAdmin: admission.isAdmin, scope: scope,
                contract: finding)
        }
        if let offlineHost, let deviceMode {
            return finish(
                deviceMode.offlineReply(request, host: offlineHost), from: "proxy", slot: proxyMetricSlot, request, responder, isAdmin: false,
                scope: scope, contract: finding)
        }
        let nearMisses = NearMiss.closest(backends.flatMap { $0.nearMisses(for: request, in: scope) })
        let response = NotFoundPage.response(for: request, routes: routes, nearMisses: nearMisses)
        if !admission.isAdmin { record(request, response, backend: nil, slot: nil, scope: scope, violations: finding?.violations ?? []) }
        responder.send(response)
    }

    private var contractMetricSlot: Int { backends.count + 1 }

    // The two below are out of line: `handle` stays small enough for the optimizer to inline its
    // hot steps (it stops inlining into a function past a size), and neither runs for a plain request.

    /// A WebSocket upgrade: a device's to a host hosts.json does not map goes where its requests go
    /// (the offline answer); every other opens a channel. False when nothing takes it.
    @inline(never)
    private func tookUpgrade(_ request: Request, _ responder: Responder, scope: StateScope, offlineHost: String?) -> Bool {
        if offlineHost == nil, let record = recordingChannel(for: request) {
            upgrade(request, responder, then: record)
        } else if offlineHost == nil, let channelHost {
            openChannel(request, channelHost, scope, responder)
        } else if let offlineHost, let deviceMode, deviceMode.passesThrough {
            relayChannel(request, to: offlineHost, responder)
        } else {
            return false
        }
        return true
    }

    /// `request` checked against the API contract: the 400 that hard enforcement answers (journaled
    /// here), or what it breaks and the operation its answer is checked against. (A path the
    /// contract lacks breaks nothing under soft enforcement, which asks without the explanation.)
    @inline(never)
    private func screen(
        _ request: Request, against contract: any ContractCheck, scope: StateScope
    ) -> (refusal: Response?, finding: ContractFinding) {
        let hard = contract.enforcement == .hard
        let finding = contract.check(request: request, explainingUncovered: hard)
        if hard, !finding.violations.isEmpty {
            let refusal = ContractViolation.refusal(finding.violations, status: 400)
            record(request, refusal, backend: "contract", slot: contractMetricSlot, scope: scope, violations: finding.violations)
            return (refusal, finding)
        }
        return (nil, finding)
    }

    /// The answer to send for `response` and every violation of the exchange: under hard
    /// enforcement an answer that breaks the contract is replaced by a 502 naming what (but a
    /// stream, whose head is already going out).
    @inline(__always)
    private func vetted(_ response: Response, answering request: Request, contract finding: ContractFinding?) -> (Response, [ContractViolation]) {
        guard let contract, let finding else { return (response, []) }
        return vetted(response, answering: request, finding: finding, against: contract)
    }

    private func vetted(
        _ response: Response, answering request: Request, finding: ContractFinding, against contract: any ContractCheck
    ) -> (Response, [ContractViolation]) {
        let broken = finding.violations
        guard response.status > 0, let operation = finding.operation else { return (response, broken) }
        let violations = contract.check(response: response, to: request, operation: operation)
        guard !violations.isEmpty else { return (response, broken) }
        let streams = response.headers["Content-Type"]?.hasPrefix("text/event-stream") ?? false
        if contract.enforcement == .hard, !streams { return (ContractViolation.refusal(violations, status: 502), broken + violations) }
        return (response, broken + violations)
    }

    /// An answer given before any backend sees the request (a bad scope name, refused proxy
    /// credentials, an admin call the guard refuses).
    private struct Refusal: Error {
        let response: Response
    }

    /// What admitting a request found.
    private struct Admission {
        let scope: StateScope
        /// `/__scope/NAME` when the path carried it (taken off the request), else "".
        let basePath: String
        let isAdmin: Bool
        /// Bit i set when route i's prefix holds the path (the first 64 routes).
        let mounted: UInt64
        /// On a team server: the request's scope lives on another replica, or is lost.
        var elsewhere: ScopePlacement? = nil
    }

    /// A CONNECT: device mode opens a tunnel (none for an offline scope's device); without device
    /// mode this server is no proxy.
    private func openTunnel(_ request: Request, _ responder: Responder) {
        guard let deviceMode else {
            return responder.send(.text("CONNECT is for proxies: this server is not one (device mode is off).\n", status: 501))
        }
        deviceMode.answerConnect(request, responder) { [scopes] name in
            (name.map { scopes.existing($0) } ?? scopes.default)?.networkConditions?.offline ?? false
        }
    }

    /// A WebSocket upgrade: the channel opens (on any path, as WireMock 4's) and goes to the
    /// channel host, or the client is told why not. Not journaled: the journal of a channel is
    /// its messages'.
    private func openChannel(_ request: Request, _ host: any ChannelHost, _ scope: StateScope, _ responder: Responder) {
        if let refusal = host.refusal(toOpenIn: scope) { return responder.send(refusal) }
        let opening = copy request
        upgrade(request, responder, choosingProtocol: host.subprotocol(choosingFrom:)) { channel in host.opened(channel, by: opening, in: scope) }
    }

    /// What records the channel `request` opens, if a recorder does now.
    private func recordingChannel(for request: Request) -> ((WebSocketChannel) -> Void)? {
        for recorder in channelRecorders {
            if let record = recorder.recordingChannel(for: request) { return record }
        }
        return nil
    }

    /// The 101 and the channel for `opened`, or the answer that says why the upgrade is refused.
    private func upgrade(
        _ request: Request, _ responder: Responder, choosingProtocol choose: ([String]) -> String? = { _ in nil },
        then opened: @escaping (WebSocketChannel) -> Void
    ) {
        switch WebSocketHandshake.read(request) {
        case .failure(let refusal): responder.send(refusal.response)
        case .success(var handshake):
            handshake.selectedProtocol = choose(handshake.offeredProtocols)
            responder.upgradeToWebSocket(handshake, opened: opened)
        }
    }

    /// A device's WebSocket to a host nothing maps, with `--pass-through`: opened here and relayed
    /// to the real host (its messages both ways, closes passed on).
    private func relayChannel(_ request: Request, to host: String, _ responder: Responder) {
        let port = request.requestedHost?.port ?? 80
        let pathAndQuery = request.rawPath + (request.rawQuery.map { "?" + $0 } ?? "")
        guard let target = WebSocketClient.Target("ws://\(host.contains(":") ? "[\(host)]" : host):\(port)\(pathAndQuery)") else {
            return responder.send(.text("Cannot relay a WebSocket to \(host): not a URL this server can reach.\n", status: 400))
        }
        let headers = WebSocketRelay.forwardedHeaders(request.headers)
        upgrade(request, responder) { channel in WebSocketRelay.open(channel, to: target, headers: headers) }
    }

    /// Names the request's scope (taking a `/__scope/NAME/` prefix off its path) and lets an admin
    /// call through the guard; throws the answer when either refuses.
    @inline(__always)
    private func admit(_ request: inout Request) throws(Refusal) -> Admission {
        // Through device mode's proxy the scope may come from the proxy: a tunnel's (given at its
        // CONNECT), the port's (a scope's own proxy port), or this request's credentials.
        var proxyScope = request.tunnelScope ?? deviceMode?.scope(ofLocalPort: request.localPort)
        if request.isProxied { proxyScope = try readProxyCredentials(&request, scope: proxyScope) }
        // The scope's path prefix comes off before anything looks at the path.
        let named: ScopeSelection.Named
        do throws(ScopeRefusal) {
            named = try ScopeSelection.read(&request, proxyScope: proxyScope)
        } catch {
            throw Refusal(response: error.response)
        }
        // Admin calls are not the app's requests: WireMock does not journal them either, so counts
        // and verifications see only what the app sent.
        let mounted = mountsHolding(request.path)
        // The built-in admin API's mount is among the first routes (its tier comes first), so the
        // prefix test is already in `mounted`.
        let isAdmin = mounted & adminMountBit != 0
        if isAdmin, let refusal = adminGuard.refusal(for: request, isPublic: adminRoutes.isPublic(request)) ?? PeerCall.refusal(of: request) {
            // Not journaled (the journal is what the app under test sent) and logged only with
            // --verbose: the client is told why, and a hostile page could flood the log.
            logger.debug("admin API refused \(request.method.rawValue) \(request.path) from \(request.remoteAddress): status \(refusal.status)")
            throw Refusal(response: refusal)
        }
        do throws(ScopeRefusal) {
            let name = isAdmin ? try ScopeSelection.adminQueryName(request, given: named.name) : named.name
            if let fleet, let elsewhere = placement(of: request, subject: isAdmin ? ScopeRoute(request)?.name ?? name : name, in: fleet) {
                return Admission(scope: scopes.default, basePath: named.basePath, isAdmin: isAdmin, mounted: mounted, elsewhere: elsewhere)
            }
            let scope = name.map { scopes.scope(named: $0, now: request.receivedAtNanos) } ?? scopes.default
            return Admission(scope: scope, basePath: named.basePath, isAdmin: isAdmin, mounted: mounted)
        } catch {
            throw Refusal(response: error.response)
        }
    }

    /// The scope a request through the proxy names by its credentials (unless `scope`, its
    /// tunnel's or port's, already names one). Read, the proxy password goes: nothing after this (a
    /// backend, the journal, which the admin API and the dashboard serve) sees it. Out of line:
    /// only a request through the proxy comes here.
    @inline(never)
    private func readProxyCredentials(_ request: inout Request, scope: String?) throws(Refusal) -> String? {
        var scope = scope
        if scope == nil, let deviceMode {
            do throws(ProxyRefusal) {
                scope = try deviceMode.scopeOfCredentials(request)
            } catch {
                throw Refusal(response: error.response)
            }
        }
        ProxyCredentials.redact(&request.headers)
        return scope
    }

    /// Device mode's gate for an app's request: a device's request for a real host may be answered
    /// only by what hosts.json names for it, and by no emulator for a host it does not name (then
    /// the host, for the offline answer).
    @inline(__always)
    private func passDeviceGate(_ request: Request, _ context: inout RequestContext) -> (EmulatorsAllowed, offlineHost: String?) {
        guard let deviceMode else { return (.all, nil) }
        switch deviceMode.gate(request, &context) {
        case .ordinary: return (.all, nil)
        case .mapped(let backend): return (backend.map(EmulatorsAllowed.only) ?? .none, nil)
        case .offline(let host):
            // Stubs and recordings may still answer it (a mapping for that host); no emulator does.
            context.forUnmappedHost = true
            return (.none, host)
        }
    }

    /// Asks the backends whose mount holds the path, in resolution order, until one answers: its
    /// reply and route; nil when all declined.
    @inline(__always)
    private func askBackends(_ request: Request, _ admission: Admission, _ context: RequestContext, _ emulators: EmulatorsAllowed) -> (
        Reply, route: Int
    )? {
        for index in routes.indices
        where index >= 64
            ? Self.path(request.path, isUnder: routes[index].prefix)
            : admission.mounted & (1 << index) != 0
        {
            let backend = routes[index].backend
            // Stubs and recordings answer any host (a mapping says when it is for one host only).
            if backend.tier >= .emulator, !emulators.allows(backend.name) { continue }
            let reply = backend.handle(request, context)
            if case .decline = reply { continue }
            return (reply, index)
        }
        return nil
    }

    /// Which emulators (and fallbacks) may answer a request: a device's request for a host
    /// hosts.json maps goes to that host's emulator only, one for a host it does not map to none.
    private enum EmulatorsAllowed {
        case all
        case only(String)
        case none

        @inline(__always)
        func allows(_ name: String) -> Bool {
            switch self {
            case .all: true
            case .only(let allowed): name == allowed
            case .none: false
            }
        }
    }

    /// Sends a backend's reply (now or when it comes), journaled unless an admin call.
    @inline(__always)
    private func finish(
        _ reply: consuming Reply, from backend: String, slot: Int, _ request: consuming Request, _ responder: Responder,
        isAdmin: Bool, scope: StateScope, contract finding: ContractFinding? = nil
    ) {
        switch consume reply {
        case .response(let response):
            // Journaled before it is sent: a client that verifies right after its answer
            // must find its request.
            guard isAdmin else {
                let (answer, violations) = vetted(response, answering: request, contract: finding)
                record(request, answer, backend: backend, slot: slot, scope: scope, violations: violations)
                return responder.send(answer)
            }
            answerAdminCall(request, response, scope: scope, on: responder.loop) { responder.send($0) }
        case .deferred(let start):
            guard !isAdmin else { return start(DeferredReply(responder: responder) { ($0, nil) }) }
            let pending = copy request
            start(
                DeferredReply(responder: responder) { [self] response in
                    let (answer, violations) = vetted(response, answering: pending, contract: finding)
                    let entry = record(pending, answer, backend: backend, slot: slot, scope: scope, violations: violations)
                    return (answer, JournalRecord(entry: entry, journal: journal))
                })
        case .decline:
            break
        }
    }

    /// Where the scope of `request` (`subject`: the one it names, or the one its
    /// `/__admin/scopes/NAME…` route is about) lives when not here: nil when here, or unknown (it
    /// is made here).
    private func placement(of request: Request, subject: String?, in fleet: any TeamFleet) -> ScopePlacement? {
        guard let subject, subject != StateScope.defaultName, scopes.existing(subject) == nil else { return nil }
        return fleet.placement(of: request, scope: subject)
    }

    /// An admin call's answer: on a team server, a shared write goes to the peers before it is
    /// answered and a fleet-wide read gathers theirs; `send` gets the answer on `loop`.
    private func answerAdminCall(
        _ request: Request, _ response: Response, scope: StateScope, on loop: EventLoop, _ send: @escaping (Response) -> Void
    ) {
        guard let fleet else { return send(response) }
        fleet.pass(adminCall: request, answered: response, scope: scope, on: loop, send: send)
    }

    /// An admin call made inside the server, as an MCP tool makes it: admitted as a request over a
    /// socket is (the guard, the scope it names), dispatched by the route table and, on a team
    /// server, sent to the peers. It draws on the budget of the request being handled. `done` gets
    /// the answer on `loop`; `callerHasGone` says whether whoever waits for it has left.
    public func performAdminCall(
        _ request: consuming Request, on loop: EventLoop, callerHasGone: @escaping () -> Bool, _ done: @escaping (Response) -> Void
    ) {
        let admission: Admission
        do throws(Refusal) {
            admission = try admit(&request)
        } catch {
            return done(error.response)
        }
        let notAdmin = Response.json(
            JSONValue.object([("message", .string("\(request.path) is not a route of the admin API (GET /__admin/routes lists them)"))]).serialized,
            status: 404)
        guard admission.isAdmin else { return done(notAdmin) }
        // On a team server, a call in a scope that lives elsewhere goes there (or says it is lost).
        if let elsewhere = admission.elsewhere {
            return fleet?.answer(adminCall: request, elsewhere: elsewhere, on: loop, done: done) ?? done(notAdmin)
        }
        admission.scope.noteUse(at: request.receivedAtNanos, countsRequest: false)
        switch adminRoutes.dispatch(request, RequestContext(scope: admission.scope, basePath: admission.basePath)) {
        case .response(let response): answerAdminCall(request, response, scope: admission.scope, on: loop, done)
        case .deferred(let start): start(DeferredReply(callerOn: loop, hasGone: callerHasGone, take: done))
        case .decline, nil: done(notAdmin)
        }
    }

    @discardableResult
    private func record(
        _ request: consuming Request, _ response: Response, backend: String?, slot: Int?, scope: StateScope, violations: [ContractViolation] = []
    ) -> JournalEntry {
        if let channelHost, channelHost.watchesHTTP { channelHost.served(request, by: backend, in: scope) }
        let now = MonotonicClock.nanoseconds()
        let duration = now &- request.receivedAtNanos
        if let requestLog {
            requestLog.emit(
                requestLog.line(
                    loggedAt: MonotonicClock.wallSeconds(), method: request.method.rawValue, target: request.target,
                    status: response.status, servedBy: backend, micros: Int(clamping: duration / 1_000), scope: scope.name))
        }
        metrics.record(backend: slot, status: response.status, durationNanos: duration)
        if !violations.isEmpty { metrics.recordContractViolations(violations) }
        return journal.record(
            request, scope: scope, backend: backend, response: response, atMonotonicNanos: now, durationNanos: duration, violations: violations)
    }

    /// Bit i set when route i's prefix holds `path` (for the first 64 routes). Routes mounted at
    /// "/" hold every path that starts with "/": their bits are set without a comparison.
    private func mountsHolding(_ path: String) -> UInt64 {
        var path = path
        return path.withUTF8 { p in
            prefixBytes.withUnsafeBufferPointer { all in
                var mask = p.first == UInt8(ascii: "/") ? rootMountBits : 0
                for (index, range) in prefixedRoutes where Self.bytes(p, areUnder: UnsafeBufferPointer(rebasing: all[range])) {
                    mask |= 1 << UInt64(index)
                }
                return mask
            }
        }
    }

    private static func bytes(_ p: UnsafeBufferPointer<UInt8>, areUnder q: UnsafeBufferPointer<UInt8>) -> Bool {
        guard p.count >= q.count, let pBase = p.baseAddress, let qBase = q.baseAddress,
            memcmp(pBase, qBase, q.count) == 0
        else { return false }
        return p.count == q.count || q.last == UInt8(ascii: "/") || p[q.count] == UInt8(ascii: "/")
    }

    /// Whether `path` is `prefix` itself or lies below it ("/a" holds "/a" and "/a/b", not "/ab").
    public static func path(_ path: String, isUnder prefix: String) -> Bool {
        var path = path
        var prefix = prefix
        return path.withUTF8 { p in prefix.withUTF8 { q in bytes(p, areUnder: q) } }
    }

    /// Mount prefixes start with "/" and, but for the root, end without one.
    public static func normalized(_ prefix: String) -> String {
        var prefix = prefix.hasPrefix("/") ? prefix : "/" + prefix
        while prefix.count > 1 && prefix.hasSuffix("/") { prefix.removeLast() }
        return prefix
    }
}

extension Router: AdminCalls {}
