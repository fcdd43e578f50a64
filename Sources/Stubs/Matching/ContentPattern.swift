import Foundation
import JSON
import MockCore
import Templating
import WorkLimits

/// One of WireMock's content patterns (`equalTo`, `contains`, `matches`, `equalToJson`, …): a
/// test on one string value (a header, a query parameter, a body), nil when the value is absent.
public indirect enum ContentPattern: Sendable {
    case equalTo(String, caseInsensitive: Bool)
    case contains(String)
    case doesNotContain(String)
    case matches(Regex)
    case doesNotMatch(Regex)
    case absent
    case binaryEqualTo([UInt8])
    case equalToJson(JSONValue, ignoreArrayOrder: Bool, ignoreExtraElements: Bool)
    case matchesJsonPath(JSONPath, nested: ContentPattern?)
    case equalToXml(String, EqualToXmlOptions)
    case matchesXPath(String, namespaces: [String: String], nested: ContentPattern?)
    case dateTime(DateTimePattern)
    case number(NumberPattern)
    case matchesJsonSchema(JSONSchema)
    /// A `matchesJsonSchema` whose schema is JSON but not a schema this server (or WireMock's
    /// validator) reads: the stub loads, as in WireMock, and nothing matches it.
    case invalidJsonSchema(reason: String)
    case not(ContentPattern)
    case and([ContentPattern])
    case or([ContentPattern])

    /// A compiled regular expression, matched against the whole value as WireMock does.
    public struct Regex: Sendable {
        public let source: String
        let expression: NSRegularExpression

        init(_ source: String) throws {
            self.source = source
            expression = try NSRegularExpression(pattern: "^(?:" + source + ")$", options: [.dotMatchesLineSeparators])
        }

        /// nil when the match was given up (too slow to say): neither `matches` nor `doesNotMatch`
        /// holds. `place` names the matcher, should the request's budget run out in it.
        func matches(_ text: String, in place: @autoclosure () -> String = "matches") -> Bool? {
            switch expression.firstMatch(in: text, for: place()) {
            case .matched: true
            case .noMatch: false
            case .gaveUp: nil
            }
        }
    }

    /// Whether `value` (nil: absent) satisfies the pattern.
    public func matches(_ value: String?) -> Bool {
        switch self {
        case .absent: return value == nil
        // A pattern the request's budget stopped says no; its negation must not then say yes.
        case .not(let inner): return !inner.matches(value) && !RequestBudget.isExhausted
        case .and(let all): return all.allSatisfy { $0.matches(value) }
        case .or(let any): return any.contains { $0.matches(value) }
        case .doesNotContain(let part): return value.map { !$0.contains(part) } ?? true
        case .doesNotMatch(let regex): return value.map { regex.matches($0) == false } ?? true
        default: break
        }
        guard let value else { return false }
        switch self {
        case .equalTo(let expected, let caseInsensitive):
            return caseInsensitive ? value.caseInsensitiveCompare(expected) == .orderedSame : value == expected
        case .contains(let part): return value.contains(part)
        case .matches(let regex): return regex.matches(value) == true
        case .binaryEqualTo(let bytes): return Array(value.utf8) == bytes
        case .equalToJson(let expected, let ignoreOrder, let ignoreExtra):
            // Parsing is linear in the body; the comparison draws on the request's budget.
            guard let actual = try? JSONValue.parse(value) else { return false }
            return JSONComparison.equal(expected, actual, ignoreArrayOrder: ignoreOrder, ignoreExtraElements: ignoreExtra)
        case .matchesJsonPath(let path, let nested):
            guard let document = try? JSONValue.parse(value) else { return false }
            let found = path.evaluate(document)
            guard let nested else { return !found.isEmpty }
            return found.contains { nested.matches($0.textForMatching) }
        case .equalToXml(let expected, let options):
            return XMLComparison.equal(expected, value, options)
        case .dateTime(let pattern):
            return pattern.matches(value)
        case .number(let pattern):
            return pattern.matches(value)
        case .matchesJsonSchema(let schema):
            // As WireMock's MatchesJsonSchemaPattern: a value that is not JSON is read as a JSON
            // string, and a number, boolean or null that fails is tried as the string of its text.
            guard let document = try? JSONValue.parse(value) else { return schema.validates(.string(value)) }
            if schema.validates(document) { return true }
            switch document {
            case .int, .double, .bool, .null: return schema.validates(.string(value))
            default: return false
            }
        case .invalidJsonSchema:
            return false
        case .matchesXPath(let expression, let namespaces, let nested):
            guard let found = XMLComparison.evaluate(xPath: expression, namespaces: namespaces, in: value) else { return false }
            guard let nested else { return !found.isEmpty }
            return found.contains { nested.matches($0) }
        default:
            return false
        }
    }

    /// What the pattern asks for, for near-miss reports: "equal to '10001'".
    public var expectation: String {
        switch self {
        case .equalTo(let text, let caseInsensitive): "equal to '\(text)'" + (caseInsensitive ? " (any case)" : "")
        case .contains(let text): "containing '\(text)'"
        case .doesNotContain(let text): "not containing '\(text)'"
        case .matches(let regex): "matching '\(regex.source)'"
        case .doesNotMatch(let regex): "not matching '\(regex.source)'"
        case .absent: "absent"
        case .binaryEqualTo(let bytes): "equal to \(bytes.count) given bytes"
        case .equalToJson: "equal to the given JSON"
        case .matchesJsonPath(let path, _): "matching JSONPath '\(path.source)'"
        case .equalToXml: "equal to the given XML"
        case .matchesXPath(let expression, _, _): "matching XPath '\(expression)'"
        case .dateTime(let pattern): pattern.expectation
        case .number(let pattern): pattern.expectation
        case .matchesJsonSchema(let schema): "valid against the given JSON schema (\(schema.draft.rawValue))"
        case .invalidJsonSchema(let reason): "valid against a JSON schema that is not one (\(reason)): nothing is"
        case .not(let inner): "not " + inner.expectation
        case .and(let all): all.map(\.expectation).joined(separator: " and ")
        case .or(let any): any.map(\.expectation).joined(separator: " or ")
        }
    }

    /// Whether the raw body bytes satisfy the pattern (binary patterns compare bytes, others text).
    func matches(body: [UInt8]) -> Bool {
        matches(body: body, text: String(decoding: body, as: UTF8.self))
    }

    /// The same, given the body's text as well (a message's, already decoded); `body` is read
    /// only by binary patterns.
    func matches(body: @autoclosure () -> [UInt8], text: String) -> Bool {
        if case .binaryEqualTo(let expected) = self { return body() == expected }
        return matches(text)
    }
}

extension JSONValue {
    /// Scalars as their text, containers as JSON: what nested patterns test. A whole double
    /// reads as Java writes it (`9.0`): what WireMock's nested patterns see for `sum()`.
    var textForMatching: String {
        switch self {
        case .string(let text): text
        case .null: "null"
        case .double(let number) where number == number.rounded() && abs(number) < 1e7: "\(Int(number)).0"
        default: serialized
        }
    }
}
