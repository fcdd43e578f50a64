import HTTPServer
import JSON
import MockCore
import Templating

/// A stub answer that is a Server-Sent Events stream (the WHATWG HTML standard's
/// `text/event-stream`): `response.eventStream` lists the events, each sent after its own delay,
/// then the stream ends, starts over (`repeat`) or stays open (`keepOpen`), with a comment line
/// every `heartbeatMs` while it is open. A client that reconnects with `Last-Event-ID` gets the
/// events after that one.
///
/// ```json
/// "eventStream": {
///   "events": [
///     { "id": "1", "event": "price", "data": "{\"bid\": 101.5}", "retry": 2000 },
///     { "id": "2", "event": "price", "jsonData": { "bid": 101.7 }, "delayMs": 1000 }
///   ],
///   "repeat": false, "keepOpen": true, "heartbeatMs": 15000
/// }
/// ```
struct EventStream: Sendable {
    struct Event: Sendable {
        let id: String?
        /// The event's bytes on the wire, `id:`/`event:`/`retry:`/`data:` lines and the blank line.
        var wire: [UInt8]
        let delay: Duration
        /// Its data as given (`data`, or `jsonData` written out): a GraphQL subscription's `next`.
        var data: String? = nil
        /// In a templated stub (`response-template`), data with `{{…}}`: rendered per request into
        /// its `data:` lines after `head` (the lines before them).
        var dataTemplate: Template? = nil
        var head = ""
    }

    private(set) var events: [Event]
    let repeats: Bool
    let keepsOpen: Bool
    let heartbeat: Duration?

    static let known: Set<String> = ["events", "repeat", "keepOpen", "heartbeatMs"]
    static let knownInEvent: Set<String> = ["id", "event", "data", "jsonData", "retry", "comment", "delayMs"]

    /// `helpers`: the stub's template helpers when it is templated, to render each event's data.
    static func parse(_ json: JSONValue, field: String, helpers: TemplateHelpers? = nil) throws(StubError) -> EventStream {
        guard json.objectValue != nil else { throw StubError(field: field, message: "must be an object with events") }
        for (key, _) in json.objectValue ?? [] where !known.contains(key) {
            throw StubError(field: "\(field).\(key)", message: "not a field of an event stream (\(known.sorted().joined(separator: ", ")))")
        }
        guard let list = json["events"]?.arrayValue else { throw StubError(field: "\(field).events", message: "must be an array of events") }
        var events: [Event] = []
        for (index, item) in list.enumerated() { events.append(try event(item, field: "\(field).events[\(index)]", helpers: helpers)) }
        let repeats = json["repeat"]?.boolValue ?? false
        if repeats, events.allSatisfy({ $0.delay == .zero }) {
            throw StubError(field: "\(field).repeat", message: "a repeating stream needs a delayMs above 0 on some event (else it never rests)")
        }
        var heartbeat: Duration?
        if let value = json["heartbeatMs"] {
            guard let milliseconds = value.intValue, milliseconds >= 10 else {
                throw StubError(field: "\(field).heartbeatMs", message: "must be 10 milliseconds or more")
            }
            heartbeat = .milliseconds(milliseconds)
        }
        return EventStream(events: events, repeats: repeats, keepsOpen: json["keepOpen"]?.boolValue ?? false, heartbeat: heartbeat)
    }

