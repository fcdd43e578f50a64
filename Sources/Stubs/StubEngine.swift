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
    let logger: Logger

    struct State {
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

    let state = Locked(State())
    /// Lets a request skip the lock when there are no mappings at all (emulator-only setups).
    let mappingCount = Atomic(0)
    /// Each scope's scenario states and own mappings.
    let scopeKey: ScopeKey<StubScope>
    /// How many scopes have mappings of their own: while none has, requests in named scopes skip
    /// looking for them.
    let scopesWithOwnMappings: ScopeCounter

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

    func publish(_ state: inout State) {
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
    func cancelWebhooksOfRemovedMappings() {
        webhooks.cancel(because: "its mapping was removed") { scope in Set(mappings(in: scope).map(\.id)) }
    }

    /// `POST /__admin/reset` in `default`: the shared mappings back to the files (a named scope's
    /// own mappings and every scope's scenarios went with the scope's state).
    public func reset(scope: StateScope) {
        if scope.isDefault { restoreFromFiles() }
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
}
