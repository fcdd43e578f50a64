import Foundation
import JSON
import WireFormat

/// A WebSocket session captured (a HAR entry's `_webSocketMessages`, as Chrome exports them): the
/// path that opened it and its messages in order, each with its time. `mappings` turns it into
/// message mappings that replay it.
public struct RecordedChannel: Sendable {
    public struct Message: Sendable {
        /// Sent by the client (else by the server).
        public var fromClient: Bool
        /// When, in seconds (any origin: only differences are used).
        public var seconds: Double
        public var bytes: [UInt8]
        public var isBinary: Bool

        public init(fromClient: Bool, seconds: Double, bytes: [UInt8], isBinary: Bool) {
            self.fromClient = fromClient
            self.seconds = seconds
            self.bytes = bytes
            self.isBinary = isBinary
        }
    }

    public var path: String
    /// When the channel opened, in the messages' seconds, if known.
    public var openedAt: Double?
    public var messages: [Message]

    public init(path: String, openedAt: Double?, messages: [Message]) {
        self.path = path
        self.openedAt = openedAt
        self.messages = messages
    }

    /// Message mappings that replay the session: what the server said before the client spoke (a
    /// `channel-open` trigger), then for each client message the server's messages that followed
    /// it, in order and with their spacing (`delayMs`, from the trigger). A client message said
    /// again is answered as the first time (the first mapping wins). Both `channel-open` and
    /// `delayMs` are Understudy's own; WireMock 4 has no way to say either.
    public func mappings() -> [JSONValue] {
        let channel: JSONValue = .object([("type", "websocket"), ("initiatingRequestPattern", .object([("urlPath", .string(path))]))])
        var mappings: [JSONValue] = []
        var seen: Set<[UInt8]> = []
        var index = 0
        func replies(after start: Double) -> [JSONValue] {
            var actions: [JSONValue] = []
            while index < messages.count, !messages[index].fromClient {
                let message = messages[index]
                let delay = max(0, Int(((message.seconds - start) * 1000).rounded()))
                actions.append(.object([("type", "send"), ("message", .object([("body", Self.body(message))])), ("delayMs", .int(delay))]))
                index += 1
            }
            return actions
        }
        let greeting = replies(after: openedAt ?? messages.first?.seconds ?? 0)
        if !greeting.isEmpty {
            mappings.append(
                .object([
                    ("name", .string("\(path): on opening")), ("trigger", .object([("type", "channel-open"), ("channel", channel)])),
                    ("actions", .array(greeting)),
                ]))
        }
        while index < messages.count {
            let asked = messages[index]
            index += 1
            let answers = replies(after: asked.seconds)
            guard seen.insert(asked.bytes).inserted else { continue }
            let pattern: JSONValue =
                asked.isBinary
                ? .object([("binaryEqualTo", .string(Base64.encode(asked.bytes)))]) : .object([("equalTo", .string(Self.text(asked.bytes)))])
            let shown = Self.text(asked.bytes).prefix(40)
            mappings.append(
                .object([
                    ("name", .string("\(path): after \"\(shown)\"")),
                    ("trigger", .object([("type", "message"), ("channel", channel), ("message", .object([("body", pattern)]))])),
                    ("actions", .array(answers)),
                ]))
        }
        return mappings
    }

    /// What a send action sends: text as a template that prints it as it was (`\{{`), bytes as base64.
    private static func body(_ message: Message) -> JSONValue {
        if message.isBinary { return .object([("base64Data", .string(Base64.encode(message.bytes)))]) }
        return .object([("data", .string(text(message.bytes).replacingOccurrences(of: "{{", with: "\\{{")))])
    }

    private static func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }
}
