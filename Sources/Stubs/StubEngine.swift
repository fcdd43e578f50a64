import Foundation
import HTTPServer
import JSON
import Logging
import MockCore
import Synchronization

/// The generic stub engine: the WireMock-format mappings of `stubs/mappings/`, of every stub pack
/// (`stubs/<pack>/mappings/`, bodies from `stubs/<pack>/__files/`), and those added through the
/// admin API; matched in priority order (1 first; among equals the newest first). Requests are
/// tested only against the mappings that can match them (see `StubSet`).
///
/// Scopes: the files' mappings and those the admin API adds in the `default` scope are shared by
/// every scope; a named scope's admin calls add mappings of its own, tried before the shared ones
/// (and hiding a shared mapping of the same id). Scenario states are per scope.
public final class StubEngine: Backend {
    public let name: String
    public let mounts = ["/"]
    /// User stubs, or recordings (replayed below user stubs and above emulators).
    public let tier: BackendTier

    /// `stubs/`: its `mappings/` and `__files/` hold the user's stubs, and where the admin API saves.
    public let directory: StubDirectory
    /// `/__admin/settings`: shared with the other engines of the server.
    public let settings: GlobalSettings
    /// Sends the mappings' webhooks; where they may go is set by `serve`.
    public let webhooks: WebhookDispatch
    private let logger: Logger

    private struct State {
        /// Per file, the mappings of its last good version: a file that turns bad keeps these.
        var fromFiles: [String: [StubMapping]] = [:]
        /// Made through the admin API, oldest first; they win over file mappings of the same id.
        var fromAPI: [StubMapping] = []
        var current = StubSet(mappings: [])

        /// The file that holds the mapping `id` and no other: the only kind WireMock rewrites or deletes.
        func soleFile(of id: String) -> String? {
            fromFiles.first { $0.value.count == 1 && $0.value[0].id == id }?.key
        }

        mutating func publish() {
            let apiIDs = Set(fromAPI.map(\.id))
            let files = fromFiles.keys.sorted().flatMap { fromFiles[$0]! }.filter { !apiIDs.contains($0.id) }
            current = StubSet(mappings: files + fromAPI)
        }
    }

    private let state = Locked(State())
    /// Lets a request skip the lock when there are no mappings at all (emulator-only setups).
    private let mappingCount = Atomic(0)
    /// Each scope's scenario states and own mappings.
    private let scopeKey: ScopeKey<StubScope>
    /// How many scopes have mappings of their own: while none has, requests in named scopes skip
    /// looking for them.
    private let scopesWithOwnMappings: ScopeCounter

    /// Loads the mappings of `stubsDirectory` and its packs; bad files are logged.
    public init(
        stubsDirectory: URL, globalTemplating: Bool = false, wireMockVersion: WireMockVersion = .v3, name: String = "stubs",
        tier: BackendTier = .userStubs, settings: GlobalSettings = GlobalSettings(), webhooks: WebhookDispatch? = nil,
        logger: Logger = Logger(label: "understudy")
    ) {
        directory = StubDirectory(root: stubsDirectory, globalTemplating: globalTemplating, wireMockVersion: wireMockVersion)
        self.webhooks = webhooks ?? WebhookDispatch(logger: logger)
        self.settings = settings
        self.name = name
        self.tier = tier
        self.logger = logger
        let counter = ScopeCounter()
        scopesWithOwnMappings = counter
        scopeKey = ScopeKey { _ in StubScope(counting: counter) }
        reloadFiles()
    }

    /// `stubs/` itself and each stub pack under it, as they are now.
    public func directories() throws(StubError) -> [StubDirectory] {
        var all = [directory]
        for root in try StubDirectory.packRoots(in: directory.root) { all.append(try directory.pack(at: root)) }
        return all
    }

    /// The folders whose files decide what the engine serves: every `mappings/` and `__files/`.
    var watchedFolders: [URL] {
        ([directory.root] + ((try? StubDirectory.packRoots(in: directory.root)) ?? [])).flatMap {
            [$0.appendingPathComponent("mappings"), $0.appendingPathComponent("__files")]
        }
    }

