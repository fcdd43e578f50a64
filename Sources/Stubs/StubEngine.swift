import Foundation
import HTTPServer
import Logging
import MockCore
import Synchronization

/// The generic stub engine: the WireMock-format mappings of `stubs/mappings/` plus those added
/// through the admin API, matched in priority order (1 first; among equals the newest first).
/// Requests are tested only against mappings that fix their exact path or fix none.
public final class StubEngine: Backend {
    public let name = "stubs"
    public let mounts = ["/"]
    public let tier = BackendTier.userStubs

    public let mappingsDirectory: URL
    public let files: BodyFiles
    private let logger: Logger
    private let stubSet = Mutex(StubSet(mappings: []))
    /// Lets a request skip the lock when there are no mappings at all (emulator-only setups).
    private let mappingCount = Atomic(0)
    let scenarios = ScopedState<[String: String]> { [:] }

    /// Loads `stubs/mappings/**/*.json` (bodies from `stubs/__files/`); bad files are logged.
    public init(stubsDirectory: URL, logger: Logger = Logger(label: "understudy")) {
        mappingsDirectory = stubsDirectory.appendingPathComponent("mappings")
        files = BodyFiles(root: stubsDirectory.appendingPathComponent("__files"))
        self.logger = logger
        reloadFiles()
    }

    /// Replaces every mapping with those of the files; returns what could not be loaded.
    @discardableResult
    public func reloadFiles() -> [StubError] {
        let loaded = MappingFiles.load(directory: mappingsDirectory, files: files)
        for error in loaded.errors { logger.warning("skipping a mapping: \(error)") }
        replaceAll(with: loaded.mappings)
        return loaded.errors
    }

    /// Every mapping, in the order requests try them.
    public var mappings: [StubMapping] { stubSet.withLock { $0.ordered } }

    public func mapping(id: String) -> StubMapping? {
        stubSet.withLock { $0.ordered.first { $0.id == id.lowercased() } }
    }

    /// Adds `mapping`, replacing one with the same id.
    public func add(_ mapping: StubMapping) {
        stubSet.withLock { set in
            set = StubSet(mappings: set.added.filter { $0.id != mapping.id } + [mapping])
            mappingCount.store(set.ordered.count, ordering: .relaxed)
        }
    }

    /// Removes the mapping `id`; false when there is none.
    @discardableResult
    public func remove(id: String) -> Bool {
        stubSet.withLock { set in
            let kept = set.added.filter { $0.id != id.lowercased() }
            defer {
                set = StubSet(mappings: kept)
                mappingCount.store(kept.count, ordering: .relaxed)
            }
            return kept.count != set.added.count
        }
    }

    public func removeAll() {
        replaceAll(with: [])
    }

    private func replaceAll(with mappings: [StubMapping]) {
        stubSet.withLock { set in
            set = StubSet(mappings: mappings)
            mappingCount.store(mappings.count, ordering: .relaxed)
        }
    }

    public func reset(scope: StateScope?) {
        reloadFiles()
        scenarios.reset(scope)
    }

    public func handle(_ request: Request, _ context: RequestContext) -> Reply {
        guard mappingCount.load(ordering: .relaxed) > 0 else { return .decline }
        let current = stubSet.withLock { $0 }
        var found: StubMapping?
        current.forEachCandidate(forPath: String(request.rawPath)) { mapping in
            guard mapping.request.evaluate(request).matched, enterScenario(mapping, scope: context.scope) else { return true }
            found = mapping
            return false
        }
        return found.map { reply($0.response, to: request) } ?? .decline
    }

    /// Checks the mapping's required scenario state and moves to its new state, atomically.
    private func enterScenario(_ mapping: StubMapping, scope: StateScope) -> Bool {
        guard let scenario = mapping.scenarioName else { return true }
        return scenarios.withValue(in: scope) { states in
            if let required = mapping.requiredScenarioState, states[scenario, default: Self.startedState] != required {
                return false
            }
            if let next = mapping.newScenarioState { states[scenario] = next }
            return true
        }
    }

    public static let startedState = "Started"

    private func reply(_ definition: ResponseDefinition, to request: Request) -> Reply {
        if let fault = definition.unsupportedFault {
            return .response(.text("The stub asks for \(fault), which Understudy cannot simulate yet.\n", status: 500))
        }
        let delay = definition.delay()
        if let base = definition.proxyBaseURL {
            var headers = request.headers
            headers.remove("Host")
            for field in definition.additionalProxyRequestHeaders { headers.set(field.name, field.value) }
            let outbound = OutboundRequest(method: request.method, url: base + request.target, headers: headers, body: request.body)
            return .deferred { reply in
                reply.loop.send(outbound) { result in
                    let response: Response
                    switch result {
                    case .success(let answer): response = answer
                    case .failure(let error): response = .text("Proxying to \(base) failed: \(error)\n", status: 502)
                    }
                    if let delay { reply.send(response, after: delay) } else { reply.send(response) }
                }
            }
        }
        guard let delay else { return .response(definition.response) }
        let response = definition.response
        return .deferred { reply in reply.send(response, after: delay) }
    }

    /// Scenario names with their current state (default scope) and the states mappings name.
    public var scenarioSummaries: [(name: String, state: String, possibleStates: [String])] {
        let all = mappings
        let names = Array(Set(all.compactMap(\.scenarioName))).sorted()
        let states = scenarios.withValue(in: .shared) { $0 }
        return names.map { name in
            let named = all.filter { $0.scenarioName == name }
            var possible = [Self.startedState]
            for state in named.flatMap({ [$0.requiredScenarioState, $0.newScenarioState] }).compactMap({ $0 }) where !possible.contains(state) {
                possible.append(state)
            }
            return (name, states[name] ?? Self.startedState, possible)
        }
    }

    /// Sets a scenario's state; nil puts it back to `Started`. False when no mapping names it.
    public func setScenario(_ name: String, to state: String?) -> Bool {
        guard mappings.contains(where: { $0.scenarioName == name }) else { return false }
        scenarios.withValue(in: .shared) { $0[name] = state }
        return true
    }
}

/// An immutable set of mappings in match order, indexed by exact path. A class: a request takes
/// the current set by one reference, not four.
final class StubSet: Sendable {
    /// In the order they were added (later ones win among equal priorities).
    let added: [StubMapping]
    let ordered: [StubMapping]
    private let byPath: [String: [Int]]
    private let unindexed: [Int]

    init(mappings: [StubMapping]) {
        added = mappings
        ordered = mappings.enumerated()
            .sorted { a, b in a.element.priority != b.element.priority ? a.element.priority < b.element.priority : a.offset > b.offset }
            .map(\.element)
        var byPath: [String: [Int]] = [:]
        var unindexed: [Int] = []
        for (index, mapping) in ordered.enumerated() {
            if let path = mapping.request.literalPath { byPath[path, default: []].append(index) } else { unindexed.append(index) }
        }
        self.byPath = byPath
        self.unindexed = unindexed
    }

    /// Calls `visit` with the mappings that can match a request for `path`, in match order, until
    /// it returns false.
    func forEachCandidate(forPath path: String, _ visit: (StubMapping) -> Bool) {
        let exact = byPath[path] ?? []
        var i = 0, j = 0
        while i < exact.count || j < unindexed.count {
            let next: Int
            if j == unindexed.count || (i < exact.count && exact[i] < unindexed[j]) {
                next = exact[i]
                i += 1
            } else {
                next = unindexed[j]
                j += 1
            }
            if !visit(ordered[next]) { return }
        }
    }
}
