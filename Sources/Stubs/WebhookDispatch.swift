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
/// `Host`), or to a host named with `--allow-webhook-host` (any host with `--pass-through`). Any
/// other is not sent, and the log says which option would send it.
public final class WebhookDispatch: Sendable {
    static let timeout: Duration = .seconds(10)
    /// A receiver's answer larger than this is dropped (journaled as an error).
    static let maxAnswerBytes = 1 << 20
    /// Of an answer, the sub-event keeps this much of the body.
    static let keptBodyBytes = 16 * 1024
    /// Webhooks waiting for their delay or their answer at once; past it, new ones are not sent.
    static let maxInFlight = 256

    public struct Policy: Sendable {
        /// Hosts (lower case) a webhook may reach beyond loopback and `hosts.json`.
        public var allowedHosts: Set<String> = []
        /// Any host may be reached (`--pass-through`).
        public var anyHost = false
        /// Whether `hosts.json` maps a host (device mode).
        public var isMapped: @Sendable (String) -> Bool = { _ in false }

        public init() {}
    }

    private let policy: Mutex<Policy>
    /// This server's own plain-HTTP port, for webhooks to hosts it answers for (0: not listening yet).
    private let ownPort = Atomic<Int>(0)
    private let inFlight = Atomic<Int>(0)
    private let logger: Logger
    private let throttle = LogThrottle { count, seconds in "\(count) more webhook problem(s) in the last \(seconds) s" }

    public init(policy: Policy = Policy(), logger: Logger = Logger(label: "understudy")) {
        self.policy = Mutex(policy)
        self.logger = logger
    }

    public func configure(_ change: (inout Policy) -> Void) { policy.withLock { change(&$0) } }

    /// The port this server answers plain HTTP on, once it listens.
    public func listening(onPort port: Int) { ownPort.store(port, ordering: .relaxed) }

    /// Sends `hooks` for `request` (answered in `scope`, journaled as `entry`), on `loop`.
    func fire(_ hooks: [Webhook], for request: Request, scope: StateScope, entry: JournalRecord?, stub: String, on loop: EventLoop) {
        for hook in hooks {
            switch hook.rendered(for: request) {
            case .failure(let problem): report(problem.message, entry: entry, stub: stub)
            case .success(var outbound):
                guard let target = WebhookTarget(outbound.url) else { continue }
                let renderedURL = outbound.url
                switch route(outbound, to: target) {
                case .failure(let problem):
                    report(problem.message, entry: entry, stub: stub)
                    continue
                case .success(let routed): outbound = routed
                }
                if !scope.isDefault { outbound.headers.set("X-Understudy-Scope", scope.name) }
                guard inFlight.add(1, ordering: .relaxed).newValue <= Self.maxInFlight else {
                    inFlight.subtract(1, ordering: .relaxed)
                    report("not sent: \(Self.maxInFlight) webhooks are waiting already", entry: entry, stub: stub)
                    continue
                }
                let send = { [self] in
                    entry?.append(subEvent: "WEBHOOK_REQUEST", Self.requestJSON(outbound, url: renderedURL))
                    loop.send(outbound) { [self] result in
                        inFlight.subtract(1, ordering: .relaxed)
                        switch result {
                        case .success(let answer):
                            entry?.append(subEvent: "WEBHOOK_RESPONSE", Self.responseJSON(answer))
                            logger.debug("webhook \(outbound.method.rawValue) \(LogText.escaped(renderedURL)) answered \(answer.status)")
                        case .failure(let error):
                            report("\(outbound.method.rawValue) \(renderedURL): \(error)", entry: entry, stub: stub)
                        }
                    }
                }
                if let delay = hook.delay?.sample(), delay > .zero { _ = loop.schedule(after: delay, send) } else { send() }
            }
        }
    }

    /// Where `outbound` goes: as it is, to this server for a mapped host, or nowhere.
    private func route(_ outbound: OutboundRequest, to target: WebhookTarget) -> Result<OutboundRequest, WebhookProblem> {
        if target.isLoopback { return .success(outbound) }
        let policy = policy.withLock { $0 }
        if policy.isMapped(target.host) {
            let port = ownPort.load(ordering: .relaxed)
            guard port > 0 else { return .failure(WebhookProblem("not sent to \(target.host): this server is not listening yet")) }
            // This server answers for the host: the request comes here, with the host's name.
            var local = outbound
            let afterAuthority = outbound.url.drop { $0 != "/" }.dropFirst(2).drop { $0 != "/" && $0 != "?" }
            local.url = "http://127.0.0.1:\(port)" + (afterAuthority.isEmpty ? "/" : afterAuthority)
            let defaultPort = target.secure ? 443 : 80
            local.headers.set("Host", target.port == defaultPort ? target.host : "\(target.host):\(target.port)")
            return .success(local)
        }
        if policy.anyHost || policy.allowedHosts.contains(target.host) { return .success(outbound) }
        return .failure(
            WebhookProblem(
                "not sent to \(target.host): only loopback, hosts.json's hosts and those given with "
                    + "--allow-webhook-host \(target.host) (or any, with --pass-through) are reached"))
    }

    private func report(_ message: String, entry: JournalRecord?, stub: String) {
        entry?.append(subEvent: "ERROR", .object([("message", .string("webhook: " + message))]))
        for line in throttle.lines({ "webhook of stub \(stub): \(LogText.escaped(message))" }) { logger.warning("\(line)") }
    }

    /// The request as the stub asked for it (its URL before a mapped host's was pointed here).
    private static func requestJSON(_ outbound: OutboundRequest, url: String) -> JSONValue {
        .object([
            ("method", .string(outbound.method.rawValue)),
            ("url", .string(url)),
            ("headers", JournalEntry.headersJSON(outbound.headers)),
            ("body", .string(String(decoding: outbound.body.prefix(keptBodyBytes), as: UTF8.self))),
        ])
    }

    private static func responseJSON(_ answer: Response) -> JSONValue {
        .object([
            ("status", .int(answer.status)),
            ("headers", JournalEntry.headersJSON(answer.headers)),
            ("body", .string(String(decoding: answer.body.bytes.prefix(keptBodyBytes), as: UTF8.self))),
        ])
    }
}
