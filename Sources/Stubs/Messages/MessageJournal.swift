import HTTPServer
import JSON
import MockCore

/// The messages received and sent, oldest first, at most a count and a number of bytes.
typealias MessageJournal = BoundedJournal<MessageEvent>

/// What a `BoundedJournal` keeps: its size in memory, roughly.
protocol Weighed {
    var bytes: Int { get }
}

/// Events, oldest first, at most a count and a number of bytes: the oldest go as new ones come.
/// A ring: recording an event costs the same however full.
struct BoundedJournal<Event: Weighed> {
    /// The ring's slots; `nil` where an event was dropped (its memory let go) or none came yet.
    private var slots: [Event?] = []
    /// The oldest event's slot.
    private var head = 0
    private var count = 0
    private var bytes = 0

    /// The events, oldest first.
    var events: [Event] {
        (0..<count).compactMap { slots[(head + $0) % slots.count] }
    }

    mutating func append(_ event: Event, keeping capacity: Int, bytes limit: Int) {
        guard capacity > 0 else { return }
        if count == slots.count {
            // Full: grow (up to the capacity, then drop the oldest to make room).
            if slots.count < capacity {
                grow(to: min(capacity, max(16, slots.count * 2)))
            } else {
                dropOldest()
            }
        }
        slots[(head + count) % slots.count] = event
        count += 1
        bytes += event.bytes
        while count > 1 && bytes > limit { dropOldest() }
    }

    private mutating func dropOldest() {
        bytes -= slots[head]?.bytes ?? 0
        slots[head] = nil
        head = (head + 1) % slots.count
        count -= 1
    }

    private mutating func grow(to size: Int) {
        var grown: [Event?] = events
        grown.append(contentsOf: repeatElement(nil, count: size - grown.count))
        slots = grown
        head = 0
    }

    /// Removes the events `condition` picks; those removed, oldest first.
    mutating func remove(where condition: (Event) -> Bool) -> [Event] {
        let all = events
        let removed = all.filter(condition)
        guard !removed.isEmpty else { return [] }
        slots = all.filter { !condition($0) }
        head = 0
        count = slots.count
        bytes = slots.reduce(0) { $0 + ($1?.bytes ?? 0) }
        return removed
    }
}

/// A message journaled: received on a channel, or sent to one.
struct MessageEvent: Sendable, Weighed {
    enum Kind: String, Sendable {
        case received
        case sent
    }

    /// Its id in UUID form, from a serial (a random UUID per message costs more than the rest of it).
    var id: String { Request.serialID(serial | 1 << 63) }
    /// Given when it is journaled, under the journal's lock (a counter of its own would be one
    /// more cache line every loop writes a message).
    var serial: UInt64 = 0
    let type: Kind
    /// The channel (its id, scope and opening request, for a pattern's `channel`).
    let channel: MessageStubs.OpenChannel
    let message: String
    /// The mapping that matched a received message (nil: none did, or a sent one).
    let stub: JSONValue?
    /// When it came or went, seconds since 1970.
    let timestamp: Double

    var scope: StateScope { channel.scope }
    var request: Request { channel.request }

    /// What the event holds in memory, roughly: its text and the fixed part.
    var bytes: Int { message.utf8.count + 128 }

    init(type: Kind, channel: MessageStubs.OpenChannel, message: String, stub: JSONValue?, at timestamp: Double = MonotonicClock.wallSeconds()) {
        self.timestamp = timestamp
        self.type = type
        self.channel = channel
        self.message = message
        self.stub = stub
    }

    /// WireMock 4's `MessageServeEvent`.
    var json: JSONValue {
        var members: [(String, JSONValue)] = [
            ("id", .string(id)), ("eventType", .string(type.rawValue)),
            // A message came or went while the channel was open.
            ("channel", .object([("type", .string("websocket")), ("id", .string(channel.id)), ("open", true)])),
            ("message", .string(message)), ("wasMatched", .bool(type == .sent || stub != nil)),
            ("timestamp", .string(Timestamp.iso8601(timestamp))),
        ]
        if let stub { members.append(("stubMapping", stub)) }
        return .object(members)
    }
}
