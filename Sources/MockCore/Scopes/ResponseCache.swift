import HTTPServer

/// Rendered answers by request key, for emulators whose answer depends only on the request and
/// their data: a client (or a test suite) asking the same thing again is answered from memory,
/// without a copy of the body. Entries belong to a *generation* of the data (a change counter);
/// a lookup or store with a newer generation starts over, so a change never serves a stale
/// answer. When full (by count or by bytes) it also starts over, which bounds memory without
/// bookkeeping on every hit; an answer larger than a quarter of the byte cap is not kept.
public final class ResponseCache: Sendable {
    private struct Entries {
        var generation = 0
        var responses: [String: Response] = [:]
        var bytes = 0
        /// Lookups over the server's life (kept across generations), for the metrics.
        var hits = 0
        var misses = 0
    }

    private let entries = Locked(Entries())
    /// How many answers are kept; 0 keeps none.
    public let capacity: Int
    /// How many body bytes are kept at most (files sent from disk count nothing).
    public let maxBytes: Int

    public static let defaultMaxBytes = 32 << 20

    public init(capacity: Int, maxBytes: Int = defaultMaxBytes) {
        self.capacity = capacity
        self.maxBytes = maxBytes
    }

    public func response(for key: String, generation: Int = 0) -> Response? {
        guard capacity > 0 else { return nil }
        return entries.withLock { entries in
            let found = entries.generation == generation ? entries.responses[key] : nil
            if found == nil { entries.misses += 1 } else { entries.hits += 1 }
            return found
        }
    }

    public func store(_ response: Response, for key: String, generation: Int = 0) {
        let size = Self.size(of: response)
        guard capacity > 0, size <= maxBytes / 4 else { return }
        entries.withLock { entries in
            if entries.generation != generation {
                guard generation > entries.generation else { return }
                entries = Entries(generation: generation, hits: entries.hits, misses: entries.misses)
            }
            if let replaced = entries.responses.removeValue(forKey: key) { entries.bytes -= Self.size(of: replaced) }
            if entries.responses.count >= capacity || entries.bytes + size > maxBytes {
                entries.responses.removeAll(keepingCapacity: true)
                entries.bytes = 0
            }
            entries.responses[key] = response
            entries.bytes += size
        }
    }

    /// Memory a cached answer holds: a body sent from a file holds none.
    private static func size(of response: Response) -> Int {
        response.body.file == nil ? response.body.count : 0
    }

    /// Body bytes held now.
    public var bytes: Int { entries.withLock { $0.bytes } }

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
