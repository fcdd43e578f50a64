import Foundation
import MockCore

/// The helpers WireMock's templates use most, under WireMock's names and argument orders.
/// Modules add their own (the stub engine adds `jsonPath` and `xPath`).
extension TemplateHelpers {
    public static let standard = TemplateHelpers([
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
            switch call.param(0) {
            case .array(let items): return .bool(items.contains { compare($0, needle) == .orderedSame })
            case let haystack: return .bool(haystack.text.contains(needle.text))
            }
        },
        "matches": { call throws(HelperError) in
            .bool(try regex(call.text(1, "a pattern")).wholeMatch(call.text(0, "a value")) != nil)
        },
        "regexExtract": { call throws(HelperError) in
            let text = try call.text(0, "a value")
            guard let match = try regex(call.text(1, "a pattern")).firstMatch(text) else { return .null }
            return .string(match)
        },

        // Numbers and lists.
        "math": { call throws(HelperError) in
            guard let a = call.param(0).numberValue, let b = call.param(2).numberValue else {
                throw HelperError("math needs two numbers and an operator, e.g. {{math 1 '+' 2}}")
            }
            switch call.param(1).text {
            case "+": return .number(a + b)
            case "-": return .number(a - b)
            case "*": return .number(a * b)
            case "/":
                guard b != 0 else { throw HelperError("math: division by zero") }
                return .number(a / b)
            case "%":
                guard b != 0 else { throw HelperError("math: division by zero") }
                return .number(a.truncatingRemainder(dividingBy: b))
            case let other: throw HelperError("math: unknown operator '\(other)' (+ - * / %)")
            }
        },
        "range": { call throws(HelperError) in
            guard let low = call.param(0).numberValue.map(Int.init), let high = call.param(1).numberValue.map(Int.init) else {
                throw HelperError("range needs two whole numbers")
            }
            guard high - low <= 100_000 else { throw HelperError("range: at most 100000 numbers") }
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
            if call.params.count == 1, case .array(let items) = call.params[0] { choices = items } else { choices = call.params }
            return choices.randomElement() ?? .null
        },
        "join": { call throws(HelperError) in
            // WireMock's order is `join separator list`; Handlebars.java's is `join list separator`.
            var (items, separator) = (call.param(1), call.param(0).text)
            if case .array = call.param(0) { (items, separator) = (call.param(0), call.param(1).text) }
            return .string(items.eachItems.map(\.value.text).joined(separator: separator))
        },
        "lookup": { call throws(HelperError) in call.param(0).member(call.param(1).text) ?? .null },

        // Text.
        "upper": { call throws(HelperError) in .string(call.param(0).text.uppercased()) },
        "lower": { call throws(HelperError) in .string(call.param(0).text.lowercased()) },
        "capitalize": { call throws(HelperError) in
            .string(call.param(0).text.split(separator: " ", omittingEmptySubsequences: false)
                .map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined(separator: " "))
        },
        "trim": { call throws(HelperError) in .string(call.param(0).text.trimmingCharacters(in: .whitespacesAndNewlines)) },
        "replace": { call throws(HelperError) in
            .string(call.param(0).text.replacingOccurrences(of: try call.text(1, "the text to replace"), with: call.param(2).text))
        },
        "substring": { call throws(HelperError) in
            let characters = Array(call.param(0).text)
            let start = max(0, min(characters.count, saturatingInt(call.param(1).numberValue ?? 0)))
            let end = max(start, min(characters.count, call.params.count > 2 ? saturatingInt(call.param(2).numberValue ?? 0) : characters.count))
            return .string(String(characters[start..<end]))
        },
        "defaultIfEmpty": { call throws(HelperError) in call.param(0).isTruthy ? call.param(0) : call.param(1) },
        "val": { call throws(HelperError) in
            if case .null = call.param(0) { return call.hash["or"] ?? call.hash["default"] ?? .null }
            return call.param(0)
        },
        "base64": { call throws(HelperError) in
            let text = call.param(0).text
            if call.hash["decode"]?.isTruthy == true {
                guard let data = Data(base64Encoded: text, options: .ignoreUnknownCharacters) else { throw HelperError("base64: not base64 text") }
                return .string(String(decoding: data, as: UTF8.self))
            }
            var encoded = Data(text.utf8).base64EncodedString()
            if call.hash["padding"].map({ !$0.isTruthy }) == true { encoded = encoded.replacingOccurrences(of: "=", with: "") }
            return .string(encoded)
        },
        "urlEncode": { call throws(HelperError) in
            let text = call.param(0).text
            if call.hash["decode"]?.isTruthy == true {
                return .string(text.replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? text)
            }
            // As Java's URLEncoder: form encoding, space as '+'.
            var allowed = CharacterSet.alphanumerics.intersection(CharacterSet(charactersIn: Unicode.Scalar(0)...Unicode.Scalar(127)))
            allowed.insert(charactersIn: "-_.* ")
            let encoded = text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
            return .string(encoded.replacingOccurrences(of: " ", with: "+"))
        },

        // JSON.
        "parseJson": { call throws(HelperError) in
            do {
                return TemplateValue(try JSONValue.parse(call.text(0, "JSON text")))
            } catch let error as JSONParseError {
                throw HelperError("parseJson: \(error.message) at line \(error.line), column \(error.column)")
            } catch {
                throw HelperError("parseJson needs JSON text")
            }
        },
        "toJson": { call throws(HelperError) in .string(call.param(0).json.serialized) },
        "formatJson": { call throws(HelperError) in
            var value = call.param(0)
            if case .string(let text) = value, let parsed = try? JSONValue.parse(text) { value = TemplateValue(parsed) }
            return .string(value.json.prettyPrinted())
        },

        // Dates.
        "now": { call throws(HelperError) in
            let date = try TemplateDates.offset(Date(), by: call.hash["offset"]?.text)
            return try TemplateDates.format(date, pattern: call.hash["format"]?.text, timeZone: call.hash["timezone"]?.text)
        },
        "parseDate": { call throws(HelperError) in
            .date(try TemplateDates.parse(call.text(0, "a date"), pattern: call.hash["format"]?.text))
        },
        "date": { call throws(HelperError) in
            let date: Date
            switch call.param(0) {
            case .date(let given): date = given
            case .null: throw HelperError("date needs a date, e.g. {{date (parseDate request.headers.Date) offset='1 days'}}")
            case let other: date = try TemplateDates.parse(other.text, pattern: nil)
            }
            return try TemplateDates.format(TemplateDates.offset(date, by: call.hash["offset"]?.text),
                                            pattern: call.hash["format"]?.text, timeZone: call.hash["timezone"]?.text)
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
            case "ALPHANUMERIC_AND_SYMBOLS": alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789!#$%&()*+,-./:;<=>?@[]^_{|}~"
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
    ])
}

/// Numbers compare as numbers (so `3` equals `'3'`, as templates mix them), the rest as text.
func compare(_ a: TemplateValue, _ b: TemplateValue) -> ComparisonResult {
    if case .null = a, case .null = b { return .orderedSame }
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
              range == NSRange(text.startIndex..., in: text) else { return nil }
        return text
    }

    func firstMatch(_ text: String) -> String? {
        guard case .matched(let match) = expression.firstMatch(in: text), let range = Range(match, in: text) else { return nil }
        return String(text[range])
    }
}

func regex(_ pattern: String) throws(HelperError) -> TemplateRegex {
    do {
        return TemplateRegex(expression: try NSRegularExpression(pattern: pattern))
    } catch {
        throw HelperError("'\(pattern)' is not a valid regular expression")
    }
}

/// A number from a template as an Int: saturating at Int's bounds, NaN as 0 (`Int(_:)` traps on
/// both, and the numbers come from clients' templates and request data).
private func saturatingInt(_ value: Double) -> Int {
    if value.isNaN { return 0 }
    if value >= 0x1p63 { return Int.max }
    if value <= -0x1p63 { return Int.min }
    return Int(value)
}
