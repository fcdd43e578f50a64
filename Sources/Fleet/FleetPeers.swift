import Foundation
import HTTPServer
import JSON
import Logging
import MockCore
import Synchronization

/// A team server's other replicas: given (`serve --peer URL`) or found (`--peers-dns NAME:PORT`,
/// a headless Service's records, resolved again every `PeerDNS.interval`). Every state scope lives
/// on one replica (nginx hashes it), but the `default` scope's admin writes — stubs, scenarios,
/// settings, body files, resets made without a scope — are shared: made here, then sent to every
/// peer, marked so that a peer does not send them on. The answer waits for the peers and names
/// those that failed (`X-Understudy-Peers-Failed`); the write stands here whatever they say.
/// docs/team-server.md.
public final class FleetPeers: Sendable {
    /// `--peer` URLs, this replica left out.
    public let given: [String]
    /// Where more peers come from, if anywhere.
    public let dns: PeerDNS?
    /// This replica's base URL as its peers reach it: what marks its journal entries in a fleet-wide query.
    public let selfURL: String
    /// Sent to peers as `Authorization: Bearer …`: every replica has the same token.
    let token: String?
    private let found = Mutex(PeerDNS.Found())
    /// Where each named scope lives.
    public let directory = ScopeDirectory()
    /// Whether this replica has taken the shared state (or found none to take): until then it
    /// answers `503` to all but health and its peers' calls.
    let hasJoined = Atomic(false)

    static let failedHeader = "X-Understudy-Peers-Failed"
    static let timeout: Duration = .seconds(5)

    /// Says which shared writes did not reach a peer.
    let logger: Logger

    public init(given: [String], dns: PeerDNS? = nil, selfURL: String, token: String?, logger: Logger = Logger(label: "understudy")) {
        self.given = given.map(Self.withoutSlash)
        self.dns = dns
        self.selfURL = selfURL
        self.token = token
        self.logger = logger
    }

    private static func withoutSlash(_ url: String) -> String { url.hasSuffix("/") ? String(url.dropLast()) : url }

    /// Every peer now: the given ones, then those DNS last named.
    public var peers: [String] {
        let resolved = found.withLock { $0.peers }
        return given + resolved.filter { !given.contains($0) }
    }

    /// What DNS said last (for `GET /__admin/fleet`).
    var discovery: PeerDNS.Found { found.withLock { $0 } }

    /// Resolves the DNS name now and every `PeerDNS.interval` after, on `loop`; `first` runs once
    /// the first answer is in (at once without `--peers-dns`).
    func discover(on loop: EventLoop, first: @escaping () -> Void) {
        guard let dns else { return first() }
        loop.resolveAddresses(of: dns.name, rereading: true) { [self] addresses in
            found.withLock { $0 = PeerDNS.Found(peers: dns.peers(from: addresses), addresses: addresses, resolvedAt: MonotonicClock.wallSeconds()) }
            first()
            loop.schedule(after: PeerDNS.interval) { [self] in discover(on: loop) {} }
        }
    }

    /// `peers` without this replica itself: every replica of a StatefulSet gets the same list, and
    /// a pod's host name is its peer name's first label (`understudy-0` of `understudy-0.understudy-peers`).
    public static func others(_ peers: [String], thisHost: String) -> [String] {
        let me = thisHost.lowercased()
        return peers.filter { url in
            guard let host = URL(string: url)?.host?.lowercased() else { return true }
            return host != me && host.split(separator: ".").first.map(String.init) != me
        }
    }

    /// Whether the answer `response` to `request`, in `scope`, is a shared admin write to pass on.
    func forwards(_ request: Request, _ response: Response, scope: StateScope) -> Bool {
        guard scope.isDefault, [.post, .put, .patch, .delete].contains(request.method), (200..<300).contains(response.status),
            !PeerCall.isForwarded(request)
        else { return false }
        let path = request.path
        let shared =
            path == "/__admin/reset" || path == "/__admin/settings"
            || ["/__admin/mappings", "/__admin/scenarios", "/__admin/files"].contains { path == $0 || path.hasPrefix($0 + "/") }
        return shared && !peers.isEmpty
    }

    /// Sends the write to every peer, from `loop`; `done` gets the peers that failed, on `loop`.
    func forward(_ request: Request, answered response: Response, on loop: EventLoop, done: @escaping ([String]) -> Void) {
        // A mapping made here got its id here: the peers get the mapping with that id, so the
        // write is the same everywhere (and repeating it replaces, not duplicates).
        let body = request.method == .post && request.path == "/__admin/mappings" ? response.body.bytes : request.body
        ask(peers, request.method, request.target, body: body, contentType: request.headers["Content-Type"], on: loop) { answers in
            done(answers.compactMap { answer in answer.failure.map { "\(answer.peer) (\($0))" } })
        }
    }

    // MARK: Scopes that live elsewhere

    /// How long a replica may take to answer a request relayed to it, but for a long-poll.
    static let relayTimeout: Duration = .seconds(4)
    /// Admin calls that wait for something on purpose (up to 60 s).
    static let longPolls = ["/__admin/requests/live", "/__admin/messages/wait", "/__admin/messages/wait-for-count"]

