import Foundation
import HTTPServer
import JSON
import Logging
import MockCore
import Synchronization

/// Sends stubs' webhooks from the loop that answered, after the answer, with the loop's own
/// outbound client: nothing blocks, and the stub's answer never waits for a webhook or fails with
/// one. Each webhook's request and its answer (or why there was none) are journaled as sub-events
/// of the triggering request's serve event, and logged.
///
/// Where a webhook may go: as device mode never reaches a real host unasked, a webhook goes to a
/// loopback address, to a host `hosts.json` maps (delivered to this server itself, with that
/// `Host`), or to a host named with `--allow-webhook-host` (any host with `--pass-through`). A name
/// is resolved first and judged by every address it resolves to (`WebhookDestination`); the
/// connection goes to the address judged. Any other is not sent, and the log says which option
/// would send it.
///
/// What a webhook may hold: its rendered request counts in the unsent-bytes bound from its
/// stub's answer to its own answer; it waits out its delay (at most `Webhook.maxDelay`) on a
/// timer, holding no connection; in flight it holds one of `maxInFlight` slots (a scope at most
/// `maxInFlightPerScope` of them) for at most `deadline`, from send to last byte. It is cancelled
/// when its mapping is removed or its scope is reset or ends. A chain of webhooks calling stubs
/// that fire webhooks stops after `maxHops` levels (`hopsHeader`).
public final class WebhookDispatch: Sendable {
    /// The longest a webhook may take from send (its host resolved, connected) to its answer's
    /// last byte; also the inactivity limit of its connection.
    static let deadline: Duration = .seconds(10)
    /// A receiver's answer larger than this is dropped (journaled as an error); it counts in the
    /// unsent-bytes bound while the webhook is in flight, as the request does.
    static let maxAnswerBytes = 256 * 1024
    /// Of the request and the answer, the sub-events keep this much of the body, of the URL, and of
    /// the header lines together.
    static let keptBodyBytes = 16 * 1024
    /// Webhooks connecting or waiting for their answer at once; past it, new ones are not sent.
    public static let maxInFlight = 256
    /// Of those, one scope's at most: three other scopes always find slots.
    static let maxInFlightPerScope = maxInFlight / 4
    /// What a webhook costs beyond its bytes (its timer, its state), counted so that many small
    /// ones are bounded too.
    static let overheadBytes = 1024
    /// Sent with every webhook: how many webhooks led to it. A request that arrives with this many
    /// fires none, so stubs whose webhooks call stubs with webhooks stop (two self-calling webhooks
    /// make at most 2 + 4 + 8 requests).
    public static let hopsHeader = "X-Understudy-Webhook-Hops"
    public static let maxHops = 3

    public struct Policy: Sendable {
        /// Hosts (lower case) a webhook may reach beyond loopback and `hosts.json`.
        public var allowedHosts: Set<String> = []
        /// Any host may be reached (`--pass-through`).
        public var anyHost = false
        /// Whether `hosts.json` maps a host (device mode).
        public var isMapped: @Sendable (String) -> Bool = { _ in false }
        /// Resolves a name allowed beyond loopback (`allowedHosts`, `anyHost`) on a loop: the loop's
        /// resolver, DNS included (tests give their own).
        public var resolve: @Sendable (_ host: String, _ loop: EventLoop, _ completion: @escaping ([String]) -> Void) -> Void = {
            host, loop, completion in loop.resolveAddresses(of: host, completion: completion)
        }
        /// Resolves any other name: by the hosts file alone, so no DNS query goes out for a name
        /// nobody allowed (tests give their own).
        public var resolveLocally: @Sendable (_ host: String) -> [String] = { HostsFile.system.lookUp($0) }
        /// From send to the answer's last byte, at most (tests shorten it).
        public var deadline = WebhookDispatch.deadline

        public init() {}
    }

    private struct Slots {
        var inFlight = 0
        var byScope: [ObjectIdentifier: Int] = [:]
    }

    private let policy: Mutex<Policy>
    /// This server's own plain-HTTP port, for webhooks to hosts it answers for (0: not listening yet).
    private let ownPort = Atomic<Int>(0)
    private let slots = Mutex(Slots())
    /// Every webhook not finished yet, by its id: what a removed mapping or a reset scope cancels.
    private let pending = Mutex<[UInt64: PendingWebhook]>([:])
    private let nextID = Atomic<UInt64>(1)
    private let scopeKey: ScopeKey<WebhookScopeState>
    private let logger: Logger
    private let throttle = LogThrottle { count, seconds in "\(count) more webhook problem(s) in the last \(seconds) s" }

