import HTTPServer

/// Rendered answers of read-only requests, kept while the data they were made from is unchanged:
/// a client (or a test suite) asking the same thing again is answered from memory, without a
/// copy of the body. The one answer cache of every emulator:
/// - **scoped**: an answer belongs to the scope whose data made it (`unscoped` for an emulator
///   whose data every scope shares); `forget(scope:)` drops a scope's;
/// - **generation-keyed**: each answer carries the change count of its data it was made at; a
///   lookup at another generation misses, and an answer made from older data, stored late, never
///   replaces a newer one;
/// - **one cap** on answers and one on bytes (bodies and keys) for all scopes. When a cap is
///   reached the least recently used answers go, down to three quarters of the caps, so the scan
///   for them is paid once per many stores; an answer larger than a quarter of the byte cap is
///   not kept (sixty SQL answers of 13 MB each once took the process to a gigabyte).
public final class AnswerCache: Sendable {
    /// The scope of answers that do not depend on one (the geocoder's, the storefront's).
    public static let unscoped = ""
    public static let defaultMaxBytes = 32 << 20

    private struct Key: Hashable {
        let scope: String
        let request: String
    }

    /// Changed under the lock only.
    private final class Entry {
        let response: Response
        let bytes: Int
        let generation: Int
        var lastUse: UInt64

        init(response: Response, bytes: Int, generation: Int, lastUse: UInt64) {
            self.response = response
            self.bytes = bytes
            self.generation = generation
            self.lastUse = lastUse
        }
    }

    private struct Entries {
        var byKey: [Key: Entry] = [:]
        var bytes = 0
        var clock: UInt64 = 0
        /// Lookups over the server's life, for the metrics.
        var hits = 0
        var misses = 0

        mutating func remove(_ key: Key) {
            if let old = byKey.removeValue(forKey: key) { bytes -= old.bytes }
        }
    }

    /// Most answers kept; 0 keeps none.
    public let maxEntries: Int
    /// Most bytes of answers (bodies and keys) kept; 0 keeps none.
    public let maxBytes: Int
    private let entries = Locked(Entries())

    public init(maxEntries: Int, maxBytes: Int = defaultMaxBytes) {
        self.maxEntries = maxEntries
        self.maxBytes = maxBytes
    }

    /// Whether it keeps anything (a caller with no cache need not make a key).
    public var isEnabled: Bool { maxEntries > 0 && maxBytes > 0 }

    /// The answer to `key` in `scope`, if it was made at `generation`.
    public func response(for key: String, in scope: String = unscoped, generation: Int = 0) -> Response? {
        guard isEnabled else { return nil }
        let key = Key(scope: scope, request: key)
        return entries.withLock { entries in
            guard let entry = entries.byKey[key] else {
                entries.misses += 1
                return nil
            }
            guard entry.generation == generation else {
                // An answer made from older data than this request's is of no more use.
                if entry.generation < generation { entries.remove(key) }
                entries.misses += 1
                return nil
            }
            entries.hits += 1
            entries.clock += 1
            entry.lastUse = entries.clock
            return entry.response
        }
    }

    /// Keeps `response` for `key` in `scope` at `generation`. Its size is its body's (none for a
    /// body sent from a file), or `bodyBytes` when the caller knows better, plus the key's.
    public func store(_ response: Response, for key: String, in scope: String = unscoped, generation: Int = 0, bodyBytes: Int? = nil) {
        let key = Key(scope: scope, request: key)
        // The key is kept too, and it may hold a client's SQL.
        let size = (bodyBytes ?? (response.body.file == nil ? response.body.count : 0)) + scope.utf8.count + key.request.utf8.count
        guard isEnabled, size <= maxBytes / 4 else { return }
        entries.withLock { entries in
            if let existing = entries.byKey[key] {
                guard existing.generation <= generation else { return }
                entries.remove(key)
            }
            if entries.byKey.count >= maxEntries || entries.bytes + size > maxBytes {
                Self.evict(&entries, toEntries: maxEntries * 3 / 4, bytes: maxBytes * 3 / 4 - size)
            }
            entries.clock += 1
            entries.byKey[key] = Entry(response: response, bytes: size, generation: generation, lastUse: entries.clock)
            entries.bytes += size
        }
    }

    /// Drops the least recently used answers until at most `count` answers of `bytes` remain.
    private static func evict(_ entries: inout Entries, toEntries count: Int, bytes: Int) {
        let oldestFirst = entries.byKey.sorted { $0.value.lastUse < $1.value.lastUse }
        for (key, _) in oldestFirst {
            guard entries.byKey.count > count || entries.bytes > bytes else { return }
            entries.remove(key)
        }
    }

    /// Drops every answer of `scope` (its data was opened again or restored).
    public func forget(scope: String) {
        entries.withLock { entries in
            for key in entries.byKey.keys where key.scope == scope { entries.remove(key) }
        }
    }

    /// Bytes held now.
    public var bytes: Int { entries.withLock(\.bytes) }
    /// Answers held now.
    public var count: Int { entries.withLock(\.byKey.count) }

    /// Bytes held for `scope`'s answers (a scan: for the scope list, not requests).
    public func bytes(of scope: String) -> Int {
        entries.withLock { entries in entries.byKey.reduce(0) { $0 + ($1.key.scope == scope ? $1.value.bytes : 0) } }
    }

    /// Lookups that found an answer, and those that did not (with the cache on).
    public struct Statistics: Sendable, Equatable {
        public var hits: Int
        public var misses: Int

        public init(hits: Int, misses: Int) {
            self.hits = hits
            self.misses = misses
        }
    }

    public var statistics: Statistics {
        entries.withLock { Statistics(hits: $0.hits, misses: $0.misses) }
    }
}
