import HTTPServer
import JSON
import Synchronization

/// One served request: what came in, who answered, how, and how long it took. A class: the
/// journal's ring holds references, so recording and evicting move one pointer, not the request.
public final class JournalEntry: Sendable {
    /// Increases by one per request over the server's life.
    public let sequence: UInt64
    public let request: Request
    /// The scope the request named (`default` when none).
    public let scope: StateScope
    /// The backend that answered, nil when nothing matched (404).
    public let backend: String?
    public let status: Int
    /// What was sent: status, headers and body, but never a body sent from a file (the journal
    /// must not hold files open), and of a body over `RequestJournal.keptBodyLimit` only its
    /// start; `GET /__admin/requests` shows it as WireMock's `response`.
    public let response: Response
    /// The size of the body that was sent, when only its first `keptBodyLimit` bytes are kept.
    public let truncatedFrom: Int?
    /// Wall-clock time the request was logged, seconds since the Unix epoch.
    public let loggedAt: Double
    /// From the request's arrival to its reply being handed to the server.
    public let durationNanos: UInt64
    /// What the exchange broke of the API contract (`serve --openapi`); empty without one.
    public let violations: [ContractViolation]

    init(
        sequence: UInt64, request: consuming Request, scope: StateScope, backend: String?, response: Response, loggedAt: Double,
        durationNanos: UInt64, violations: [ContractViolation] = []
    ) {
        self.violations = violations
        self.sequence = sequence
        self.request = request
        self.scope = scope
        self.backend = backend
        self.status = response.status
        if response.body.file != nil {
            self.response = Response(status: response.status, reason: response.reason, headers: response.headers)
            truncatedFrom = nil
        } else if response.body.count > RequestJournal.keptBodyLimit {
            // Copied, so that the large answer itself is not held.
            self.response = Response(
                status: response.status, reason: response.reason, headers: response.headers,
                body: response.body.prefix(RequestJournal.keptBodyLimit))
            truncatedFrom = response.body.count
        } else {
            self.response = response
            truncatedFrom = nil
        }
        self.loggedAt = loggedAt
        self.durationNanos = durationNanos
    }

    /// Bytes the journal's budget counts when this entry comes in: the request's body and the
    /// response's, a shared buffer only when no other entry holds it already. Called under the
    /// journal's lock, paired with `release()`.
    fileprivate func admit() -> Int {
        isHeld.store(true, ordering: .relaxed)
        guard let shared = response.body.sharedBytes else { return request.body.count + response.body.count }
        return request.body.count + (shared.budgetedHolds.add(1, ordering: .relaxed).oldValue == 0 ? shared.count : 0)
    }

    /// Bytes the budget no longer counts when this entry goes.
    fileprivate func release() -> Int {
        isHeld.store(false, ordering: .relaxed)
        guard let shared = response.body.sharedBytes else { return request.body.count + response.body.count }
        return request.body.count + (shared.budgetedHolds.subtract(1, ordering: .relaxed).newValue == 0 ? shared.count : 0)
    }

    /// A UUID-shaped id, unique per process: the request's (what `{{request.id}}` printed).
    public var id: String { request.id }

    /// Whether the journal holds the entry (between `admit()` and `release()`): what comes after
    /// its answer is kept only then.
    fileprivate let isHeld = Atomic<Bool>(false)
}

/// One thing that happened after an answer: WireMock 3's serve event `subEvents` entry.
public struct JournalSubEvent: Sendable {
    public static let limit = 32
    public let type: String
    public let timeOffsetNanos: UInt64
    public let data: JSONValue

    public var json: JSONValue {
        .object([("type", .string(type)), ("timeOffsetNanos", .int(Int(clamping: timeOffsetNanos))), ("data", data)])
    }
}

/// Every request the server answered, newest last, bounded both in entries and in body bytes
/// kept (every body it holds counts, a shared one once), so a long CI run or a client asking for
/// large answers cannot grow it without limit. Thread-safe; recording is O(1).
public final class RequestJournal: Sendable {
    public let capacity: Int
    public let maxBodyBytes: Int
    /// A response body larger than this is kept as its first this many bytes (the dashboard says so).
    public static let keptBodyLimit = 256 * 1024

