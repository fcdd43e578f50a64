import HTTPServer
import Synchronization

/// Rendered answers by format and query string. A lookup's answer depends only on its parameters,
/// the gazetteer and the user's places, so an app (or a test suite) asking the same thing again
/// is answered from memory, without a copy. Keys, quotas and signatures are checked before the
/// cache is consulted; a reset (which rereads places.json) starts a new one. When full it starts
/// over, which bounds its memory without bookkeeping on every hit.
final class ResponseCache: Sendable {
    private let entries = Mutex<[String: SharedBytes]>([:])

    func body(for key: String) -> SharedBytes? {
        entries.withLock { $0[key] }
    }

    func store(_ body: SharedBytes, for key: String, capacity: Int) {
        guard capacity > 0 else { return }
        entries.withLock { entries in
            if entries.count >= capacity { entries.removeAll(keepingCapacity: true) }
            entries[key] = body
        }
    }
}
