import Foundation
import HTTPServer
import JSON
import Templating
import WireFormat

/// A message stub, in WireMock 4's JSON (`MessageStubMapping`): a trigger (a message on a
/// WebSocket channel, matched by the channel's opening request and the message's body) and the
/// messages to send when it fires. WireMock's own acceptance tests are the reference
/// (docs/stubs.md, "Message stubs", says where Understudy differs).
struct MessageStubMapping: Sendable {
    let id: String
    let priority: Int
    let trigger: Trigger
    let actions: [SendAction]
    /// The mapping as given, its id filled in: what the admin API shows.
    let json: JSONValue
    /// Later mappings win among equal priorities (as WireMock's most recently added).
    var insertion = 0
    /// Loaded from `message-mappings/` (replaced when the files change), not added through the API.
    var fromFile = false

    static let defaultPriority = 5

    enum Trigger: Sendable {
        /// A message on a channel: `channel` (nil: any) is matched against the request that opened
        /// it, `body` (nil: any) against the message.
        case message(channel: RequestPattern?, body: ContentPattern?)
        /// An HTTP request served by the stub `stubId`.
        case httpStub(stubId: String)
        /// An HTTP request like this one, answered or not.
        case httpRequest(RequestPattern)
        /// Understudy's own (WireMock 4 has none): a channel opened by a request `channel` matches
        /// (nil: any), for what a server says before the client does (recordings need it).
        case channelOpen(channel: RequestPattern?)
    }

    struct SendAction: Sendable {
        let body: OutgoingMessage
        let target: Target
        /// The action's `transformerParameters` (`{}` when none): `parameters` in its template.
        var parameters: TemplateValue
        /// Understudy's own `delayMs`: sent this long after the trigger (a recording's spacing).
        var delay: Duration = .zero
    }

    enum Target: Sendable {
        /// The channel the triggering message came on.
        case originating
        /// Every open channel whose opening request matches.
        case requestInitiated(RequestPattern)
    }

    /// What a `send` action sends: text (a template, always rendered, as WireMock's), bytes, or a
    /// body file (`__files/`), sent as text unless its `format` is `binary`.
    enum OutgoingMessage: Sendable {
        case text(Template)
        case binary([UInt8])
        case file(name: String, binary: Bool)
    }

    /// A mapping from its JSON; `StubError` names the field (WireMock's 422 pointer) and why.
    static func parse(_ json: JSONValue, in directory: StubDirectory, file: String? = nil) throws(StubError) -> MessageStubMapping {
        do {
            return try parseMapping(json, in: directory)
        } catch {
            var located = error
            located.file = file
            throw located
        }
    }

    private static func parseMapping(_ json: JSONValue, in directory: StubDirectory) throws(StubError) -> MessageStubMapping {
        guard var members = json.objectValue else { throw StubError(field: "", message: "a message mapping must be a JSON object") }
        try known(json, ["id", "name", "priority", "trigger", "actions", "metadata", "uuid", "$schema", "insertionIndex"], at: "")
        let given = json["id"]?.stringValue?.lowercased()
        if let given, UUID(uuidString: given) == nil { throw StubError(field: "id", message: "'\(given)' is not a valid UUID") }
        let id = given ?? UUID().uuidString.lowercased()
        if given == nil { members.insert(("id", .string(id)), at: 0) }
        members.removeAll { $0.0 == "uuid" || $0.0 == "$schema" || $0.0 == "insertionIndex" }
        if let priority = json["priority"], priority.intValue == nil { throw StubError(field: "priority", message: "must be a whole number") }
        var actions: [SendAction] = []
        if let list = json["actions"] {
            guard let items = list.arrayValue else { throw StubError(field: "actions", message: "must be an array") }
            for (index, item) in items.enumerated() { actions.append(try action(item, at: "actions[\(index)]", in: directory)) }
        }
        return MessageStubMapping(
            id: id, priority: json["priority"]?.intValue ?? defaultPriority, trigger: try trigger(json["trigger"], in: directory),
            actions: actions, json: .object(members))
    }

    private static func trigger(_ json: JSONValue?, in directory: StubDirectory) throws(StubError) -> Trigger {
        guard let json else { return .message(channel: nil, body: nil) }
        guard json.objectValue != nil else { throw StubError(field: "trigger", message: "must be an object") }
        switch json["type"]?.stringValue ?? "message" {
        case "message":
            try known(json, ["type", "channel", "message"], at: "trigger")
            var channel = try channelPattern(json["channel"])
            var body: ContentPattern?
            if let message = json["message"] {
                try known(message, ["body", "channel"], at: "trigger.message")
                body = try message["body"].map { (pattern) throws(StubError) in try ContentPattern.parse(pattern, field: "trigger.message.body") }
                if channel == nil, let request = message["channel"] {
                    channel = try RequestPattern.parse(request, field: "trigger.message.channel")
                }
            }
            return .message(channel: channel, body: body)
        case "http-stub":
            try known(json, ["type", "stubId"], at: "trigger")
            guard let stubId = json["stubId"]?.stringValue?.lowercased() else { throw StubError(field: "stubId", message: "stubId is required") }
            return .httpStub(stubId: stubId)
        case "http-request":
            try known(json, ["type", "requestPattern"], at: "trigger")
            guard let pattern = json["requestPattern"] else { throw StubError(field: "requestPattern", message: "requestPattern is required") }
            return .httpRequest(try RequestPattern.parse(pattern, field: "trigger.requestPattern"))
        case "channel-open":
            try known(json, ["type", "channel"], at: "trigger")
            return .channelOpen(channel: try channelPattern(json["channel"]))
        case let other:
            throw StubError(field: "trigger.type", message: "'\(other)' is not a trigger type (message, http-stub, http-request, channel-open)")
        }
    }

