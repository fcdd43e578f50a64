import HTTPServer
import JSON
import Logging
import MockCore
import Synchronization

/// `/__admin/fleet`: the team server's replicas seen from this one — each one's health, version,
/// scopes and memory — and how the peers are found; `/__admin/fleet/node`, this replica alone (what
/// the fleet view asks each peer); `/__admin/fleet/shared`, the shared state a replica starting
/// later takes. Without peers the fleet is this replica alone. Until it has joined (taken the
/// shared state from a peer, or found that none has any) the replica is not ready, so
/// `/__admin/health` answers `503` and Kubernetes sends it no traffic.
public final class FleetAdmin: Backend, AdminRoutesProvider {
    public let name = "fleet"

    let peers: FleetPeers?
    /// This replica's base URL as its peers reach it.
    let selfURL: String
    let backends: [any Backend]
    let scopes: StateScopes
    let logger: Logger
    let startedAt = MonotonicClock.nanoseconds()
    private let joined = Atomic(false)
    /// How joining went, for the fleet view.
    private let joinedFrom = Mutex<String?>(nil)
    /// The loop peer calls go out on, once started.
    private let clientLoop = Mutex<EventLoop?>(nil)

    public var adminRoutes: [AdminRoute] { Self.endpoints.routes(servedBy: self) }

    public static let endpoints: [AdminEndpoint<FleetAdmin>] = [
        AdminEndpoint(
            "/__admin/fleet", "a team server's replicas: each one's health, version, scopes and memory; how peers are found",
            [.get: { fleet, _ in fleet.fleet() }]),
        AdminEndpoint(
            "/__admin/fleet/node", "this replica alone, as the fleet view asks each peer",
            [.get: { fleet, _ in .response(.json(fleet.node().serialized)) }]),
        AdminEndpoint(
            "/__admin/fleet/shared", "the default scope's admin-made mappings and settings, which a replica starting later takes",
            [.get: { fleet, _ in .response(.json(fleet.shared().serialized)) }]),
        AdminEndpoint(
            "/__admin/fleet/scopes", "where each named scope lives (scope → replica), as this replica knows it",
            [.get: { fleet, _ in .response(.json((fleet.peers?.directory.json ?? .object([])).serialized)) }]),
        AdminEndpoint(
            "/__admin/fleet/scopes/{name}", "a peer's word that a scope now lives on it (`PUT`) or has gone from it (`DELETE`)",
            [
                .put: { fleet, call in .response(fleet.noteScope(call, alive: true)) },
                .delete: { fleet, call in .response(fleet.noteScope(call, alive: false)) },
            ],
            input: [
                .put: RouteInput(body: announcement), .delete: RouteInput(body: announcement),
            ]),
    ]

    private static let announcement = InputSchema.object(
        "which replica says so", [("owner", InputSchema.string("the replica's base URL, as its peers reach it"))], required: ["owner"])

    /// `backends`: those whose shared state peers take and give, and whose readiness this
    /// replica's reports.
    public init(peers: FleetPeers?, selfURL: String, backends: [any Backend], scopes: StateScopes, logger: Logger) {
        self.peers = peers
        self.selfURL = selfURL
        self.backends = backends
        self.scopes = scopes
        self.logger = logger
        if peers == nil { joined.store(true, ordering: .relaxed) }
        // Each scope made or dropped here is announced to the peers, and noted here.
        if let peers {
            let selfURL = peers.selfURL
            scopes.onNamedScopeChange { [weak self] name, alive in
                if alive { peers.directory.set(name, livesOn: selfURL) } else { peers.directory.drop(name, ifOwnedBy: selfURL) }
                guard let loop = self?.clientLoop.withLock({ $0 }) else { return }
                loop.execute { peers.announce(scope: name, alive: alive, on: loop) }
            }
        }
    }

    /// `PUT`/`DELETE /__admin/fleet/scopes/NAME` with `{"owner": URL}`: a peer's announcement.
    private func noteScope(_ call: AdminCall, alive: Bool) -> Response {
        guard let directory = peers?.directory, let name = call.parameters.first else { return .emptyJSONObject }
        guard let owner = (try? JSONValue.parse(call.request.body))?["owner"]?.stringValue else {
            return .json(JSONValue.object([("message", "expected {\"owner\": URL}")]).serialized, status: 400)
        }
        if alive {
            // Two replicas that made the same scope at once (two nginx instances) each keep theirs:
            // an announcement never drops what lives here.
            if scopes.existing(name) == nil { directory.set(name, livesOn: owner) }
        } else {
            directory.drop(name, ifOwnedBy: owner)
        }
        return .emptyJSONObject
    }

    public var isReady: Bool { joined.load(ordering: .relaxed) }

    /// Finds the peers and takes the shared state from one, on a loop of its own; then keeps
    /// finding peers (`--peers-dns`). Call once the server listens.
    public func start() throws {
        guard let peers else { return }
        let loop = try EventLoop.startClient()
        clientLoop.withLock { $0 = loop }
        loop.execute { [self] in
            peers.discover(on: loop) { [self] in join(from: peers.peers, on: loop) }
        }
    }

