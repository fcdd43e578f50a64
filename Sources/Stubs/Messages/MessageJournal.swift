import HTTPServer
import JSON
import MockCore
import Synchronization

/// The messages received and sent, oldest first, at most a count and a number of bytes: the
/// oldest go as new ones come. Dropping from the front moves a start index; the array is
/// compacted only when half of it is dropped, so recording a message costs the same however full.
struct MessageJournal {
    private var stored: [MessageEvent] = []
    private var start = 0
    private var bytes = 0

    var events: ArraySlice<MessageEvent> { stored[start...] }

    mutating func append(_ event: MessageEvent, keeping capacity: Int, bytes limit: Int) {
        stored.append(event)
        bytes += event.bytes
        while stored.count - start > capacity || (bytes > limit && stored.count - start > 1) {
            bytes -= stored[start].bytes
            start += 1
        }
        if start > 1024 && start * 2 > stored.count {
            stored.removeFirst(start)
            start = 0
        }
    }

    /// Removes the events `condition` picks; those removed, oldest first.
    mutating func remove(where condition: (MessageEvent) -> Bool) -> [MessageEvent] {
        let removed = events.filter(condition)
        guard !removed.isEmpty else { return [] }
        stored = events.filter { !condition($0) }
        start = 0
        bytes = stored.reduce(0) { $0 + $1.bytes }
        return removed
    }
}

/// A message journaled: received on a channel, or sent to one.
struct MessageEvent: Sendable {
    enum Kind: String, Sendable {
        case received
        case sent
    }

    /// Its id in UUID form, from a serial (a random UUID per message costs more than the rest of it).
    var id: String { Request.serialID(serial | 1 << 63) }
    private let serial = MessageEvent.serials.add(1, ordering: .relaxed).newValue
    private static let serials = Atomic<UInt64>(0)
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
