import Foundation
import HTTPServer
import JSON
import Logging
import MockCore
import Synchronization

/// A named scope's own mappings and body files.
extension StubEngine {
    /// The mappings requests in `scope` try, in order: the scope's own, then the shared ones.
    public func mappings(in scope: StateScope) -> [StubMapping] {
        guard let own = ownMappings(scope) else { return mappings }
        return own.set.ordered + mappings.filter { !own.ids.contains($0.id) }
    }

    public func mapping(id: String, in scope: StateScope) -> StubMapping? {
        mappings(in: scope).first { $0.id == id.lowercased() }
    }

    /// Adds `mapping` where `scope`'s admin calls add: the shared set for `default`, else the
    /// scope's own.
    public func add(_ mapping: StubMapping, in scope: StateScope) {
        guard !scope.isDefault else { return add(mapping) }
        var added = mapping
        added.file = nil
        scope[scopeKey].changeOwn { $0 = $0.filter { $0.id != mapping.id } + [added] }
    }

    /// Removes the mapping `id` from what `scope` may change (a named scope: its own only).
    @discardableResult
    public func remove(id: String, in scope: StateScope) -> Bool {
        defer { forgetScenariosWithoutMappings(in: scope) }
        defer { cancelWebhooksOfRemovedMappings() }
        guard !scope.isDefault else { return remove(id: id) }
        let id = id.lowercased()
        var removed = false
        scope[scopeKey].changeOwn { own in
            removed = own.contains { $0.id == id }
            own.removeAll { $0.id == id }
        }
        return removed
    }

    /// Removes every mapping `scope` may change.
    public func removeAll(in scope: StateScope) {
        defer { forgetScenariosWithoutMappings(in: scope) }
        defer { cancelWebhooksOfRemovedMappings() }
        guard !scope.isDefault else { return removeAll() }
        scope[scopeKey].changeOwn { $0 = [] }
    }

    /// `POST /__admin/mappings/reset`: the shared mappings back to the files (`default`), or the
    /// scope's own mappings gone; every scenario of the scope starts again, as WireMock's reset
    /// clears its scenarios with its mappings.
    public func resetMappings(in scope: StateScope) {
        if scope.isDefault {
            restoreFromFiles()
        } else {
            scope[scopeKey].changeOwn { $0 = [] }
            cancelWebhooksOfRemovedMappings()
        }
        resetScenarios(in: scope)
    }

    /// As WireMock: a scenario lives while a mapping names it, so one whose mappings all went
    /// starts at `Started` again when mappings name it anew.
    private func forgetScenariosWithoutMappings(in scope: StateScope) {
        let named = Set(mappings(in: scope).compactMap(\.scenarioName))
        scope[scopeKey].withScenarios { states in states = states.filter { named.contains($0.key) } }
    }

    /// Where mappings added in `scope` read their bodies: its own body files first.
    public func directory(for scope: StateScope) -> StubDirectory {
        scope.isDefault ? directory : directory.with(scopeFiles: scope[scopeKey].withFiles { $0 })
    }

    /// A named scope's own body files, by name.
    public func files(in scope: StateScope) -> [String: SharedBytes] {
        scope.isDefault ? [:] : scope[scopeKey].withFiles { $0 }
    }

    /// Puts (or, with nil, removes) a named scope's own body file, and reads again the bodies of
    /// the scope's mappings that name it. Returns whether there was one.
    @discardableResult
    public func setFile(_ name: String, to bytes: SharedBytes?, in scope: StateScope) -> Bool {
        let key = BodyFiles.key(name)
        let had = scope[scopeKey].withFiles { files in
            defer { files[key] = bytes }
            return files[key] != nil
        }
        let directory = directory(for: scope)
        scope[scopeKey].changeOwn { own in
            own = own.map { mapping in
                guard mapping.json["response"]?["bodyFileName"]?.stringValue.map(BodyFiles.key) == key,
                    var parsed = try? StubMapping.parse(mapping.json, in: directory)
                else { return mapping }
                parsed.adminBytes = mapping.adminBytes
                return parsed
            }
        }
        return had
    }

    /// Bytes of the mappings a named scope's admin calls made (`adminBytes`), but those in `excluded`.
    public func ownBytes(in scope: StateScope, excluding excluded: Set<String>) -> Int {
        guard !scope.isDefault else { return 0 }
        let files = scope[scopeKey].withFiles { $0.values.reduce(0) { $0 + $1.count } }
        guard let own = ownMappings(scope) else { return files }
        return files + own.set.ordered.reduce(0) { $0 + (excluded.contains($1.id) ? 0 : $1.adminBytes) }
    }

    private func ownMappings(_ scope: StateScope) -> (set: StubSet, ids: Set<String>)? {
        scope.isDefault ? nil : scope[scopeKey].own
    }
}