    /// Sends `request` of scope `name` to `owner`, the replica the scope lives on, from `loop`;
    /// `done` gets the owner's answer, or `410` when the owner is gone (its scopes with it) and
    /// `503` naming it when it does not answer in time. Marked as relayed, so the owner never
    /// relays it on. A stream's answer arrives whole.
    func relay(_ request: Request, scope name: String, to owner: String, on loop: EventLoop, done: @escaping (Response) -> Void) {
        let waits = Self.longPolls.contains(request.path)
        var outbound = OutboundRequest(
            method: request.method, url: owner + request.target, body: request.body, timeout: waits ? .seconds(75) : Self.relayTimeout)
        outbound.maxResponseBytes = 64 * 1024 * 1024
        outbound.headers = request.headers.withoutHopByHop
        outbound.headers.set("X-Understudy-Scope", name)
        outbound.headers.set(PeerCall.forwardedHeader, "1")
        outbound.headers.set(PeerCall.versionHeader, UnderstudyVersion.current)
        loop.send(outbound) { result in
            switch result {
            case .success(var answer):
                answer.headers = answer.headers.withoutHopByHop
                done(answer)
            case .failure(.timedOut): done(ScopeDirectory.unanswered(name, by: owner))
            case .failure: done(ScopeDirectory.lost(name, on: owner, because: "does not answer: it has gone or restarted"))
            }
        }
    }

    /// The answer of a replica still joining (taking the shared state): `503` to all but its
    /// health and its peers' calls; nil for those.
    static func notJoinedAnswer(to request: Request) -> Response? {
        guard request.path != "/__admin/health", !PeerCall.isForwarded(request) else { return nil }
        var response = Response.json(
            JSONValue.object([("message", "This replica is joining the team server (taking the shared stubs from its peers); try again.")])
                .serialized, status: 503)
        response.headers.set("Retry-After", "1")
        return response
    }

    /// Tells every peer that scope `name` now lives here (`alive`) or is gone from here, from `loop`.
    func announce(scope name: String, alive: Bool, on loop: EventLoop) {
        let body = Array(JSONValue.object([("owner", .string(selfURL))]).serialized.utf8)
        ask(peers, alive ? .put : .delete, "/__admin/fleet/scopes/" + name, body: body, contentType: "application/json", on: loop) { _ in }
    }

    /// One peer's answer to `ask`: its response, or why there is none (a status outside 2xx counts as a failure).
    struct PeerAnswer {
        let peer: String
        let response: Response?
        let failure: String?
    }

    /// Sends one call to each of `peers` at once (marked as a peer's, with the token), from `loop`;
    /// `done` gets their answers in `peers`' order, on `loop`.
    func ask(
        _ peers: [String], _ method: HTTPMethod, _ target: String, body: [UInt8] = [], contentType: String? = nil, on loop: EventLoop,
        done: @escaping ([PeerAnswer]) -> Void
    ) {
        guard !peers.isEmpty else { return done([]) }
        var answers = [PeerAnswer?](repeating: nil, count: peers.count)
        var waiting = peers.count
        for (index, peer) in peers.enumerated() {
            var outbound = OutboundRequest(method: method, url: peer + target, body: body, timeout: Self.timeout)
            outbound.maxResponseBytes = 64 * 1024 * 1024
            if let contentType { outbound.headers.set("Content-Type", contentType) }
            if let token { outbound.headers.set("Authorization", "Bearer " + token) }
            outbound.headers.set(PeerCall.forwardedHeader, "1")
            outbound.headers.set(PeerCall.versionHeader, UnderstudyVersion.current)
            loop.send(outbound) { result in
                switch result {
                case .success(let answer) where (200..<300).contains(answer.status):
                    answers[index] = PeerAnswer(peer: peer, response: answer, failure: nil)
                case .success(let answer): answers[index] = PeerAnswer(peer: peer, response: answer, failure: String(answer.status))
                case .failure(let error): answers[index] = PeerAnswer(peer: peer, response: nil, failure: "\(error)")
                }
                waiting -= 1
                if waiting == 0 { done(answers.compactMap { $0 }) }
            }
        }
    }
}

/// `--peers-dns NAME:PORT`: the peers are every address NAME resolves to, on PORT (a Kubernetes
/// headless Service names each ready — or, with `publishNotReadyAddresses`, each — pod), this
/// replica's own addresses left out.
public struct PeerDNS: Sendable {
    public let name: String
    public let port: Int
    /// The addresses that are this replica on `port`: the one it listens on, or every interface's
    /// when it listens on all.
    let ownHosts: Set<String>

    static let interval: Duration = .seconds(10)

    public init(name: String, port: Int, ownHosts: Set<String>) {
        self.name = name
        self.port = port
        self.ownHosts = ownHosts
    }

    /// `NAME:PORT`, or nil when it is not that.
    public static func parse(_ text: String, ownHosts: Set<String>) -> PeerDNS? {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]), (1...65535).contains(port) else { return nil }
        let name = String(text[..<colon])
        return name.isEmpty ? nil : PeerDNS(name: name, port: port, ownHosts: ownHosts)
    }

    /// The peer URLs of the addresses DNS gave.
    func peers(from addresses: [String]) -> [String] {
        addresses.filter { !ownHosts.contains($0) }.map { $0.contains(":") ? "http://[\($0)]:\(port)" : "http://\($0):\(port)" }
    }

    /// What the last resolution found.
    struct Found: Sendable {
        var peers: [String] = []
        var addresses: [String] = []
        /// Seconds since the epoch; nil before the first answer.
        var resolvedAt: Double?
    }
}
