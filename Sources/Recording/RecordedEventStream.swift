import JSON

/// A recorded `text/event-stream` answer read back into the events an SSE stub replays
/// (`response.eventStream`, docs/stubs.md), as the WHATWG HTML standard's event-stream parser
/// reads one: lines end with CRLF, LF or CR; a blank line ends an event; `data` lines join with
/// line breaks; `id` (without NUL), `event` and `retry` (digits only) as given; comment lines
/// (`:`) go with the event after them; other fields are ignored, and an event the stream did not
/// finish with a blank line is left out, as a browser leaves it. The events are replayed at once,
/// in order: the recorder takes the answer whole, not its spacing.
enum RecordedEventStream {
    static func events(in text: String) -> [JSONValue] {
        var events: [JSONValue] = []
        var fields: [(String, JSONValue)] = []
        var data: [Substring] = []
        var comments: [Substring] = []
        func set(_ name: String, _ value: JSONValue) {
            fields.removeAll { $0.0 == name }
            fields.append((name, value))
        }
        for line in lines(of: text) {
            if line.isEmpty {
                if !data.isEmpty { set("data", .string(data.joined(separator: "\n"))) }
                // A heartbeat (an empty comment, `:`) is not worth replaying.
                comments.removeAll { $0.isEmpty }
                if !comments.isEmpty { fields.insert(("comment", .string(comments.joined(separator: "\n"))), at: 0) }
                if !fields.isEmpty { events.append(.object(fields)) }
                (fields, data, comments) = ([], [], [])
                continue
            }
            if line.first == ":" {
                comments.append(line.dropFirst().drop { $0 == " " })
                continue
            }
            let colon = line.firstIndex(of: ":")
            let name = colon.map { line[..<$0] } ?? line
            var value = colon.map { line[line.index(after: $0)...] } ?? ""
            if value.first == " " { value = value.dropFirst() }
            switch name {
            case "data": data.append(value)
            case "event": set("event", .string(String(value)))
            case "id" where !value.contains("\0"): set("id", .string(String(value)))
            case "retry" where !value.isEmpty && value.allSatisfy({ $0.isASCII && $0.isNumber }):
                if let milliseconds = Int(value) { set("retry", .int(milliseconds)) }
            default: break
            }
        }
        return events
    }

    /// The stream's lines, each without its CRLF, LF or CR; the last, unterminated one too.
    private static func lines(of text: String) -> [Substring] {
        var lines: [Substring] = []
        var start = text.startIndex
        var index = start
        while index < text.endIndex {
            // Swift reads CRLF as one Character.
            if text[index] == "\n" || text[index] == "\r" || text[index] == "\r\n" {
                lines.append(text[start..<index])
                start = text.index(after: index)
            }
            index = text.index(after: index)
        }
        if start < text.endIndex { lines.append(text[start...]) }
        return lines
    }
}