    /// Asks the peers for the shared state, in order, and takes the first that has joined itself
    /// (a peer still joining has nothing of its own to give).
    private func join(from candidates: [String], on loop: EventLoop) {
        guard let peers else { return }
        guard !candidates.isEmpty else {
            return finishJoining("no peer found: this replica serves alone with the files' stubs")
        }
        peers.ask(candidates, .get, "/__admin/fleet/shared", on: loop) { [self] answers in
            for answer in answers {
                guard let response = answer.response, answer.failure == nil, let state = try? JSONValue.parse(response.body.bytes),
                    state["joined"]?.boolValue == true
                else { continue }
                var problems: [String] = []
                for case let backend as any FleetSharedState in backends {
                    if let part = state["state"]?[backend.name] { problems += backend.adopt(sharedState: part) }
                }
                if let scopes = state["scopes"] { peers.directory.adopt(scopes) }
                for problem in problems { logger.warning("shared state from \(answer.peer) not all taken: \(problem)") }
                return finishJoining("took the shared state from \(answer.peer)")
            }
            let why = answers.map { "\($0.peer) (\($0.failure ?? "still joining"))" }.joined(separator: ", ")
            finishJoining("no peer had the shared state to give: \(why); this replica starts from the files' stubs")
        }
    }

    private func finishJoining(_ how: String) {
        logger.info("joined the fleet: \(how)")
        joinedFrom.withLock { $0 = how }
        joined.store(true, ordering: .releasing)
        peers?.hasJoined.store(true, ordering: .releasing)
    }

    /// This replica: health, version, uptime, its named scopes and its resident memory.
    private func node() -> JSONValue {
        let waiting = backends.filter { !$0.isReady }.map(\.name) + (isReady ? [] : [name])
        let uptime = (MonotonicClock.nanoseconds() - startedAt) / 1_000_000_000
        return .object([
            ("node", .string(selfURL)),
            ("status", .string(waiting.isEmpty ? "healthy" : "unhealthy")),
            ("version", .string(UnderstudyVersion.current)),
            ("uptimeInSeconds", .int(Int(uptime))),
            ("scopes", .array(scopes.all.filter { !$0.isDefault }.map { .string($0.name) })),
            ("residentBytes", ProcessMemory.residentBytes().map { .int($0) } ?? .null),
        ])
    }

    private func shared() -> JSONValue {
        .object([
            ("joined", .bool(isReady)),
            ("state", .object(backends.compactMap { backend in (backend as? any FleetSharedState).map { ($0.name, $0.sharedState()) } })),
            ("scopes", peers?.directory.json ?? .object([])),
        ])
    }

    /// Every replica's `node()`, this one first; peers that do not answer are listed as unreachable.
    private func fleet() -> Reply {
        let me = node()
        guard let peers else {
            return .response(.json(fleetJSON(nodes: [me], how: "no peers (serve --peer URL or --peers-dns NAME:PORT): a fleet of one").serialized))
        }
        let candidates = peers.peers
        return .deferred { [self] reply in
            peers.ask(candidates, .get, "/__admin/fleet/node", on: reply.loop) { [self] answers in
                var nodes = [me]
                for answer in answers {
                    if let response = answer.response, answer.failure == nil, case .object(var fields)? = try? JSONValue.parse(response.body.bytes) {
                        // Named as this replica reaches it.
                        fields.removeAll { $0.0 == "node" }
                        nodes.append(.object([("node", .string(answer.peer))] + fields))
                    } else {
                        nodes.append(
                            .object([
                                ("node", .string(answer.peer)), ("status", .string("unreachable")),
                                ("error", .string(answer.failure ?? "not JSON")),
                            ]))
                    }
                }
                reply.send(.json(fleetJSON(nodes: nodes, how: joinedFrom.withLock { $0 } ?? "joining").serialized))
            }
        }
    }

    private func fleetJSON(nodes: [JSONValue], how: String) -> JSONValue {
        var discovery: [(String, JSONValue)] = [("peers", .array((peers?.given ?? []).map(JSONValue.string)))]
        if let dns = peers?.dns {
            let found = peers?.discovery ?? PeerDNS.Found()
            discovery.append(
                (
                    "dns",
                    .object([
                        ("name", .string(dns.name)), ("port", .int(dns.port)),
                        ("addresses", .array(found.addresses.map(JSONValue.string))),
                        ("resolvedAt", found.resolvedAt.map { .string(Timestamp.iso8601($0)) } ?? .null),
                        (
                            "message",
                            .string(
                                found.resolvedAt == nil
                                    ? "not resolved yet"
                                    : found.peers.isEmpty ? "\(dns.name) named no other replica: serving alone" : "\(found.peers.count) peer(s)")
                        ),
                    ])
                ))
        }
        return .object([
            ("self", .string(selfURL)),
            ("nodes", .array(nodes)),
            ("discovery", .object(discovery)),
            ("joined", .string(how)),
        ])
    }
}
