import Foundation

/// A WebSocket message stub (WireMock 4's message mapping): when a message that matches `body`
/// comes on a channel opened by a request that matches `channel`, the `replies` go out.
///
/// ```swift
/// try await scope.stub(MessageStub(on: .get("/chat"), when: .matches("hello.*"), reply: [.text("You said: {{message.body}}")]))
/// ```
public struct MessageStub: Sendable {
    public let json: JSONValue

    /// `channel`: the request that opened the channel (nil: any); `body`: the message (nil: any);
    /// `priority`: lower first (WireMock's default 5); `replies`: in order.
    public init(on channel: RequestPattern? = nil, when body: StringMatch? = nil, priority: Int? = nil, reply replies: [OutgoingMessage]) {
        var trigger: [String: JSONValue] = ["type": "message"]
        if let channel { trigger["channel"] = ["type": "websocket", "initiatingRequestPattern": channel.json] }
        if let body { trigger["message"] = ["body": body.json] }
        var mapping: [String: JSONValue] = ["trigger": .object(trigger), "actions": .array(replies.map(\.action))]
        if let priority { mapping["priority"] = .int(priority) }
        json = .object(mapping)
    }
}

/// A message a stub or the test sends: text (a template: `{{message.body}}`, `{{request.path}}`…),
/// JSON, or bytes; to the channel the triggering message came on, or to every channel opened by a
/// request like `pattern` (`to(_:)`).
public struct OutgoingMessage: Sendable {
    let body: JSONValue
    var target: RequestPattern?

    public static func text(_ template: String) -> OutgoingMessage { OutgoingMessage(body: ["data": .string(template)]) }

    /// `value` encoded as JSON (sent as text).
    public static func json(_ value: some Encodable, encoder: JSONEncoder = JSONEncoder()) throws -> OutgoingMessage {
        let data = try encoder.encode(value)
        return OutgoingMessage(body: ["data": .string(String(decoding: data, as: UTF8.self))])
    }

    /// Sent as a binary frame.
    public static func binary(_ data: Data) -> OutgoingMessage { OutgoingMessage(body: ["base64Data": .string(data.base64EncodedString())]) }

    /// The same message, sent to every open channel whose opening request matches `pattern`.
    public func to(_ pattern: RequestPattern) -> OutgoingMessage {
        var message = self
        message.target = pattern
        return message
    }

    var action: JSONValue {
        var action: [String: JSONValue] = ["type": "send", "message": ["body": body]]
        if let target { action["channelTarget"] = ["type": "request-initiated", "requestPattern": target.json] }
        return .object(action)
    }

    /// `/__admin/channels/send`'s `message`.
    var sendBody: JSONValue { ["body": body] }
}

/// A message the server journaled: received on a channel, or sent to one.
public struct ChannelMessage: Sendable, CustomStringConvertible {
    public enum Direction: String, Sendable {
        case received, sent
    }

    public let direction: Direction
    /// The message's text (bytes as UTF-8, as WireMock's journal shows them).
    public let text: String
    public let channelID: String
    /// Whether a stub matched a received message (a sent one always counts as matched).
    public let wasMatched: Bool
    public let json: JSONValue

    init(_ json: JSONValue) {
        self.json = json
        direction = Direction(rawValue: json["eventType"]?.stringValue ?? "") ?? .received
        text = json["message"]?.stringValue ?? ""
        channelID = json["channel"]?["id"]?.stringValue ?? ""
        wasMatched = json["wasMatched"] == true
    }

    public var description: String { "\(direction.rawValue) \"\(text)\" on channel \(channelID)\(wasMatched ? "" : " (no stub matched)")" }
}

/// A message verification that failed: how many matched, and what did come.
public struct MessageVerificationFailure: Error, Sendable, CustomStringConvertible, LocalizedError {
    public let body: StringMatch
    public let expected: Times
    public let received: Int
    public let scope: String
    /// The scope's last messages, newest first (at most 5).
    public let recent: [ChannelMessage]

    public var description: String {
        var lines = ["Expected \(expected) message(s) matching \(body) in scope \"\(scope)\", but received \(received)."]
        if received == 0 {
            lines.append(recent.isEmpty ? "No message came in this scope." : "The last messages:")
            lines += recent.map { "  - \($0)" }
        }
        return lines.joined(separator: "\n")
    }

    public var errorDescription: String? { description }
}

extension UnderstudyScope {
    /// Adds `stub` to the scope's own message stubs; its id.
    @discardableResult
    public func stub(_ stub: MessageStub) async throws -> UUID {
        let answer = try await server.json("POST", "/__admin/message-mappings", scope: name, body: stub.json)
        guard let id = answer["id"]?.stringValue.flatMap(UUID.init(uuidString:)) else {
            throw UnderstudyError.invalidJSON(answer.serialized, reason: "the message stub's answer has no id")
        }
        return id
    }

    public func removeMessageStub(_ id: UUID) async throws {
        try await server.call("DELETE", "/__admin/message-mappings/\(id.uuidString.lowercased())", scope: name)
    }

    /// Sends `message` to every open channel of the scope opened by a request like `pattern`; how many got it.
    @discardableResult
    public func send(_ message: OutgoingMessage, toChannelsOpenedBy pattern: RequestPattern) async throws -> Int {
        let body: JSONValue = ["type": "websocket", "initiatingRequest": pattern.json, "message": message.sendBody]
        return try await server.json("POST", "/__admin/channels/send", scope: name, body: body)["channelsMessaged"]?.intValue ?? 0
    }

    /// The scope's messages, newest first.
    public func messages() async throws -> [ChannelMessage] {
        (try await server.json("GET", "/__admin/messages", scope: name)["messageServeEvents"]?.arrayValue ?? []).map(ChannelMessage.init)
    }

    /// The first message matching `body` (nil: any), waiting up to `timeout` for it; nil when none came.
    public func waitForMessage(_ body: StringMatch? = nil, timeout: Duration = .seconds(5)) async throws -> ChannelMessage? {
        var request: [String: JSONValue] = ["timeoutMillis": .int(Int((timeout / .milliseconds(1)).rounded()))]
        if let body { request["pattern"] = ["body": body.json] }
        let answer = try await server.json("POST", "/__admin/messages/wait", scope: name, body: .object(request))
        return answer == .null ? nil : ChannelMessage(answer)
    }

    /// Fails the test at this line (as `verify` does) unless the scope journaled `times` messages
    /// (in either direction) matching `body`, with a `MessageVerificationFailure`.
    public func verifyMessages(
        _ body: StringMatch, _ times: Times = .atLeast(1),
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column
    ) async throws {
        guard let failure = try await messageVerification(of: body, times) else { return }
        try report(failure, at: CallSite(fileID: fileID, filePath: filePath, line: line, column: column))
    }

    /// What `verifyMessages` would report: nil when the scope journaled `times` messages matching `body`.
    public func messageVerification(of body: StringMatch, _ times: Times = .atLeast(1)) async throws -> MessageVerificationFailure? {
        let answer = try await server.json("POST", "/__admin/messages/count", scope: name, body: ["body": body.json])
        let count = answer["count"]?.intValue ?? 0
        guard !times.accepts(count) else { return nil }
        let recent = count == 0 ? Array(try await messages().prefix(5)) : []
        return MessageVerificationFailure(body: body, expected: times, received: count, scope: name, recent: recent)
    }
}