    /// `{"type": "websocket", "initiatingRequestPattern": {…}}`: the pattern (nil: any channel).
    private static func channelPattern(_ json: JSONValue?) throws(StubError) -> RequestPattern? {
        guard let json else { return nil }
        try known(json, ["type", "initiatingRequestPattern"], at: "trigger.channel")
        switch json["type"]?.stringValue {
        case "websocket": break
        case "fixed": throw StubError(field: "trigger.channel.type", message: "fixed channels (channel providers) are not served by Understudy")
        case nil: throw StubError(field: "trigger.channel.type", message: "type is required")
        case let other?: throw StubError(field: "trigger.channel.type", message: "'\(other)' is not a channel type (websocket)")
        }
        return try json["initiatingRequestPattern"].map { (request) throws(StubError) in
            try RequestPattern.parse(request, field: "trigger.channel.initiatingRequestPattern")
        }
    }

    private static func action(_ json: JSONValue, at field: String, in directory: StubDirectory) throws(StubError) -> SendAction {
        guard json.objectValue != nil else { throw StubError(field: field, message: "an action must be an object") }
        try known(json, ["type", "message", "channelTarget", "transformers", "transformerParameters", "delayMs"], at: field)
        guard json["type"]?.stringValue == "send" else {
            throw StubError(field: "\(field).type", message: "'\(json["type"]?.stringValue ?? "")' is not an action type (send)")
        }
        guard let message = json["message"] else { throw StubError(field: "message", message: "message is required") }
        let body = try outgoing(message, at: "\(field).message", in: directory)
        var target = Target.originating
        if let channelTarget = json["channelTarget"] {
            switch channelTarget["type"]?.stringValue {
            case "originating": target = .originating
            case "request-initiated":
                try known(channelTarget, ["type", "requestPattern", "channelType"], at: "\(field).channelTarget")
                guard let pattern = channelTarget["requestPattern"] else {
                    throw StubError(field: "requestPattern", message: "requestPattern is required")
                }
                target = .requestInitiated(try RequestPattern.parse(pattern, field: "\(field).channelTarget.requestPattern"))
            case "fixed-channel":
                throw StubError(field: "\(field).channelTarget.type", message: "fixed channels (channel providers) are not served by Understudy")
            default:
                throw StubError(
                    field: "\(field).channelTarget.type", message: "must be originating, request-initiated or fixed-channel")
            }
        }
        var delay = Duration.zero
        if let value = json["delayMs"] {
            guard let milliseconds = value.intValue, (0...3_600_000).contains(milliseconds) else {
                throw StubError(field: "\(field).delayMs", message: "must be milliseconds, 0 to an hour")
            }
            delay = .milliseconds(milliseconds)
        }
        return SendAction(body: body, target: target, parameters: TemplateValue(json["transformerParameters"] ?? .object([])), delay: delay)
    }

    /// `message`: `{"body": "text"}` or `{"body": {"data" | "base64Data" | "filePath", "format"}}`.
    static func outgoing(_ message: JSONValue, at field: String, in directory: StubDirectory) throws(StubError) -> OutgoingMessage {
        guard message.objectValue != nil else { throw StubError(field: field, message: "must be an object with a body") }
        try known(message, ["body"], at: field)
        guard let body = message["body"] else { throw StubError(field: "\(field).body", message: "body is required") }
        func template(_ source: String) throws(StubError) -> OutgoingMessage {
            do {
                return .text(try Template(source, helpers: directory.helpers))
            } catch {
                throw StubError(field: "\(field).body", message: "template \(error)")
            }
        }
        if let text = body.stringValue { return try template(text) }
        guard body.objectValue != nil else { throw StubError(field: "\(field).body", message: "must be a string or an object") }
        let binary = (body["format"] ?? body["encoding"])?.stringValue?.lowercased() == "binary"
        if let data = body["base64Data"] {
            guard let text = data.stringValue, let bytes = Base64.decode(text.utf8) else {
                throw StubError(field: "\(field).body.base64Data", message: "is not base64")
            }
            return .binary(bytes)
        }
        if let name = body["filePath"]?.stringValue {
            _ = try directory.files.path(name, field: "\(field).body.filePath")
            return .file(name: name, binary: binary)
        }
        switch body["data"] {
        case .string(let text)?: return try template(text)
        case let data? where data.objectValue != nil: return try template(data.serialized)
        case nil: throw StubError(field: "\(field).body", message: "has none of data, base64Data, filePath")
        default: throw StubError(field: "\(field).body.data", message: "must be a string or a JSON object")
        }
    }

    /// As WireMock (Jackson): a key it does not know is refused, so a typo does not widen a stub.
    private static func known(_ json: JSONValue, _ keys: Set<String>, at field: String) throws(StubError) {
        guard let members = json.objectValue else { return }
        for (key, _) in members where !keys.contains(key) {
            throw StubError(field: field.isEmpty ? key : "\(field).\(key)", message: "Unrecognized field \"\(key)\"")
        }
    }
}
