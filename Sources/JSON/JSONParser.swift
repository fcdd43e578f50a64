import WorkLimits

/// Where and why a JSON text could not be parsed; lines and columns count from 1.
public struct JSONParseError: Error, Equatable, CustomStringConvertible {
    public let line: Int
    public let column: Int
    public let message: String

    public var description: String { "line \(line), column \(column): \(message)" }
}

extension JSONValue {
    /// Parses RFC 8259 JSON, keeping object keys in document order (duplicate keys: the last wins,
    /// as most parsers do). Errors say where, by line and column.
    public static func parse(_ text: String) throws(JSONParseError) -> JSONValue {
        var parser = JSONParser(bytes: Array(text.utf8))
        return try parser.parseDocument()
    }

    public static func parse(_ bytes: [UInt8]) throws(JSONParseError) -> JSONValue {
        var parser = JSONParser(bytes: bytes)
        return try parser.parseDocument()
    }

    /// Parses JSON as WireMock reads its mappings (Jackson with comments and single quotes
    /// allowed): `//` and `/* */` comments, `'single-quoted'` strings and keys, and `\'` in
    /// strings. Nothing else: no trailing commas, unquoted keys, NaN or leading zeros (WireMock
    /// refuses those too). For stub mapping files and mapping bodies only; every other reader of
    /// JSON stays strict.
    public static func parseLenient(_ bytes: [UInt8]) throws(JSONParseError) -> JSONValue {
        var parser = JSONParser(bytes: bytes, lenient: true)
        return try parser.parseDocument()
    }
}

private struct JSONParser {
    let bytes: [UInt8]
    /// Comments and single quotes allowed (see `parseLenient`).
    let lenient: Bool
    var index = 0
    var depth = 0

    init(bytes: [UInt8], lenient: Bool = false) {
        // A UTF-8 byte order mark is allowed before the text.
        self.bytes = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? Array(bytes.dropFirst(3)) : bytes
        self.lenient = lenient
    }

    mutating func parseDocument() throws(JSONParseError) -> JSONValue {
        // Reading is a request's work too: a body read by many matchers, or a template's many
        // helpers, adds up; a step for each KiB, and none left stops the reading before it starts.
        guard RequestBudget.spend(1 + bytes.count >> 10, in: "reading JSON") else {
            throw JSONParseError(line: 1, column: 1, message: "not read: the request's work budget (\(RequestBudget.limitDescription)) ran out")
        }
        try skipWhitespace()
        let value = try parseValue()
        try skipWhitespace()
        guard index == bytes.count else { throw error("unexpected text after the JSON value") }
        return value
    }

    func error(_ message: String) -> JSONParseError {
        var line = 1
        var column = 1
        for byte in bytes[..<min(index, bytes.count)] {
            if byte == UInt8(ascii: "\n") {
                line += 1
                column = 1
            } else if byte & 0xC0 != 0x80 {
                column += 1
            }
        }
        return JSONParseError(line: line, column: column, message: message)
    }

