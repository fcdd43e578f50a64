import Foundation
import HTTPServer
import JSON
import Logging
import MockCore
import Synchronization

/// Answering a request: the scope's own mappings, then the shared ones.
extension StubEngine {
    public func handle(_ request: Request, _ context: RequestContext) -> Reply {
        let scope = context.scope
        let hostOnly = context.forUnmappedHost
        if !scope.isDefault, scopesWithOwnMappings.value.load(ordering: .relaxed) > 0, let own = scope[scopeKey].own {
            if let answer = answer(from: own.set, request, scope, hostOnly: hostOnly) { return answer }
            return answer(from: state.withLock { $0.current }, request, scope, hiding: own.ids, hostOnly: hostOnly) ?? .decline
        }
        guard mappingCount.load(ordering: .relaxed) > 0 else { return .decline }
        return answer(from: state.withLock({ $0.current }), request, scope, hostOnly: hostOnly) ?? .decline
    }

    /// A matched mapping's answer, followed by its webhooks once it has gone out.
    private func reply(_ candidate: Candidate, to request: Request, _ scope: StateScope) -> Reply {
        let answer = StubReply.reply(candidate, to: request, globalDelay: settings.delay)
        guard !candidate.mapping.webhooks.isEmpty else { return answer }
        let (webhooks, hooks, stub) = (self.webhooks, candidate.mapping.webhooks, candidate.mapping.name ?? candidate.mapping.id)
        let mapping = candidate.mapping.id
        let fire: (DeferredReply) -> Void = { reply in
            let loop = reply.loop
            reply.afterSending { entry in webhooks.fire(hooks, for: request, scope: scope, entry: entry, stub: stub, mapping: mapping, on: loop) }
        }
        switch answer {
        case .response(let response):
            return .deferred { reply in
                fire(reply)
                reply.send(response)
            }
        case .deferred(let start):
            return .deferred { reply in
                fire(reply)
                start(reply)
            }
        case .decline: return answer
        }
    }

    /// The reply of the first mapping of `set` that matches and may enter its scenario, leaving
    /// out the ids `hiding` names (shared mappings a scope has its own version of); nil when none.
    /// `hostOnly`: only mappings with a `host` condition (for a host hosts.json does not map).
    /// Inlined, and the reply made where the mapping is visited, from its `Candidate`: a mapping
    /// is a large value, and returned from a call, passed or kept in a variable it is copied
    /// (this runs for every request).
    @inline(__always)
    private func answer(from set: StubSet, _ request: Request, _ scope: StateScope, hiding: Set<String>? = nil, hostOnly: Bool) -> Reply? {
        var answer: Reply?
        set.forEachCandidate(for: request) { candidate in
            if let hiding, hiding.contains(candidate.mapping.id) { return true }
            if hostOnly && candidate.mapping.request.host == nil { return true }
            guard candidate.matches(request), enterScenario(candidate.mapping, scope: scope) else { return true }
            answer = reply(candidate, to: request, scope)
            return false
        }
        return answer
    }

    /// Checks the mapping's required scenario state and moves to its new state, atomically.
    private func enterScenario(_ mapping: StubMapping, scope: StateScope) -> Bool {
        guard let scenario = mapping.scenarioName else { return true }
        return scope[scopeKey].withScenarios { states in
            if let required = mapping.requiredScenarioState, states[scenario, default: Self.startedState] != required {
                return false
            }
            if let next = mapping.newScenarioState { states[scenario] = next }
            return true
        }
    }

    public static let startedState = "Started"

    /// The first mapping (by priority) whose request pattern matches `request` in `scope` now,
    /// scenario states aside: a later state may have moved on from the one that answered.
    public func answeringStub(for request: Request, in scope: StateScope) -> JSONValue? {
        mappings(in: scope).first { $0.request.evaluate(request).matched }?.json
    }

    public var report: BackendReport {
        BackendReport(fixtures: [("mappings", mappingCount.load(ordering: .relaxed))])
    }

    /// The closest mappings to a request nothing answered, and why each missed.
    public func nearMisses(for request: Request, in scope: StateScope) -> [NearMiss] {
        mappings(in: scope)
            .map { ($0, $0.request.evaluate(request)) }
            .sorted { $0.1.distance < $1.1.distance }
            .prefix(NearMiss.reportedCount)
            .map { mapping, result in
                NearMiss(
                    summary: mapping.name.map { "\"\($0)\" (\(mapping.summary))" } ?? mapping.summary,
                    distance: result.distance, misses: result.misses, stub: mapping.json)
            }
    }
}
