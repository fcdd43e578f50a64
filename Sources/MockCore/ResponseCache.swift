import HTTPServer
import Synchronization

/// Rendered answers by request key, for emulators whose answer depends only on the request and
/// their data: a client (or a test suite) asking the same thing again is answered from memory,
/// without a copy of the body. Entries belong to a *generation* of the data (a change counter);
/// a lookup or store with a newer generation starts over, so a change never serves a stale
/// answer. When full it also starts over, which bounds memory without bookkeeping on every hit.
public final class ResponseCache: Sendable {
    private struct Entries {
        var generation = 0
        var responses: [String: Response] = [:]
    }

    private let entries = Mutex(Entries())
    /// How many answers are kept; 0 keeps none.
    public let capacity: Int

    public init(capacity: Int) {
        self.capacity = capacity
    }

    public func response(for key: String, generation: Int = 0) -> Response? {
        guard capacity > 0 else { return nil }
        return entries.withLock { $0.generation == generation ? $0.responses[key] : nil }
    }

    public func store(_ response: Response, for key: String, generation: Int = 0) {
        guard capacity > 0 else { return }
        entries.withLock { entries in
            if entries.generation != generation {
                guard generation > entries.generation else { return }
                entries = Entries(generation: generation)
            }
            if entries.responses.count >= capacity { entries.responses.removeAll(keepingCapacity: true) }
            entries.responses[key] = response
        }
    }
}