    mutating func skipWhitespace() throws(JSONParseError) {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            case UInt8(ascii: "/") where lenient: try skipComment()
            default: return
            }
        }
    }

    /// `// to the end of the line` or `/* to the closing mark */`.
    mutating func skipComment() throws(JSONParseError) {
        let next = index + 1 < bytes.count ? bytes[index + 1] : 0
        if next == UInt8(ascii: "/") {
            while index < bytes.count, bytes[index] != 0x0A { index += 1 }
        } else if next == UInt8(ascii: "*") {
            let start = index
            index += 2
            while index + 1 < bytes.count, !(bytes[index] == UInt8(ascii: "*") && bytes[index + 1] == UInt8(ascii: "/")) { index += 1 }
            guard index + 1 < bytes.count else {
                index = start
                throw error("unterminated /* comment")
            }
            index += 2
        } else {
            throw error("unexpected character '/' (a comment starts with // or /*)")
        }
    }

    /// The quote a string may start with here.
    func isQuote(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "\"") || (lenient && byte == UInt8(ascii: "'"))
    }

    mutating func parseValue() throws(JSONParseError) -> JSONValue {
        guard index < bytes.count else { throw error("unexpected end of input, expected a value") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case let quote where isQuote(quote): return .string(try parseString())
        case UInt8(ascii: "t"): return try parseLiteral("true", .bool(true))
        case UInt8(ascii: "f"): return try parseLiteral("false", .bool(false))
        case UInt8(ascii: "n"): return try parseLiteral("null", .null)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        default: throw error("unexpected character '\(String(decoding: [bytes[index]], as: UTF8.self))'")
        }
    }

    mutating func parseLiteral(_ word: String, _ value: JSONValue) throws(JSONParseError) -> JSONValue {
        let expected = Array(word.utf8)
        guard bytes[index...].starts(with: expected) else { throw error("expected '\(word)'") }
        index += expected.count
        return value
    }

    mutating func nest() throws(JSONParseError) {
        depth += 1
        guard depth <= 512 else { throw error("nested deeper than 512 levels") }
    }

    /// Up to this many members, a duplicate key is looked for in order (cheaper than hashing).
    static let keysSearchedInOrder = 16

    mutating func parseObject() throws(JSONParseError) -> JSONValue {
        try nest()
        defer { depth -= 1 }
        index += 1
        var members: [(String, JSONValue)] = []
        // Where each key stands, once the object is past a few members: a duplicate is then found by
        // hashing, so that reading any object is linear in its size.
        var positions: [String: Int] = [:]
        try skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
            index += 1
            return .object(members)
        }
        while true {
            try skipWhitespace()
            guard index < bytes.count, isQuote(bytes[index]) else { throw error("expected a \"key\"") }
            let key = try parseString()
            try skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw error("expected ':' after key \"\(key)\"") }
            index += 1
            try skipWhitespace()
            let value = try parseValue()
            if members.count < Self.keysSearchedInOrder {
                if let existing = members.firstIndex(where: { $0.0 == key }) {
                    members[existing].1 = value
                } else {
                    members.append((key, value))
                }
            } else {
                if positions.isEmpty {
                    for (position, member) in members.enumerated() { positions[member.0] = position }
                }
                if let existing = positions[key] {
                    members[existing].1 = value
                } else {
                    positions[key] = members.count
                    members.append((key, value))
                }
            }
            try skipWhitespace()
            guard index < bytes.count else { throw error("unexpected end of input in an object") }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
                continue
            }
            guard bytes[index] == UInt8(ascii: "}") else { throw error("expected ',' or '}' in an object") }
            index += 1
            return .object(members)
        }
    }

    mutating func parseArray() throws(JSONParseError) -> JSONValue {
        try nest()
        defer { depth -= 1 }
        index += 1
        var items: [JSONValue] = []
        try skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
            index += 1
            return .array(items)
        }
        while true {
            try skipWhitespace()
            items.append(try parseValue())
            try skipWhitespace()
            guard index < bytes.count else { throw error("unexpected end of input in an array") }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
                continue
            }
            guard bytes[index] == UInt8(ascii: "]") else { throw error("expected ',' or ']' in an array") }
            index += 1
            return .array(items)
        }
    }

    mutating func parseString() throws(JSONParseError) -> String {
        let quote = bytes[index]
        index += 1
        var out: [UInt8] = []
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case quote:
                index += 1
                return String(decoding: out, as: UTF8.self)
            case UInt8(ascii: "\\"):
                index += 1
                guard index < bytes.count else { break }
                let escape = bytes[index]
                index += 1
                switch escape {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(escape)
                case UInt8(ascii: "'") where lenient: out.append(escape)
                case UInt8(ascii: "b"): out.append(0x08)
                case UInt8(ascii: "f"): out.append(0x0C)
                case UInt8(ascii: "n"): out.append(0x0A)
                case UInt8(ascii: "r"): out.append(0x0D)
                case UInt8(ascii: "t"): out.append(0x09)
                case UInt8(ascii: "u"):
                    var scalar = try parseHex4()
                    if (0xD800..<0xDC00).contains(scalar), bytes[index...].starts(with: [UInt8(ascii: "\\"), UInt8(ascii: "u")]) {
                        index += 2
                        let low = try parseHex4()
                        guard (0xDC00..<0xE000).contains(low) else { throw error("invalid surrogate pair") }
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    }
                    out += Array(String(Unicode.Scalar(scalar).map(Character.init) ?? "\u{FFFD}").utf8)
                default:
                    index -= 1
                    throw error("invalid escape '\\\(String(decoding: [escape], as: UTF8.self))'")
                }
            case 0x00..<0x20:
                throw error("control character in a string (escape it)")
            default:
                out.append(byte)
                index += 1
            }
        }
        throw error("unterminated string")
    }

    mutating func parseHex4() throws(JSONParseError) -> UInt32 {
        guard index + 4 <= bytes.count, let value = UInt32(String(decoding: bytes[index..<index + 4], as: UTF8.self), radix: 16) else {
            throw error("expected four hex digits after \\u")
        }
        index += 4
        return value
    }

    mutating func parseNumber() throws(JSONParseError) -> JSONValue {
        let start = index
        let numberBytes = Set("0123456789+-.eE".utf8)
        while index < bytes.count, numberBytes.contains(bytes[index]) { index += 1 }
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        if !text.contains(where: { ".eE".contains($0) }), let value = Int(text) { return .int(value) }
        guard let value = Double(text), text.last?.isNumber == true else {
            index = start
            throw error("invalid number '\(text)'")
        }
        return .double(value)
    }
}

extension JSONValue {
    /// The member `key` of an object, or nil.
    public subscript(key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members.last { $0.0 == key }?.1
    }

    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    public var intValue: Int? {
        switch self {
        case .int(let value): value
        case .double(let value) where value == value.rounded(): Int(exactly: value)
        default: nil
        }
    }

    public var doubleValue: Double? {
        switch self {
        case .int(let value): Double(value)
        case .double(let value): value
        default: nil
        }
    }

    public var boolValue: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    public var arrayValue: [JSONValue]? {
        if case .array(let items) = self { return items }
        return nil
    }

    public var objectValue: [(String, JSONValue)]? {
        if case .object(let members) = self { return members }
        return nil
    }
}