    private struct Ring {
        var slots: [JournalEntry?]
        var start = 0
        var count = 0
        var bodyBytes = 0
        /// Entries dropped to make room, over the server's life.
        var evictions = 0
        /// What happened after some answers (a webhook's request and its answer), by the entry's
        /// sequence, with the bytes it counts in `bodyBytes`: only webhooks add any, so an entry
        /// itself carries nothing for them. Dropped with its entry.
        var subEvents: [UInt64: (events: [JournalSubEvent], bytes: Int)] = [:]
    }

    private let nextSequence = Atomic<UInt64>(1)

    /// Whether any sub-event was ever added: until then reading them takes no lock.
    private let hasSubEvents = Atomic<Bool>(false)

    private let ring: Locked<Ring>

    public init(capacity: Int = 10_000, maxBodyBytes: Int = 64 * 1024 * 1024) {
        self.capacity = max(1, capacity)
        self.maxBodyBytes = maxBodyBytes
        ring = Locked(Ring(slots: Array(repeating: nil, count: max(1, capacity))))
    }

    /// Wall clock and monotonic clock read together once, so recording reads one clock only.
    private let wallAtStart = MonotonicClock.wallSeconds()
    private let monotonicAtStart = MonotonicClock.nanoseconds()

    @discardableResult
    public func record(
        _ request: consuming Request, scope: StateScope, backend: String?, response: Response, atMonotonicNanos now: UInt64,
        durationNanos: UInt64, violations: [ContractViolation] = []
    ) -> JournalEntry {
        let loggedAt = wallAtStart + Double(Int64(bitPattern: now &- monotonicAtStart)) / 1e9
        // The entry is made outside the lock; under it only references move.
        let entry = JournalEntry(
            sequence: nextSequence.add(1, ordering: .relaxed).oldValue, request: request,
            scope: scope, backend: backend, response: response, loggedAt: loggedAt, durationNanos: durationNanos, violations: violations)
        let evicted = ring.withLock { ring -> JournalEntry? in
            let evicted = ring.count == capacity ? Self.dropOldest(&ring) : nil
            ring.slots[(ring.start + ring.count) % capacity] = entry
            ring.count += 1
            ring.bodyBytes += entry.admit()
            while ring.bodyBytes > maxBodyBytes && ring.count > 1 { Self.dropOldest(&ring) }
            return evicted
        }
        _ = consume evicted  // freed here, outside the lock
        return entry
    }

    /// What a sub-event costs beyond its JSON text.
    static let subEventOverheadBytes = 128

    /// Adds what happened after `entry`'s answer, timed from its request's arrival (at most
    /// `JournalSubEvent.limit` per entry, and only while the journal holds the entry). Its bytes
    /// (all of its data: URL, headers, body) count in `maxBodyBytes` with the entries', so older
    /// entries make room for it as for a new entry.
    public func append(subEvent type: String, _ data: JSONValue, to entry: JournalEntry) {
        let offset = MonotonicClock.nanoseconds() &- entry.request.receivedAtNanos
        let event = JournalSubEvent(type: type, timeOffsetNanos: offset, data: data)
        let bytes = Self.subEventOverheadBytes + type.utf8.count + data.serialized.utf8.count
        hasSubEvents.store(true, ordering: .releasing)
        let evicted = ring.withLock { ring -> [JournalEntry] in
            guard entry.isHeld.load(ordering: .relaxed) else { return [] }
            var held = ring.subEvents[entry.sequence] ?? ([], 0)
            guard held.events.count < JournalSubEvent.limit else { return [] }
            held.events.append(event)
            held.bytes += bytes
            ring.subEvents[entry.sequence] = held
            ring.bodyBytes += bytes
            var evicted: [JournalEntry] = []
            while ring.bodyBytes > maxBodyBytes && ring.count > 0, let oldest = Self.dropOldest(&ring) { evicted.append(oldest) }
            return evicted
        }
        _ = consume evicted  // freed here, outside the lock
    }

    /// What happened after `entry`'s answer; empty (one atomic load) until a webhook has fired.
    public func subEvents(of entry: JournalEntry) -> [JournalSubEvent] {
        guard hasSubEvents.load(ordering: .acquiring) else { return [] }
        return ring.withLock { $0.subEvents[entry.sequence]?.events ?? [] }
    }