    private static func event(_ json: JSONValue, field: String, helpers: TemplateHelpers?) throws(StubError) -> Event {
        guard json.objectValue != nil else { throw StubError(field: field, message: "an event must be an object") }
        for (key, _) in json.objectValue ?? [] where !knownInEvent.contains(key) {
            throw StubError(field: "\(field).\(key)", message: "not a field of an event (\(knownInEvent.sorted().joined(separator: ", ")))")
        }
        func line(_ name: String) throws(StubError) -> String? {
            guard let value = json[name] else { return nil }
            guard let text = value.stringValue ?? value.intValue.map(String.init) else {
                throw StubError(field: "\(field).\(name)", message: "must be a string")
            }
            // A line break would end the field early and start another: refused, not sent.
            guard !text.contains(where: { $0 == "\n" || $0 == "\r" }) else {
                throw StubError(field: "\(field).\(name)", message: "must be one line")
            }
            return text
        }
        var wire = ""
        if let comment = json["comment"]?.stringValue {
            for part in comment.split(separator: "\n", omittingEmptySubsequences: false) { wire += ": \(part)\n" }
        }
        let id = try line("id")
        if let id { wire += "id: \(id)\n" }
        if let name = try line("event") { wire += "event: \(name)\n" }
        if let retry = json["retry"] {
            guard let milliseconds = retry.intValue, milliseconds >= 0 else {
                throw StubError(field: "\(field).retry", message: "must be milliseconds")
            }
            wire += "retry: \(milliseconds)\n"
        }
        let data = json["data"]?.stringValue ?? json["jsonData"]?.serialized
        if json["data"] != nil && json["data"]?.stringValue == nil { throw StubError(field: "\(field).data", message: "must be a string") }
        var dataTemplate: Template?
        if let helpers, let data, data.contains("{{") {
            do {
                dataTemplate = try Template(data, helpers: helpers)
            } catch {
                throw StubError(field: "\(field).\(json["data"] != nil ? "data" : "jsonData")", message: "template \(error)")
            }
        }
        let head = wire
        if let data { wire += dataLines(data) }
        guard !wire.isEmpty else { throw StubError(field: field, message: "an event needs data, jsonData, an id, an event name, retry or a comment") }
        var delay = Duration.zero
        if let value = json["delayMs"] {
            guard let milliseconds = value.intValue, milliseconds >= 0 else {
                throw StubError(field: "\(field).delayMs", message: "must be milliseconds ≥ 0")
            }
            delay = .milliseconds(milliseconds)
        }
        return Event(id: id, wire: Array((wire + "\n").utf8), delay: delay, data: data, dataTemplate: dataTemplate, head: head)
    }

    /// Each line of the data its own `data:` line; the client joins them with line breaks.
    private static func dataLines(_ data: String) -> String {
        var lines = ""
        for part in data.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" || $0 == "\r" }) {
            lines += "data: \(part)\n"
        }
        return lines
    }

    /// Whether some event's data is a template (rendered per request).
    var isTemplated: Bool { events.contains { $0.dataTemplate != nil } }

    /// The stream with its templated events' data rendered in `context` (one request's model):
    /// a rendered line break starts another `data:` line, never another field.
    func rendered(in context: TemplateValue) -> EventStream {
        var copy = self
        copy.events = events.map { event in
            guard let template = event.dataTemplate else { return event }
            var rendered = event
            let data = template.render(context)
            rendered.data = data
            rendered.wire = Array((event.head + Self.dataLines(data) + "\n").utf8)
            return rendered
        }
        return copy
    }

    /// The index to start from for a client that last saw `lastEventID`: the event after it (the
    /// first when it is unknown, or the last and the stream repeats).
    func start(after lastEventID: String?) -> Int {
        guard let lastEventID, let seen = events.lastIndex(where: { $0.id == lastEventID }) else { return 0 }
        return seen + 1 < events.count ? seen + 1 : (repeats ? 0 : events.count)
    }

    /// Plays the stream on `stream`'s loop: each event after its delay, then the end, the start
    /// again, or heartbeats until the client leaves.
    func play(on stream: ResponseStream, from first: Int) {
        let loop = stream.loop
        let interval = heartbeat
        func beat() {
            guard let interval else { return }
            _ = loop.schedule(after: interval) {
                if stream.isOpen, stream.write(Array(":\n\n".utf8)) { beat() }
            }
        }
        func send(_ index: Int) {
            guard stream.isOpen else { return }
            guard index < events.count else {
                if repeats, !events.isEmpty { return send(0) }
                if !keepsOpen { stream.end() }
                return
            }
            let event = events[index]
            let go = {
                guard stream.write(event.wire) else { return }
                send(index + 1)
            }
            if event.delay > .zero { _ = loop.schedule(after: event.delay, go) } else { go() }
        }
        beat()
        send(first)
    }
}
