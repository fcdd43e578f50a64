import JSON

/// WireMock 4's number matchers (`equalToNumber`, `greaterThanNumber`, `greaterThanEqualNumber`,
/// `lessThanNumber`, `lessThanEqualNumber`): the value read as a number, as Java's
/// `Double.parseDouble` reads it, compared with the operand; a value that is not a number never
/// matches.
public struct NumberPattern: Sendable {
    public enum Comparison: String, Sendable, CaseIterable {
        case equalToNumber, greaterThanNumber, greaterThanEqualNumber, lessThanNumber, lessThanEqualNumber
    }

    let comparison: Comparison
    let operand: Double

    /// `operand`: a JSON number or a numeric string (`"0001.0000"`).
    static func parse(_ comparison: Comparison, _ operand: JSONValue, field: String) throws(StubError) -> NumberPattern {
        guard let number = operand.doubleValue ?? operand.stringValue.flatMap(javaDouble) else {
            throw StubError(field: "\(field).\(comparison.rawValue)", message: "\(comparison.rawValue) has to be a numeric value")
        }
        return NumberPattern(comparison: comparison, operand: number)
    }

    func matches(_ value: String) -> Bool {
        guard let number = Self.javaDouble(value) else { return false }
        switch comparison {
        case .equalToNumber: return number == operand
        case .greaterThanNumber: return number > operand
        case .greaterThanEqualNumber: return number >= operand
        case .lessThanNumber: return number < operand
        case .lessThanEqualNumber: return number <= operand
        }
    }

    var expectation: String {
        let operandText = operand == operand.rounded() && abs(operand) < 1e15 ? String(Int(operand)) : String(operand)
        return switch comparison {
        case .equalToNumber: "the number \(operandText)"
        case .greaterThanNumber: "a number greater than \(operandText)"
        case .greaterThanEqualNumber: "a number at least \(operandText)"
        case .lessThanNumber: "a number less than \(operandText)"
        case .lessThanEqualNumber: "a number at most \(operandText)"
        }
    }

    /// `Double.parseDouble`'s reading: surrounding whitespace and a `d`/`f` suffix allowed,
    /// `NaN` and `Infinity` as Java spells them, decimal and hexadecimal forms.
    static func javaDouble(_ text: String) -> Double? {
        var body = Substring(text)
        while let first = body.unicodeScalars.first, first.value <= 0x20 { body = body.dropFirst() }
        while let last = body.unicodeScalars.last, last.value <= 0x20 { body = body.dropLast() }
        switch body {
        case "NaN", "+NaN", "-NaN": return .nan
        case "Infinity", "+Infinity": return .infinity
        case "-Infinity": return -.infinity
        default: break
        }
        if let last = body.last, "dDfF".contains(last), !body.lowercased().hasPrefix("0x") || body.lowercased().contains("p") {
            body = body.dropLast()
        }
        // Swift reads forms Java does not ("nan", "inf"): only digits, signs, points, exponents and hex.
        guard !body.isEmpty, body.allSatisfy({ $0.isHexDigit || "+-.xXpP".contains($0) }) else { return nil }
        return Double(body)
    }
}