    /// Reads every mapping file again. A file that fails keeps its last good version (if it had
    /// one); files that are gone drop out. Returns what could not be loaded.
    @discardableResult
    public func reloadFiles() -> [StubError] {
        // A mapping whose file went (hot reload, or a reset) takes its waiting webhooks with it.
        defer { cancelWebhooksOfRemovedMappings() }
        var loaded: [MappingFiles.Loaded] = []
        do throws(StubError) {
            for directory in try directories() { loaded += try MappingFiles.load(directory) }
        } catch {
            // Every mapping stays: a folder that cannot be listed says nothing of its files.
            logger.warning("stub files not reloaded, the mappings in use stay: \(error)")
            return [error]
        }
        var errors: [StubError] = []
        for warning in loaded.flatMap(\.warnings) { logger.warning("mapping loaded with a warning: \(warning)") }
        state.withLock { state in
            var fromFiles: [String: [StubMapping]] = [:]
            for file in loaded {
                if file.errors.isEmpty {
                    fromFiles[file.file] = file.mappings
                } else {
                    fromFiles[file.file] = state.fromFiles[file.file] ?? file.mappings
                    errors += file.errors
                }
            }
            state.fromFiles = fromFiles
            publish(&state)
        }
        for error in errors { logger.warning("skipping a mapping: \(error)") }
        return errors
    }

    private func publish(_ state: inout State) {
        state.publish()
        mappingCount.store(state.current.ordered.count, ordering: .relaxed)
    }

    /// Every mapping, in the order requests try them.
    public var mappings: [StubMapping] { state.withLock { $0.current.ordered } }

    public func mapping(id: String) -> StubMapping? {
        state.withLock { $0.current.ordered.first { $0.id == id.lowercased() } }
    }

    /// The shared mappings the admin API made (or replaced), oldest first: what a team server's
    /// replica starting later takes from a peer.
    public var adminMappings: [StubMapping] { state.withLock { $0.fromAPI } }

    /// Adds `mapping`, replacing one with the same id (until the next reset, for file mappings).
    public func add(_ mapping: StubMapping) {
        var added = mapping
        added.file = nil
        state.withLock { state in
            state.fromAPI = state.fromAPI.filter { $0.id != mapping.id } + [added]
            publish(&state)
        }
    }

    /// Removes the mapping `id` (a file mapping until the next reset); false when there is none.
    /// A `persistent` mapping's file goes too when it holds that mapping alone, as in WireMock,
    /// so a reset does not bring it back.
    @discardableResult
    public func remove(id: String) -> Bool {
        let id = id.lowercased()
        let (removed, fileToDelete) = state.withLock { state in
            let before = state.current.ordered.count
            let persistent = state.current.ordered.first { $0.id == id }?.persistent ?? false
            let file = persistent ? state.soleFile(of: id) : nil
            state.fromAPI.removeAll { $0.id == id }
            for file in state.fromFiles.keys { state.fromFiles[file]!.removeAll { $0.id == id } }
            if let file { state.fromFiles[file] = nil }
            publish(&state)
            return (state.current.ordered.count != before, file)
        }
        if let fileToDelete {
            do { try FileManager.default.removeItem(atPath: fileToDelete) } catch {
                logger.warning("could not delete the mapping file of \(id): \(MappingFiles.reason(error))")
            }
        }
        return removed
    }

    /// The shared mappings whose body is the file `name` read it again, as WireMock reads a body
    /// file per request: after the admin API wrote or deleted it (`/__admin/files/NAME`). Parsed
    /// outside the lock (a large body is opened, not read). A named scope's own mappings keep the
    /// body they were made with.
    public func refreshBodies(of name: String) {
        let wanted = name.drop { $0 == "/" }
        let uses = { (mapping: StubMapping) in mapping.json["response"]?["bodyFileName"]?.stringValue?.drop { $0 == "/" } == wanted }
        let stale = state.withLock { state in (state.fromAPI + state.fromFiles.values.joined()).filter(uses) }
        guard !stale.isEmpty else { return }
        var fresh: [String: StubMapping] = [:]
        for mapping in stale {
            guard var parsed = try? StubMapping.parse(mapping.json, in: directory, file: mapping.file) else { continue }
            parsed.adminBytes = mapping.adminBytes
            parsed.file = mapping.file
            fresh[mapping.id] = parsed
        }
        state.withLock { state in
            state.fromAPI = state.fromAPI.map { uses($0) ? fresh[$0.id] ?? $0 : $0 }
            state.fromFiles = state.fromFiles.mapValues { mappings in mappings.map { uses($0) ? fresh[$0.id] ?? $0 : $0 } }
            publish(&state)
        }
    }