    public init(policy: Policy = Policy(), logger: Logger = Logger(label: "understudy")) {
        self.policy = Mutex(policy)
        self.logger = logger
        // The scope's state refers to the dispatch weakly: a scope may outlive a server's engines (tests).
        let registry = WeakDispatch()
        scopeKey = ScopeKey { scope in
            let id = ObjectIdentifier(scope)
            return WebhookScopeState { registry.dispatch?.cancel(because: "its scope was reset or has gone") { ObjectIdentifier($0.scope) == id } }
        }
        registry.dispatch = self
    }

    public func configure(_ change: (inout Policy) -> Void) { policy.withLock { change(&$0) } }

    /// The port this server answers plain HTTP on, once it listens.
    public func listening(onPort port: Int) { ownPort.store(port, ordering: .relaxed) }

    /// Webhooks waiting or in flight (tests, the dashboard).
    public var pendingCount: Int { pending.withLock { $0.count } }

    /// Sends `hooks` of the mapping `mapping` for `request` (answered in `scope`, journaled as
    /// `entry`), on `loop`.
    func fire(
        _ hooks: [Webhook], for request: Request, scope: StateScope, entry: JournalRecord?, stub: String, mapping: String, on loop: EventLoop
    ) {
        let hops = request.headers[Self.hopsHeader].flatMap { Int($0.trimmingCharacters(in: .whitespaces)) } ?? 0
        guard hops < Self.maxHops else {
            return report(
                "not sent: the request came from a chain of \(hops) webhooks (\(Self.hopsHeader)), at most \(Self.maxHops)", entry: entry, stub: stub)
        }
        _ = scope[scopeKey]  // made now, so that the scope's reset or end cancels these
        for hook in hooks {
            var outbound: OutboundRequest
            switch hook.rendered(for: request) {
            case .failure(let problem):
                report(problem.message, entry: entry, stub: stub)
                continue
            case .success(let rendered): outbound = rendered
            }
            outbound.headers.set(Self.hopsHeader, String(max(0, hops) + 1))
            if !scope.isDefault { outbound.headers.set("X-Understudy-Scope", scope.name) }
            let bytes = Self.overheadBytes + Self.size(of: outbound)
            guard loop.reserveUnsentBytes(bytes) else {
                report("not sent: its \(bytes) bytes do not fit under --max-unsent-bytes now", entry: entry, stub: stub)
                continue
            }
            let webhook = PendingWebhook(
                id: nextID.add(1, ordering: .relaxed).oldValue, mapping: mapping, scope: scope, loop: loop, stub: stub, entry: entry,
                outbound: outbound, reservedBytes: bytes)
            pending.withLock { $0[webhook.id] = webhook }
            let delay = hook.sampledDelay()
            if delay > .zero {
                webhook.timer = loop.schedule(after: delay) { [self] in send(webhook) }
            } else {
                send(webhook)
            }
        }
    }

    /// Cancels the webhooks whose mapping is not among those `live` gives for their scope (asked
    /// once per scope): what a removed mapping fired no longer goes out, nor holds anything.
    public func cancel(because reason: String, keeping live: (StateScope) -> Set<String>) {
        var known: [ObjectIdentifier: Set<String>] = [:]
        let all = pending.withLock { Array($0.values) }
        var gone: [PendingWebhook] = []
        for webhook in all {
            let id = ObjectIdentifier(webhook.scope)
            let ids = known[id] ?? live(webhook.scope)
            known[id] = ids
            if !ids.contains(webhook.mapping) { gone.append(webhook) }
        }
        stop(gone, because: reason)
    }

    private func cancel(because reason: String, where chosen: (PendingWebhook) -> Bool) {
        stop(pending.withLock { $0.values.filter(chosen) }, because: reason)
    }

    private func stop(_ webhooks: [PendingWebhook], because reason: String) {
        for webhook in webhooks {
            let loop = webhook.loop
            _ = loop.execute { [self] in stop(webhook, because: reason) }
        }
    }

    /// On the webhook's loop: stops it wherever it is (waiting, resolving, in flight).
    private func stop(_ webhook: PendingWebhook, because reason: String) {
        guard !webhook.isFinished else { return }
        webhook.stoppedBecause = reason
        if let call = webhook.call {
            call.cancel()  // its completion reports and finishes it
        } else {
            end(webhook, problem: "cancelled: \(reason)")
        }
    }

