import Foundation
import HTTPServer
import JSON
import Logging
import MockCore
import Synchronization

/// A count shared by the engine and its scopes' states.
final class ScopeCounter: Sendable {
    let value = Atomic<Int>(0)
}

/// The engine's part of one scope: its scenario states, and (in a named scope) the mappings its
/// admin calls added.
final class StubScope: ScopeState {
    private struct Contents {
        var scenarios: [String: String] = [:]
        /// Body files put in this scope (`PUT /__admin/files/NAME`), by name: in memory, the
        /// scope's alone, gone with its reset.
        var files: [String: SharedBytes] = [:]
        /// Oldest first; `set` and `ids` are made from it.
        var own: [StubMapping] = []
        var set = StubSet(mappings: [])
        var ids: Set<String> = []
    }

    private let contents = Locked(Contents())
    /// The engine's count of scopes with mappings of their own, kept as `own` fills and empties.
    private let counter: ScopeCounter

    init(counting counter: ScopeCounter) {
        self.counter = counter
    }

    /// The scope's own mappings in match order, and their ids (which hide shared ones); nil when none.
    var own: (set: StubSet, ids: Set<String>)? {
        contents.withLock { $0.own.isEmpty ? nil : ($0.set, $0.ids) }
    }

    func changeOwn(_ change: (inout [StubMapping]) -> Void) {
        contents.withLock { contents in
            let had = !contents.own.isEmpty
            change(&contents.own)
            contents.set = StubSet(mappings: contents.own)
            contents.ids = Set(contents.own.map(\.id))
            count(had: had, has: !contents.own.isEmpty)
        }
    }

    private func count(had: Bool, has: Bool) {
        if had != has { counter.value.add(has ? 1 : -1, ordering: .relaxed) }
    }

    func withScenarios<Result>(_ body: (inout [String: String]) -> Result) -> Result {
        contents.withLock { body(&$0.scenarios) }
    }

    func withFiles<Result>(_ body: (inout [String: SharedBytes]) -> Result) -> Result {
        contents.withLock { body(&$0.files) }
    }

    func reset() {
        contents.withLock { contents in
            count(had: !contents.own.isEmpty, has: false)
            contents = Contents()
        }
    }

    func discard() { reset() }

    var estimatedBytes: Int {
        contents.withLock { contents in
            contents.own.reduce(0) { $0 + 1024 + $1.adminBytes + $1.response.response.body.count } + contents.scenarios.count * 64
                + contents.files.values.reduce(0) { $0 + $1.count }
        }
    }
}