    /// Forgets what happened after `entry`'s answer, giving back its bytes (the entry is leaving).
    private static func dropSubEvents(of entry: JournalEntry?, _ ring: inout Ring) {
        guard let entry, !ring.subEvents.isEmpty, let held = ring.subEvents.removeValue(forKey: entry.sequence) else { return }
        ring.bodyBytes -= held.bytes
    }

    /// Unlinks the oldest entry and returns it, so the caller can free it after the lock.
    @discardableResult
    private static func dropOldest(_ ring: inout Ring) -> JournalEntry? {
        let capacity = ring.slots.count
        let oldest = ring.slots[ring.start]
        ring.bodyBytes -= oldest?.release() ?? 0
        dropSubEvents(of: oldest, &ring)
        ring.evictions += 1
        ring.slots[ring.start] = nil
        ring.start = (ring.start + 1) % capacity
        ring.count -= 1
        return oldest
    }

    /// The entries kept, oldest first.
    public var entries: [JournalEntry] {
        ring.withLock { ring in
            (0..<ring.count).compactMap { ring.slots[(ring.start + $0) % capacity] }
        }
    }

    public var count: Int { ring.withLock { $0.count } }

    /// The body bytes the budget counts now.
    public var bodyBytes: Int { ring.withLock { $0.bodyBytes } }

    /// Entries dropped to make room (for the entry count or the body bytes) since the start.
    public var evictions: Int { ring.withLock { $0.evictions } }

    /// The sequence number of the newest entry recorded (0 before the first): a follower of the
    /// journal asks for what came after it without taking the lock.
    public var latestSequence: UInt64 { nextSequence.load(ordering: .relaxed) - 1 }

    /// The entries recorded after sequence `after` (of `scope`; of every scope when nil), oldest
    /// first, at most `limit` of them (the newest), and the newest sequence the journal holds (the
    /// next call's `after`). Walks back from the newest only as far as needed: loops number their
    /// entries before they take the lock, so a few entries may sit out of order; `outOfOrderSlack`
    /// older entries are looked at past the first one already seen.
    public func entries(after: UInt64, in scope: StateScope?, limit: Int) -> (entries: [JournalEntry], newest: UInt64) {
        ring.withLock { ring in
            var found: [JournalEntry] = []
            var newest = after
            var index = ring.count - 1
            var slack = Self.outOfOrderSlack
            while index >= 0, found.count < limit, slack > 0, let entry = ring.slots[(ring.start + index) % capacity] {
                index -= 1
                newest = max(newest, entry.sequence)
                guard entry.sequence > after else {
                    slack -= 1
                    continue
                }
                if scope == nil || entry.scope === scope { found.append(entry) }
            }
            return (found.sorted { $0.sequence < $1.sequence }, newest)
        }
    }

    private static let outOfOrderSlack = 64

    /// The entries of `scope` (of every scope when nil), oldest first.
    public func entriesOf(_ scope: StateScope?) -> [JournalEntry] {
        guard let scope else { return entries }
        return ring.withLock { ring in
            (0..<ring.count).compactMap { index in ring.slots[(ring.start + index) % capacity].flatMap { $0.scope === scope ? $0 : nil } }
        }
    }

    /// Forgets the entries of `scope` (every entry when nil).
    public func clear(_ scope: StateScope?) {
        guard let scope else { return clear() }
        remove { $0.scope === scope }
    }

    /// Removes the entries `predicate` picks and returns them.
    @discardableResult
    public func remove(where predicate: (JournalEntry) -> Bool) -> [JournalEntry] {
        ring.withLock { ring in
            let all = (0..<ring.count).compactMap { ring.slots[(ring.start + $0) % capacity] }
            let (removed, kept) = (all.filter(predicate), all.filter { !predicate($0) })
            guard !removed.isEmpty else { return [] }
            for index in ring.slots.indices { ring.slots[index] = nil }
            for (index, entry) in kept.enumerated() { ring.slots[index] = entry }
            ring.start = 0
            ring.count = kept.count
            for entry in removed {
                ring.bodyBytes -= entry.release()
                Self.dropSubEvents(of: entry, &ring)
            }
            return removed
        }
    }

    public func clear() {
        ring.withLock { ring in
            for index in ring.slots.indices {
                _ = ring.slots[index]?.release()
                ring.slots[index] = nil
            }
            ring.start = 0
            ring.count = 0
            ring.bodyBytes = 0
            ring.subEvents = [:]
        }
    }
}
