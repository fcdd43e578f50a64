import Foundation

/// A number with a count of decimal places, so `math` computes as WireMock's BigDecimal does:
/// `10 / 4` is 3 (the dividend's places, rounded half up), `2 * 1.5` is `3.0`.
struct DecimalNumber {
    var number: Double
    var places: Int

    init?(_ value: TemplateValue) {
        let text: String
        switch value {
        case .number(let number): text = TemplateValue.format(number)
        case .string(let string): text = string.trimmingCharacters(in: .whitespaces)
        // A request's query or header value prints as its one value (`request.query.n` of `?n=4`).
        case .object(let object) where object.elements != nil: text = value.text.trimmingCharacters(in: .whitespaces)
        default: return nil
        }
        guard let number = Double(text), number.isFinite else { return nil }
        self.number = number
        let fraction = text.lowercased().contains("e") ? nil : text.firstIndex(of: ".").map { text[text.index(after: $0)...] }
        places = min(fraction?.count ?? 0, 20)
    }

    init(number: Double, places: Int) {
        self.number = number
        self.places = places
    }

    func combined(with other: DecimalNumber, _ operation: String) throws(HelperError) -> DecimalNumber {
        switch operation {
        case "+": return DecimalNumber(number: number + other.number, places: max(places, other.places))
        case "-": return DecimalNumber(number: number - other.number, places: max(places, other.places))
        case "*", "x": return DecimalNumber(number: number * other.number, places: min(places + other.places, 20))
        case "/":
            guard other.number != 0 else { throw HelperError("math: division by zero") }
            return DecimalNumber(number: number / other.number, places: places)
        case "%":
            guard other.number != 0 else { throw HelperError("math: division by zero") }
            return DecimalNumber(number: number.truncatingRemainder(dividingBy: other.number), places: max(places, other.places))
        default: throw HelperError("math: unknown operator '\(operation)' (+ - * x / %)")
        }
    }

    /// Rounded half up to its places; whole results are numbers, others text with every place.
    var value: TemplateValue {
        let scale = pow(10, Double(places))
        let rounded = (number * scale).rounded(.toNearestOrAwayFromZero) / scale
        return places == 0 || !rounded.isFinite ? .number(rounded) : .string(String(format: "%.\(places)f", rounded))
    }
}