    /// On the loop, once its delay is over: takes a slot, then finds where it may go and sends it.
    private func send(_ webhook: PendingWebhook) {
        webhook.timer = nil
        guard !webhook.isFinished else { return }
        let scopeID = ObjectIdentifier(webhook.scope)
        let taken = slots.withLock { slots -> Bool in
            guard slots.inFlight < Self.maxInFlight, slots.byScope[scopeID, default: 0] < Self.maxInFlightPerScope else { return false }
            slots.inFlight += 1
            slots.byScope[scopeID, default: 0] += 1
            return true
        }
        guard taken else {
            return end(
                webhook,
                problem: "not sent: \(Self.maxInFlight) webhooks are in flight already, or \(Self.maxInFlightPerScope) of scope \(webhook.scope.name)"
            )
        }
        webhook.holdsSlot = true
        // Reserved now: a slot's connection holds at most this much of an answer.
        if webhook.loop.reserveUnsentBytes(Self.maxAnswerBytes) {
            webhook.reservedBytes += Self.maxAnswerBytes
        } else {
            return end(webhook, problem: "not sent: room for its answer does not fit under --max-unsent-bytes now")
        }
        let policy = policy.withLock { $0 }
        webhook.timer = webhook.loop.schedule(after: policy.deadline) { [self] in
            webhook.timer = nil
            stop(webhook, because: "no complete answer within \(policy.deadline) of sending")
        }
        guard let target = WebhookTarget(webhook.outbound.url) else {
            return end(webhook, problem: "the webhook's url '\(LogText.escaped(webhook.outbound.url))' is not an http:// or https:// URL")
        }
        if policy.isMapped(target.host) {
            let port = ownPort.load(ordering: .relaxed)
            guard port > 0 else { return end(webhook, problem: "not sent to \(target.host): this server is not listening yet") }
            // This server answers for the host: the request comes here, with the host's name.
            let afterAuthority = webhook.outbound.url.drop { $0 != "/" }.dropFirst(2).drop { $0 != "/" && $0 != "?" }
            webhook.outbound.url = "http://127.0.0.1:\(port)" + (afterAuthority.isEmpty ? "/" : afterAuthority)
            let defaultPort = target.secure ? 443 : 80
            webhook.outbound.headers.set("Host", target.port == defaultPort ? target.host : "\(target.host):\(target.port)")
            return connect(webhook)
        }
        let decide = { [self] (addresses: [String]) in
            guard !webhook.isFinished else { return }
            switch WebhookDestination.decide(host: target.host, addresses: addresses, allowedHosts: policy.allowedHosts, anyHost: policy.anyHost) {
            case .failure(let problem): end(webhook, problem: problem.message)
            case .success(let address):
                webhook.outbound.connectAddress = address
                connect(webhook)
            }
        }
        if HostName.isIPAddress(target.host) { return decide([target.host]) }
        guard policy.anyHost || policy.allowedHosts.contains(target.host) else { return decide(policy.resolveLocally(target.host)) }
        policy.resolve(target.host, webhook.loop, decide)
    }

    private func connect(_ webhook: PendingWebhook) {
        webhook.entry?.append(subEvent: "WEBHOOK_REQUEST", Self.requestJSON(webhook.outbound, url: webhook.renderedURL))
        let outbound = webhook.outbound
        webhook.call = webhook.loop.send(outbound) { [self] result in
            switch result {
            case .success(let answer):
                webhook.entry?.append(subEvent: "WEBHOOK_RESPONSE", Self.responseJSON(answer))
                logger.debug("webhook \(outbound.method.rawValue) \(LogText.escaped(webhook.renderedURL)) answered \(answer.status)")
                end(webhook, problem: nil)
            case .failure(let error):
                let why = webhook.stoppedBecause.map { "cancelled: \($0)" } ?? "\(error)"
                end(webhook, problem: "\(outbound.method.rawValue) \(webhook.renderedURL): \(why)")
            }
        }
    }