    /// Removes every mapping, those of files included, until the next reset or file change.
    public func removeAll() {
        state.withLock { state in
            state = State()
            publish(&state)
        }
    }

    /// Drops the admin API's mappings and reads the files again (`POST /__admin/mappings/reset`).
    @discardableResult
    public func restoreFromFiles() -> [StubError] {
        state.withLock { $0.fromAPI = [] }
        return reloadFiles()
    }

    /// Webhooks fired by mappings no longer served in their scope are cancelled: they neither go
    /// out nor hold their bytes, their delay or a connection any longer.
    private func cancelWebhooksOfRemovedMappings() {
        webhooks.cancel(because: "its mapping was removed") { scope in Set(mappings(in: scope).map(\.id)) }
    }

    /// `POST /__admin/reset` in `default`: the shared mappings back to the files (a named scope's
    /// own mappings and every scope's scenarios went with the scope's state).
    public func reset(scope: StateScope) {
        if scope.isDefault { restoreFromFiles() }
    }

    // MARK: A scope's mappings

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

    /// Writes the admin API's mappings to `stubs/mappings/` (WireMock's `mappings/save`), each to
    /// its own file named after it; from then on they are file mappings. Returns the files written.
    /// A mapping that replaced one of a file holding it alone is written over that file.
    public func save() throws -> [String] {
        let (pending, ownFiles) = state.withLock { state in
            (
                state.fromAPI,
                Dictionary(
                    state.fromAPI.compactMap { mapping in state.soleFile(of: mapping.id).map { (mapping.id, $0) } },
                    uniquingKeysWith: { first, _ in first })
            )
        }
        try FileManager.default.createDirectory(at: directory.mappings, withIntermediateDirectories: true)
        var written: [(String, StubMapping)] = []
        for unsaved in pending {
            // As WireMock: a saved mapping is persistent, so removing it later deletes its file.
            let mapping =
                unsaved.persistent
                ? unsaved
                : try StubMapping.parse(
                    .object((unsaved.json.objectValue ?? []).filter { $0.0 != "persistent" } + [("persistent", true)]), in: directory)
            let file = ownFiles[mapping.id].map { URL(fileURLWithPath: $0) } ?? directory.mappings.appendingPathComponent(Self.fileName(for: mapping))
            try SafeFile.write(Data((mapping.json.prettyPrinted(arraysOnOneLine: false) + "\n").utf8), to: file)
            var saved = mapping
            saved.file = file.path
            written.append((file.path, saved))
        }
        state.withLock { state in
            let savedIDs = Set(written.map(\.1.id))
            state.fromAPI.removeAll { savedIDs.contains($0.id) }
            for (file, mapping) in written { state.fromFiles[file] = [mapping] }
            publish(&state)
        }
        return written.map(\.0)
    }

    /// `<name or method-path>-<id>.json`, lower case, only `[a-z0-9_.-]`, as WireMock names them.
    static func fileName(for mapping: StubMapping) -> String {
        let base = mapping.name ?? mapping.summary
        var cleaned = ""
        for scalar in base.lowercased().unicodeScalars {
            let keep = ("a"..."z").contains(scalar) || ("0"..."9").contains(scalar) || scalar == "_" || scalar == "-" || scalar == "."
            let next: String = keep ? String(scalar) : "-"
            if !(next == "-" && cleaned.hasSuffix("-")) { cleaned += next }
        }
        cleaned = String(cleaned.trimmingCharacters(in: CharacterSet(charactersIn: "-.")).prefix(60))
        return (cleaned.isEmpty ? "" : cleaned + "-") + mapping.id + ".json"
    }

    // MARK: Serving

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

    // MARK: Scenarios

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

/// The engine's part of one scope: its scenario states, and (in a named scope) the mappings its
/// admin calls added.
/// A count shared by the engine and its scopes' states.
private final class ScopeCounter: Sendable {
    let value = Atomic<Int>(0)
}

private final class StubScope: ScopeState {
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
