// The JSON module: the value every other module reads and writes, and its parser (strict, or
// lenient for WireMock mapping files). It knows nothing of the server, so the template engine
// can use it without one.

import WireFormat

/// A JSON value whose objects keep their keys in the order given, so responses come out in the
/// same field order as the services they imitate.
public indirect enum JSONValue: Sendable, Equatable, ExpressibleByStringLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByBooleanLiteral, ExpressibleByArrayLiteral
{
    case null
    case bool(Bool)
    case int(Int)
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object([(String, JSONValue)])

    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int) { self = .int(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }

    public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): true
        case (.bool(let a), .bool(let b)): a == b
        case (.int(let a), .int(let b)): a == b
        case (.double(let a), .double(let b)): a == b
        case (.string(let a), .string(let b)): a == b
        case (.array(let a), .array(let b)): a == b
        case (.object(let a), .object(let b)): a.count == b.count && zip(a, b).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
        default: false
        }
    }

    /// Compact serialisation (no spaces), as most APIs send it.
    public var serialized: String {
        var out = ""
        write(to: &out)
        return out
    }

    private func write(to out: inout String) {
        switch self {
        case .null: out += "null"
        case .bool(let value): out += value ? "true" : "false"
        case .int(let value): out += String(value)
        case .double(let value): out += value.isFinite ? JSONValue.shortest(value) : "null"
        case .string(let value): JSONValue.writeString(value, to: &out)
        case .array(let items):
            out += "["
            for (index, item) in items.enumerated() {
                if index > 0 { out += "," }
                item.write(to: &out)
            }
            out += "]"
        case .object(let members):
            out += "{"
            for (index, (key, value)) in members.enumerated() {
                if index > 0 { out += "," }
                JSONValue.writeString(key, to: &out)
                out += ":"
                value.write(to: &out)
            }
            out += "}"
        }
    }

    /// Jackson's default pretty printing (what WireMock's `formatJson` writes): objects one member
    /// per line, indented by `indent`, `" : "` between key and value; arrays on one line.
    public func prettyPrinted(indent: String = "  ", arraysOnOneLine: Bool = true) -> String {
        var out = ""
        writePretty(to: &out, level: 0, indent: indent, arraysOnOneLine: arraysOnOneLine)
        return out
    }

    private func writePretty(to out: inout String, level: Int, indent: String, arraysOnOneLine: Bool) {
        let inner = String(repeating: indent, count: level + 1)
        let outer = String(repeating: indent, count: level)
        switch self {
        case .array(let items) where items.isEmpty: out += "[ ]"
        case .object(let members) where members.isEmpty: out += "{ }"
        case .array(let items) where arraysOnOneLine:
            out += "[ "
            for (index, item) in items.enumerated() {
                if index > 0 { out += ", " }
                item.writePretty(to: &out, level: level, indent: indent, arraysOnOneLine: arraysOnOneLine)
            }
            out += " ]"
        case .array(let items):
            out += "[\n"
            for (index, item) in items.enumerated() {
                out += inner
                item.writePretty(to: &out, level: level + 1, indent: indent, arraysOnOneLine: arraysOnOneLine)
                out += index < items.count - 1 ? ",\n" : "\n"
            }
            out += outer + "]"
        case .object(let members):
            out += "{\n"
            for (index, (key, value)) in members.enumerated() {
                out += inner
                JSONValue.writeString(key, to: &out)
                out += " : "
                value.writePretty(to: &out, level: level + 1, indent: indent, arraysOnOneLine: arraysOnOneLine)
                out += index < members.count - 1 ? ",\n" : "\n"
            }
            out += outer + "}"
        default:
            write(to: &out)
        }
    }

    /// Shortest text that reads back as the same double; integral values without ".0".
    static func shortest(_ value: Double) -> String {
        if value == value.rounded(), abs(value) < 1e15 { return String(Int(value)) }
        return "\(value)"
    }

    /// A JSON string: quoted, with RFC 8259's escapes.
    static func writeString(_ value: String, to out: inout String) {
        out += "\""
        TextEscaper.json.append(value, to: &out)
        out += "\""
    }
}
