// Module Templating: one Handlebars-compatible template engine for the whole project — the stub
// engine's response templates (WireMock's syntax and helpers) and the emulators' pages.

import Foundation
import JSON

/// A value a template reads or a helper returns.
///
/// Not `indirect`: lists and objects already hold their contents out of line, and boxing every
/// value cost an allocation to make one and two reference counts to read one (a short string,
/// a number or a flag now needs none).
public enum TemplateValue: Sendable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([TemplateValue])
    case object(TemplateObject)
    case date(Date)

    /// Handlebars' truthiness: null, false, "", 0 and empty lists are false.
    public var isTruthy: Bool {
        switch self {
        case .null: false
        case .bool(let value): value
        case .number(let value): value != 0
        case .string(let value): !value.isEmpty
        case .array(let items): !items.isEmpty
        case .object(let object): object.elements.map { !$0.isEmpty } ?? true
        case .date: true
        }
    }

    /// The Java class WireMock's Handlebars holds such a value in, for error texts that name it.
    var javaTypeName: String {
        switch self {
        case .null: "null"
        case .bool: "java.lang.Boolean"
        case .number(let value): value == value.rounded() && abs(value) <= Double(Int32.max) ? "java.lang.Integer" : "java.lang.Double"
        case .string: "java.lang.String"
        case .array: "java.util.ArrayList"
        case .object: "java.util.LinkedHashMap"
        case .date: "java.util.Date"
        }
    }

    /// The text `{{value}}` prints (before HTML escaping).
    public var text: String {
        switch self {
        case .null: ""
        case .bool(let value): value ? "true" : "false"
        case .number(let value): Self.format(value)
        case .string(let value): value
        case .array, .object: self.object?.printed ?? listingText
        case .date(let date): TemplateDates.iso8601(date)
        }
    }

    /// Lists and objects print as WireMock prints its Java ones: `[a, b]`, `{k=v, n=1}`.
    private var listingText: String {
        switch self {
        case .null: "null"
        case .array(let items): "[" + items.map(\.listingText).joined(separator: ", ") + "]"
        case .object(let object) where object.printed == nil:
            if let elements = object.elements {
                TemplateValue.array(elements).listingText
            } else {
                "{" + object.members.map { "\($0.key)=\($0.value.listingText)" }.joined(separator: ", ") + "}"
            }
        default: text
        }
    }

    /// The items of a list, or of a list-like object (repeated query values, a JSONPath result).
    public var listItems: [TemplateValue]? {
        switch self {
        case .array(let items): items
        case .object(let object): object.elements
        default: nil
        }
    }

    private var object: TemplateObject? {
        if case .object(let object) = self { object } else { nil }
    }

    /// Whole numbers print without a fraction, as Java prints integers.
    static func format(_ value: Double) -> String {
        if value == value.rounded(), abs(value) < 1e15 { return String(Int(value)) }
        return value.isFinite ? "\(value)" : "NaN"
    }

    /// A number, if the value is one or is text that reads as one.
    public var numberValue: Double? {
        switch self {
        case .number(let value): value
        case .string(let text): Double(text.trimmingCharacters(in: .whitespaces))
        case .bool(let value): value ? 1 : 0
        case .object(let object) where object.printed != nil: Double(object.printed!)
        default: nil
        }
    }

    /// The member `key` (an object's field, a list's index); nil when there is none.
    public func member(_ key: String) -> TemplateValue? {
        switch self {
        case .object(let object): object.member(key)
        case .array(let items): Self.element(of: items, key)
        default: nil
        }
    }

    /// `member(_:)` for a name hashed in advance (a template's paths).
    func member(_ key: TemplateKey) -> TemplateValue? {
        switch self {
        case .object(let object): object.member(key)
        case .array(let items): Self.element(of: items, key.name)
        default: nil
        }
    }

    /// `first`, `last`, `n` or `-n` (from the end) of a list.
    static func element(of items: [TemplateValue], _ key: String) -> TemplateValue? {
        switch key {
        case "first": return items.first
        case "last": return items.last
        default:
            guard var index = Int(key) else { return nil }
            if index < 0 { index += items.count }
            return items.indices.contains(index) ? items[index] : nil
        }
    }

    /// What `#each` walks: (key, value) pairs; keys are indexes for lists.
    var eachItems: [(key: String?, value: TemplateValue)] {
        switch self {
        case .array(let items): items.map { (nil, $0) }
        case .object(let object): object.elements.map { $0.map { (nil, $0) } } ?? object.members.map { ($0.key, $0.value) }
        default: []
        }
    }

    public init(_ json: JSONValue) {
        switch json {
        case .null: self = .null
        case .bool(let value): self = .bool(value)
        case .int(let value): self = .number(Double(value))
        case .double(let value): self = .number(value)
        case .string(let value): self = .string(value)
        case .array(let items): self = .array(items.map(TemplateValue.init))
        case .object(let members): self = .object(TemplateObject(members.map { ($0.0, TemplateValue($0.1)) }))
        }
    }

    /// The value as JSON (dates as ISO 8601 text).
    public var json: JSONValue {
        switch self {
        case .null: .null
        case .bool(let value): .bool(value)
        case .number(let value): value == value.rounded() && abs(value) < 1e15 ? .int(Int(value)) : .double(value)
        case .string(let value): .string(value)
        case .array(let items): .array(items.map(\.json))
        case .object(let object):
            if let elements = object.elements { .array(elements.map(\.json)) } else { .object(object.members.map { ($0.key, $0.value.json) }) }
        case .date: .string(text)
        }
    }
}