    /// Gives back all it held, once; journals and logs `problem` when there is one.
    private func end(_ webhook: PendingWebhook, problem: String?) {
        let holdsSlot = webhook.holdsSlot
        guard webhook.finish() else { return }
        pending.withLock { _ = $0.removeValue(forKey: webhook.id) }
        if holdsSlot {
            let scopeID = ObjectIdentifier(webhook.scope)
            slots.withLock { slots in
                slots.inFlight -= 1
                slots.byScope[scopeID, default: 1] -= 1
                if slots.byScope[scopeID] == 0 { slots.byScope[scopeID] = nil }
            }
        }
        if let problem { report(problem, entry: webhook.entry, stub: webhook.stub) }
    }

    private func report(_ message: String, entry: JournalRecord?, stub: String) {
        entry?.append(subEvent: "ERROR", .object([("message", .string("webhook: " + Self.kept(message)))]))
        for line in throttle.lines({ "webhook of stub \(stub): \(LogText.escaped(message))" }) { logger.warning("\(line)") }
    }

    /// Bytes a rendered request holds: its URL, header lines and body.
    static func size(of outbound: OutboundRequest) -> Int {
        outbound.url.utf8.count + outbound.body.count + outbound.headers.fields.reduce(0) { $0 + $1.name.utf8.count + $1.value.utf8.count + 4 }
    }

    /// At most `keptBodyBytes` of `text` (cut on a character).
    private static func kept(_ text: String) -> String {
        guard text.utf8.count > keptBodyBytes else { return text }
        return String(decoding: text.utf8.prefix(keptBodyBytes), as: UTF8.self)
    }

    /// Header lines up to `keptBodyBytes` together; the rest are left out.
    private static func keptHeaders(_ headers: HTTPHeaders) -> JSONValue {
        var kept = HTTPHeaders()
        var total = 0
        for field in headers.fields {
            total += field.name.utf8.count + field.value.utf8.count + 4
            guard total <= keptBodyBytes else { break }
            kept.add(field.name, field.value)
        }
        return JournalEntry.headersJSON(kept)
    }

    /// The request as the stub asked for it (its URL before a mapped host's was pointed here), in
    /// the shape of WireMock 3.13's logged request: `url` the path and query, `absoluteUrl` all of
    /// it, and its scheme, host and port; the body only when there is one.
    private static func requestJSON(_ outbound: OutboundRequest, url: String) -> JSONValue {
        let parts = URLComponents(string: url)
        let scheme = parts?.scheme ?? "http"
        let path = parts?.percentEncodedPath ?? ""
        var queryParams: [(String, JSONValue)] = []
        for item in parts?.queryItems ?? [] where !queryParams.contains(where: { $0.0 == item.name }) {
            let values = (parts?.queryItems ?? []).filter { $0.name == item.name }.map { JSONValue.string($0.value ?? "") }
            queryParams.append((item.name, .object([("key", .string(item.name)), ("values", .array(values))])))
        }
        let now = Date().timeIntervalSince1970
        let body = Array(outbound.body.prefix(keptBodyBytes))
        let bodyMembers: [(String, JSONValue)] =
            body.isEmpty
            ? [] : [("bodyAsBase64", .string(Data(body).base64EncodedString())), ("body", .string(String(decoding: body, as: UTF8.self)))]
        return .object(
            [
                ("url", .string(kept((path.isEmpty ? "/" : path) + (parts?.percentEncodedQuery.map { "?" + $0 } ?? "")))),
                ("absoluteUrl", .string(kept(url))),
                ("method", .string(outbound.method.rawValue)),
                ("headers", keptHeaders(outbound.headers)),
                ("browserProxyRequest", false),
                ("loggedDate", .int(Int(now * 1000))),
            ] + bodyMembers + [
                ("scheme", .string(scheme)),
                ("host", .string(parts?.host ?? "")),
                ("port", .int(parts?.port ?? (scheme == "https" ? 443 : 80))),
                ("loggedDateString", .string(Timestamp.iso8601(now))),
                ("queryParams", .object(queryParams)),
                ("formParams", .object([])),
            ])
    }

    private static func responseJSON(_ answer: Response) -> JSONValue {
        .object([
            ("status", .int(answer.status)),
            ("headers", keptHeaders(answer.headers)),
            ("body", .string(String(decoding: answer.body.bytes.prefix(keptBodyBytes), as: UTF8.self))),
        ])
    }
}

/// The dispatch as its scopes' states reach it: weakly, set once it is made.
private final class WeakDispatch: @unchecked Sendable {
    // @unchecked: written once, in the dispatch's init, before any scope can read it.
    weak var dispatch: WebhookDispatch?
}
