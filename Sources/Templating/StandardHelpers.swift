import Foundation
import JSON

/// The helpers WireMock 2.35 registers, under WireMock's names and argument orders, by theme
/// (text, numbers and dates have files of their own). Modules add their own (the stub engine adds
/// `jsonPath`, `xPath`, `soapXPath` and those that read the server: `hostname`, `systemValue`, `log`).
extension TemplateHelpers {
    public static let standard = core.merging(text).merging(numbers).merging(dates).merging(wireMock3)

    /// Logic, lists, JSON and random values.
    static let core = TemplateHelpers(
        [
            // Comparison and logic; as blocks they choose between body and else.
            "eq": { call throws(HelperError) in .bool(compare(call.param(0), call.param(1)) == .orderedSame) },
            "neq": { call throws(HelperError) in .bool(compare(call.param(0), call.param(1)) != .orderedSame) },
            "gt": { call throws(HelperError) in .bool(compare(call.param(0), call.param(1)) == .orderedDescending) },
            "gte": { call throws(HelperError) in .bool(compare(call.param(0), call.param(1)) != .orderedAscending) },
            "lt": { call throws(HelperError) in .bool(compare(call.param(0), call.param(1)) == .orderedAscending) },
            "lte": { call throws(HelperError) in .bool(compare(call.param(0), call.param(1)) != .orderedDescending) },
            "and": { call throws(HelperError) in .bool(!call.params.isEmpty && call.params.allSatisfy(\.isTruthy)) },
            "or": { call throws(HelperError) in .bool(call.params.contains(where: \.isTruthy)) },
            "not": { call throws(HelperError) in .bool(!call.param(0).isTruthy) },
            "contains": { call throws(HelperError) in
                let needle = call.param(1)
                if let items = call.param(0).listItems { return .bool(items.contains { compare($0, needle) == .orderedSame }) }
                return .bool(call.param(0).text.contains(needle.text))
            },
            // Lists.
            "range": { call throws(HelperError) in
                guard let low = call.param(0).numberValue.map(saturatingInt), let high = call.param(1).numberValue.map(saturatingInt) else {
                    throw HelperError("The range helper requires both lower and upper bounds as integer parameters")
                }
                let span = high.subtractingReportingOverflow(low)
                guard !span.overflow, span.partialValue <= 100_000 else { throw HelperError("range: at most 100000 numbers") }
                return .array(low <= high ? (low...high).map { .number(Double($0)) } : [])
            },
            "array": { call throws(HelperError) in .array(call.params) },
            "size": { call throws(HelperError) in
                switch call.param(0) {
                case .array(let items): return .number(Double(items.count))
                case .object(let object): return .number(Double(object.elements?.count ?? object.members.count))
                case .null: return .number(0)
                case let value: return .number(Double(value.text.count))
                }
            },
            "pickRandom": { call throws(HelperError) in
                let choices: [TemplateValue]
                if call.params.count == 1, let items = call.params[0].listItems { choices = items } else { choices = call.params }
                return choices.randomElement() ?? .null
            },
            "join": { call throws(HelperError) in
                // WireMock's order is `join separator list`; Handlebars.java's is `join list separator`.
                var (items, separator) = (call.param(1), call.param(0).text)
                if call.param(0).listItems != nil { (items, separator) = (call.param(0), call.param(1).text) }
                return .string(items.eachItems.map(\.value.text).joined(separator: separator))
            },
            "lookup": { call throws(HelperError) in lookup(call.param(1).text, in: call.param(0)) },

            // `{{val x or='fallback'}}`; with `assign='name'` (WireMock 3) the value goes to a variable instead.
            "val": { call throws(HelperError) in
                var value = call.param(0)
                if case .null = value { value = call.hash["or"] ?? call.hash["default"] ?? .null }
                guard let name = call.hash["assign"] else { return value }
                call.assign(name.text, value)
                return .string("")
            },
            // JSON.
            // As WireMock's ParseJsonHelper: `{{parseJson text}}`, `{{parseJson text 'name'}}` (into a
            // variable, printing nothing), `{{#parseJson 'name'}}{…}{{/parseJson}}`; nothing or `{}`
            // is an empty object, and then no variable is set.
            "parseJson": { call throws(HelperError) in
                let text: String
                let variable: String?
                if let block = call.block {
                    text = block
                    variable = call.params.first.map(\.text)
                } else {
                    guard !call.params.isEmpty else { throw HelperError("Missing required JSON string parameter") }
                    if case .null = call.param(0) { return .object(TemplateObject([])) }
                    text = call.param(0).text
                    variable = call.params.count > 1 ? call.param(1).text : nil
                }
                let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
                if trimmed.isEmpty || trimmed.filter({ !$0.isWhitespace }) == "{}" { return .object(TemplateObject([])) }
                let value: TemplateValue
                do throws(JSONParseError) {
                    value = TemplateValue(try JSONValue.parse(trimmed))
                } catch {
                    throw HelperError("parseJson: \(error.message) at line \(error.line), column \(error.column)")
                }
                guard let variable else { return value }
                call.assign(variable, value)
                return .string("")
            },
            // Jackson's pretty printer, as WireMock's `Json.write` (`[ 1, 2, 3 ]`); nothing for null.
            "toJson": { call throws(HelperError) in
                if case .null = call.param(0) { return .string("") }
                return .string(call.param(0).json.prettyPrinted())
            },
            // `{{#formatJson format='compact'}}…{{/formatJson}}` or `{{formatJson text}}`: WireMock's
            // AbstractFormattingHelper, pretty by default, with its error texts.
            "formatJson": { call throws(HelperError) in
                let format = try FormattingCall(call, helper: "formatJson", what: "JSON")
                // WireMock answers a 500 for text that is not JSON when pretty; this says so in place (docs/stubs.md).
                guard let value = try? JSONValue.parse(format.text) else {
                    throw HelperError("There was an error parsing the json. Please make sure the json is valid")
                }
                return .string(format.pretty ? value.prettyPrinted() : value.serialized)
            },

            // Random values.
            "randomValue": { call throws(HelperError) in
                let type = call.hash["type"]?.text.uppercased() ?? "ALPHANUMERIC"
                if type == "UUID" { return .string(UUID().uuidString.lowercased()) }
                let length = saturatingInt(call.hash["length"]?.numberValue ?? 36)
                guard (0...100_000).contains(length) else { throw HelperError("randomValue: length must be 0…100000") }
                let alphabet: String
                switch type {
                case "ALPHANUMERIC": alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
                case "ALPHABETIC": alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                case "NUMERIC": alphabet = "0123456789"
                case "HEXADECIMAL": alphabet = "0123456789abcdef"
                case "ALPHANUMERIC_AND_SYMBOLS":
                    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789!#$%&()*+,-./:;<=>?@[]^_{|}~"
                default: throw HelperError("randomValue: unknown type '\(type)'")
                }
                let characters = Array(alphabet)
                let value = String((0..<length).map { _ in characters.randomElement()! })
                return .string(call.hash["uppercase"]?.isTruthy == true ? value.uppercased() : value)
            },
            "randomInt": { call throws(HelperError) in
                let lower = saturatingInt(call.hash["lower"]?.numberValue ?? Double(Int32.min))
                let upper = saturatingInt(call.hash["upper"]?.numberValue ?? Double(Int32.max))
                guard lower <= upper else { throw HelperError("randomInt: lower is above upper") }
                return .number(Double(Int.random(in: lower...upper)))
            },
        ], takingBlocks: ["parseJson", "formatJson"], assigning: ["val", "parseJson"])
}

