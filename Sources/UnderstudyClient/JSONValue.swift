import Foundation

/// A JSON value as the admin API sends and takes it: what stubs are written in, and the raw form
/// of anything the typed builders do not cover.
public enum JSONValue: Sendable, Hashable, Codable, CustomStringConvertible, ExpressibleByStringLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByBooleanLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral, ExpressibleByNilLiteral
{
    case null
    case bool(Bool)
    case int(Int)
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int) { self = .int(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
    public init(nilLiteral: ()) { self = .null }

    /// Parses JSON text; a clear error when it is not JSON.
    public init(parsing data: Data) throws {
        do {
            self = try JSONDecoder().decode(JSONValue.self, from: data)
        } catch {
            throw UnderstudyError.invalidJSON(String(decoding: data.prefix(200), as: UTF8.self), reason: "\(error)")
        }
    }

    public init(parsing text: String) throws { try self.init(parsing: Data(text.utf8)) }

    public init(from decoder: Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int.self) {
            self = .int(value)
        } else if let value = try? container.decode(Double.self) {
            self = .double(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .int(let value): try container.encode(value)
        case .double(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }

    /// The JSON text, keys sorted (so that equal values read the same in messages and files).
    public var serialized: String { String(decoding: data, as: UTF8.self) }

    /// The value as compact JSON, as `print` and test failures show it.
    public var description: String { serialized }

    var data: Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Encoding a JSONValue cannot fail: it holds nothing but JSON (a non-finite double aside, written as null).
        return (try? encoder.encode(self)) ?? Data("null".utf8)
    }

    public subscript(key: String) -> JSONValue? {
        if case .object(let members) = self { return members[key] }
        return nil
    }

    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    public var intValue: Int? {
        switch self {
        case .int(let value): return value
        case .double(let value) where value == value.rounded() && abs(value) < 1e15: return Int(value)
        default: return nil
        }
    }

    public var arrayValue: [JSONValue]? {
        if case .array(let value) = self { return value }
        return nil
    }

    /// This value with `key` set (an object; anything else becomes one).
    func with(_ key: String, _ value: JSONValue?) -> JSONValue {
        guard let value else { return self }
        var members: [String: JSONValue] = [:]
        if case .object(let existing) = self { members = existing }
        members[key] = value
        return .object(members)
    }
}
