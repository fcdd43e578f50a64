import Foundation
import HTTPServer
import JSON
import Logging
import MockCore
import Synchronization

/// Scenario states, per scope.
extension StubEngine {
    /// Scenario names with their current state in `scope` and the states mappings name.
    public func scenarioSummaries(in scope: StateScope) -> [(name: String, state: String, possibleStates: [String])] {
        let all = mappings(in: scope)
        let names = Array(Set(all.compactMap(\.scenarioName))).sorted()
        let states = scope[scopeKey].withScenarios { $0 }
        return names.map { name in
            let named = all.filter { $0.scenarioName == name }
            var possible = [Self.startedState]
            for state in named.flatMap({ [$0.requiredScenarioState, $0.newScenarioState] }).compactMap({ $0 }) where !possible.contains(state) {
                possible.append(state)
            }
            return (name, states[name] ?? Self.startedState, possible)
        }
    }

    public enum ScenarioChange { case moved, noSuchScenario, noSuchState }

    /// Sets a scenario's state in `scope`; nil puts it back to `Started`. Only to a state its
    /// mappings name (or `Started`), as WireMock does.
    public func setScenario(_ name: String, to state: String?, in scope: StateScope) -> ScenarioChange {
        guard let summary = scenarioSummaries(in: scope).first(where: { $0.name == name }) else { return .noSuchScenario }
        if let state, !summary.possibleStates.contains(state) { return .noSuchState }
        scope[scopeKey].withScenarios { $0[name] = state }
        return .moved
    }

    /// Every scenario of `scope` back to `Started`.
    public func resetScenarios(in scope: StateScope) {
        scope[scopeKey].withScenarios { $0 = [:] }
    }
}
