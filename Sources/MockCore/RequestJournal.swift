import HTTPServer
import Synchronization

/// One served request: what came in, who answered, how, and how long it took.
public struct JournalEntry: Sendable {
    /// Increases by one per request over the server's life.
    public let sequence: UInt64
    public let request: Request
    /// The backend that answered, nil when nothing matched (404).
    public let backend: String?
    public let status: Int
    /// Wall-clock time the request was logged, seconds since the Unix epoch.
    public let loggedAt: Double
    /// From the request's arrival to its reply being handed to the server.
    public let durationNanos: UInt64

    /// A stable UUID-shaped id, unique per server run, derived from `sequence`.
    public func id(runID: UInt64) -> String {
        let hex = String(runID, radix: 16).leftPadded(to: 16) + String(sequence, radix: 16).leftPadded(to: 16)
        let chars = Array(hex)
        return [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { String(chars[$0]) }.joined(separator: "-")
    }
}

/// Every request the server answered, newest last, bounded both in entries and in body bytes
/// kept, so a long CI run cannot grow it without limit. Thread-safe; recording is O(1).
public final class RequestJournal: Sendable {
    public let capacity: Int
    public let maxBodyBytes: Int
    /// Random per run, so journal ids differ between runs.
    public let runID: UInt64

    private struct Ring {
        var slots: [JournalEntry?]
        var start = 0
        var count = 0
        var bodyBytes = 0
        var nextSequence: UInt64 = 1
    }

    private let ring: Mutex<Ring>

    public init(capacity: Int = 10_000, maxBodyBytes: Int = 64 * 1024 * 1024) {
        self.capacity = max(1, capacity)
        self.maxBodyBytes = maxBodyBytes
        self.runID = UInt64.random(in: 1...UInt64.max)
        ring = Mutex(Ring(slots: Array(repeating: nil, count: max(1, capacity))))
    }

    public func record(_ request: Request, backend: String?, status: Int, loggedAt: Double, durationNanos: UInt64) {
        ring.withLock { ring in
            let entry = JournalEntry(sequence: ring.nextSequence, request: request, backend: backend, status: status,
                                     loggedAt: loggedAt, durationNanos: durationNanos)
            ring.nextSequence += 1
            if ring.count == capacity { Self.dropOldest(&ring) }
            ring.slots[(ring.start + ring.count) % capacity] = entry
            ring.count += 1
            ring.bodyBytes += request.body.count
            while ring.bodyBytes > maxBodyBytes && ring.count > 1 { Self.dropOldest(&ring) }
        }
    }

    private static func dropOldest(_ ring: inout Ring) {
        let capacity = ring.slots.count
        ring.bodyBytes -= ring.slots[ring.start]?.request.body.count ?? 0
        ring.slots[ring.start] = nil
        ring.start = (ring.start + 1) % capacity
        ring.count -= 1
    }

    /// The entries kept, oldest first.
    public var entries: [JournalEntry] {
        ring.withLock { ring in
            (0..<ring.count).compactMap { ring.slots[(ring.start + $0) % capacity] }
        }
    }

    public var count: Int { ring.withLock { $0.count } }

    public func clear() {
        ring.withLock { ring in
            for index in ring.slots.indices { ring.slots[index] = nil }
            ring.start = 0
            ring.count = 0
            ring.bodyBytes = 0
        }
    }
}

extension String {
    func leftPadded(to length: Int, with pad: Character = "0") -> String {
        count >= length ? self : String(repeating: pad, count: length - count) + self
    }
}
