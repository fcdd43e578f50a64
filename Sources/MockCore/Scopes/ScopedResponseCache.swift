import HTTPServer

/// Answers of read-only requests, kept while their scope's data is unchanged, for all scopes
/// under one cap on entries and one on bytes: a client can ask for a whole table (or feed) again
/// and again, and sixty answers of 13 MB each once took the process to a gigabyte. When a
/// cap is reached the least recently used answers go first; an answer larger than the byte
/// cap is not kept at all.
public final class ScopedResponseCache: Sendable {
    private struct Entry {
        var response: Response
        var scope: String
        var bytes: Int
        /// The scope database's change count the answer was made at.
        var generation: Int
        var lastUse: UInt64
    }

    private struct Entries {
        var byKey: [String: Entry] = [:]
        var bytes = 0
        var clock: UInt64 = 0
        /// Lookups over the server's life, for the metrics.
        var hits = 0
        var misses = 0

        mutating func remove(_ key: String) {
            if let old = byKey.removeValue(forKey: key) { bytes -= old.bytes }
        }
    }

    /// Most answers kept; 0 keeps none.
    public let maxEntries: Int
    /// Most bytes of answers (bodies and keys) kept; 0 keeps none.
    public let maxBytes: Int
    private let entries = Locked(Entries())

    public init(maxEntries: Int, maxBytes: Int) {
        self.maxEntries = maxEntries
        self.maxBytes = maxBytes
    }

    /// Bytes held now.
    public var bytes: Int { entries.withLock(\.bytes) }
    /// Answers held now.
    public var count: Int { entries.withLock(\.byKey.count) }

    public var statistics: ResponseCache.Statistics {
        entries.withLock { ResponseCache.Statistics(hits: $0.hits, misses: $0.misses) }
    }

    /// Bytes held for `scope`'s answers (a scan: for the scope list, not requests).
    public func bytes(of scope: String) -> Int {
        entries.withLock { entries in entries.byKey.values.reduce(0) { $0 + ($1.scope == scope ? $1.bytes : 0) } }
    }

    /// The answer to `key` in `scope`, if it was made at `generation`.
    public func response(scope: String, key: String, generation: Int) -> Response? {
        guard maxEntries > 0, maxBytes > 0 else { return nil }
        let fullKey = scope + "\u{0}" + key
        return entries.withLock { entries in
            guard var entry = entries.byKey[fullKey] else {
                entries.misses += 1
                return nil
            }
            guard entry.generation == generation else {
                entries.remove(fullKey)
                entries.misses += 1
                return nil
            }
            entries.hits += 1
            entries.clock += 1
            entry.lastUse = entries.clock
            entries.byKey[fullKey] = entry
            return entry.response
        }
    }

    /// Keeps `response` (a body of `bodyBytes`) for `key` in `scope` at `generation`, making
    /// room by dropping the least recently used answers.
    public func store(_ response: Response, bodyBytes: Int, scope: String, key: String, generation: Int) {
        let fullKey = scope + "\u{0}" + key
        // The key is kept too, and it holds the client's SQL.
        let size = bodyBytes + fullKey.utf8.count
        guard maxEntries > 0, size <= maxBytes else { return }
        entries.withLock { entries in
            entries.remove(fullKey)
            // Scans for the oldest: evictions are rare next to hits, and entries are few.
            while entries.byKey.count >= maxEntries || entries.bytes + size > maxBytes,
                let oldest = entries.byKey.min(by: { $0.value.lastUse < $1.value.lastUse })?.key
            {
                entries.remove(oldest)
            }
            entries.clock += 1
            entries.byKey[fullKey] = Entry(response: response, scope: scope, bytes: size, generation: generation, lastUse: entries.clock)
            entries.bytes += size
        }
    }

    /// Drops every answer of `scope` (its database was opened again or restored).
    public func forget(scope: String) {
        entries.withLock { entries in
            for (key, entry) in entries.byKey where entry.scope == scope { entries.remove(key) }
        }
    }
}