/// Numbers compare as numbers (so `3` equals `'3'`, as templates mix them), the rest as text. A
/// list of several values (a query parameter sent twice) equals no single value, as in WireMock.
/// `lookup`'s member `key` of `value`; a key with dots that names no member is a path
/// (WireMock's test looks up `'ids[].0'` in the query).
private func lookup(_ key: String, in value: TemplateValue) -> TemplateValue {
    if let member = value.member(key) { return member }
    guard key.contains(".") else { return .null }
    var current = value
    for part in key.split(separator: ".", omittingEmptySubsequences: false) {
        guard let next = current.member(String(part)) else { return .null }
        current = next
    }
    return current
}

func compare(_ a: TemplateValue, _ b: TemplateValue) -> ComparisonResult {
    if case .null = a, case .null = b { return .orderedSame }
    if (a.listItems?.count ?? 1) != 1 || (b.listItems?.count ?? 1) != 1 {
        return a.listItems?.count == b.listItems?.count && a.text == b.text
            ? .orderedSame : (a.text < b.text ? .orderedAscending : .orderedDescending)
    }
    if let x = a.numberValue, let y = b.numberValue {
        return x == y ? .orderedSame : (x < y ? .orderedAscending : .orderedDescending)
    }
    let (x, y) = (a.text, b.text)
    return x == y ? .orderedSame : (x < y ? .orderedAscending : .orderedDescending)
}

/// A regular expression with the two questions templates ask of it.
struct TemplateRegex {
    let expression: NSRegularExpression

    /// A match that takes longer than the regex budget counts as none.
    func wholeMatch(_ text: String) -> String? {
        guard case .matched(let range) = expression.firstMatch(in: text, options: [.anchored]),
            range == NSRange(text.startIndex..., in: text)
        else { return nil }
        return text
    }

    /// The first match and its groups.
    func firstMatchGroups(_ text: String) -> [String]? {
        expression.firstMatchGroups(in: text)
    }
}

func regex(_ pattern: String) throws(HelperError) -> TemplateRegex {
    do {
        return TemplateRegex(expression: try NSRegularExpression(pattern: pattern))
    } catch {
        throw HelperError("Invalid regex string \(pattern)")
    }
}

/// A number from a template as an Int: saturating at Int's bounds, NaN as 0 (`Int(_:)` traps on
/// both, and the numbers come from clients' templates and request data).
func saturatingInt(_ value: Double) -> Int {
    if value.isNaN { return 0 }
    if value >= 0x1p63 { return Int.max }
    if value <= -0x1p63 { return Int.min }
    return Int(value)
}