/// A template-visible object: named members in order, optionally looked up case-insensitively
/// (HTTP headers), optionally list-like (`elements`) while printing as one text — WireMock's
/// "list or single" for repeated query parameters, or a request path indexed by segment.
public final class TemplateObject: Sendable {
    public let members: [(key: String, value: TemplateValue)]
    public let caseInsensitive: Bool
    /// What printing the object gives; nil prints it as JSON.
    public let printed: String?
    /// Set for list-like objects: what `#each` walks and what `.[n]` indexes.
    public let elements: [TemplateValue]?

    /// The members' name hashes (`TemplateKey`), in order: a lookup scans these integers. None
    /// for an object of a few members, whose names are compared as they are.
    private let hashes: [UInt64?]
    /// Member positions by name, for objects so large that even a scan of integers costs more
    /// (large JSON bodies).
    private let positions: [String: Int]?

    public init(
        _ members: [(key: String, value: TemplateValue)], caseInsensitive: Bool = false,
        printed: String? = nil, elements: [TemplateValue]? = nil
    ) {
        self.members = members
        self.caseInsensitive = caseInsensitive
        self.printed = printed
        self.elements = elements
        let indexed = !caseInsensitive && members.count >= 64
        hashes = caseInsensitive || indexed || members.count <= Self.comparedByName ? [] : members.map { TemplateKey($0.key).hash }
        positions = indexed ? Dictionary(members.enumerated().map { ($0.element.key, $0.offset) }, uniquingKeysWith: { first, _ in first }) : nil
    }

    /// Up to this many members, hashing the names when the object is made costs more than
    /// comparing them on a lookup.
    static let comparedByName = 4

    /// A list that prints as its first element.
    public static func listOrSingle(_ values: [String]) -> TemplateObject {
        TemplateObject([], printed: values.first ?? "", elements: values.map(TemplateValue.string))
    }

    public func member(_ key: String) -> TemplateValue? {
        member(TemplateKey(key))
    }

    func member(_ key: TemplateKey) -> TemplateValue? {
        if let elements, members.isEmpty || Int(key.name) != nil || key.name == "first" || key.name == "last" {
            // WireMock's ListOrSingle counts `-n` from the next to last (`[-1]` of 1,2,3,4 is 3),
            // as both its 2.35 and its 3.13 tests (listElementOffsetFromEnd) hold.
            if let index = Int(key.name), index < 0 {
                return elements.indices.contains(elements.count - 1 + index) ? elements[elements.count - 1 + index] : nil
            }
            return TemplateValue.element(of: elements, key.name) ?? (members.isEmpty ? nil : memberNamed(key))
        }
        return memberNamed(key)
    }

    private func memberNamed(_ key: TemplateKey) -> TemplateValue? {
        if caseInsensitive {
            return members.first { $0.key.caseInsensitiveCompare(key.name) == .orderedSame }?.value
        }
        if let positions { return positions[key.name].map { members[$0].value } }
        guard let hash = key.hash, !hashes.isEmpty else { return members.first { $0.key == key.name }?.value }
        // An ASCII name equals only a member with the same hash, or one outside ASCII that Swift
        // finds equivalent.
        for index in hashes.indices where hashes[index] == hash || hashes[index] == nil {
            if members[index].key == key.name { return members[index].value }
        }
        return nil
    }
}
