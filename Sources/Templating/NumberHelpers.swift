import Foundation

/// Arithmetic and number formatting, as WireMock's `math` and `randomDecimal` and Handlebars.java's
/// `numberFormat`, `isEven`, `isOdd` and `stripes`.
extension TemplateHelpers {
    static let numbers = TemplateHelpers(
        [
            "math": { call throws(HelperError) in
                guard let a = DecimalNumber(call.param(0)), let b = DecimalNumber(call.param(2)) else {
                    throw HelperError("math needs two numbers and an operator, e.g. {{math 1 '+' 2}}")
                }
                return try a.combined(with: b, call.param(1).text).value
            },
            "randomDecimal": { call throws(HelperError) in
                // WireMock's defaults: Java's Double.MIN_VALUE (the least positive double) and MAX_VALUE.
                let lower = call.hash["lower"]?.numberValue ?? .leastNonzeroMagnitude
                let upper = call.hash["upper"]?.numberValue ?? .greatestFiniteMagnitude
                guard lower.isFinite, upper.isFinite, lower <= upper else { throw HelperError("randomDecimal: lower must be a number at most upper") }
                // Spread without computing upper - lower, which overflows for the default bounds.
                let unit = Double.random(in: 0..<1)
                return .number(lower - unit * lower + unit * upper)
            },
            "numberFormat": { call throws(HelperError) in try formattedNumber(call) },
            // As blocks these print their text too, as in Handlebars.java.
            "isEven": { call throws(HelperError) in parity(call, even: true) },
            "isOdd": { call throws(HelperError) in parity(call, even: false) },
            "stripes": { call throws(HelperError) in
                // Without an index it prints nothing, as WireMock 2.35's does.
                guard let index = wholeNumber(call.param(0)) else { return .null }
                return index % 2 == 0 ? call.param(1) : call.param(2)
            },
        ], takingBlocks: ["isEven", "isOdd", "stripes"])

    private static let knownLocales = Set(Locale.availableIdentifiers)

    private static func parity(_ call: HelperCall, even: Bool) -> TemplateValue {
        guard let number = wholeNumber(call.param(0)), (number % 2 == 0) == even else { return .string("") }
        return call.params.count > 1 ? call.param(1) : .string(even ? "even" : "odd")
    }

    private static func wholeNumber(_ value: TemplateValue) -> Int? {
        guard let number = value.numberValue, number == number.rounded(), abs(number) < 0x1p63 else { return nil }
        return Int(number)
    }

    /// `{{numberFormat n ['integer' | 'percent' | 'currency' | a Java DecimalFormat pattern] ['de_DE']}}`
    /// with `groupingUsed`, `maximumFractionDigits`, `minimumFractionDigits`, `maximumIntegerDigits`,
    /// `minimumIntegerDigits` and `roundingMode`. Anything but a number prints nothing, as in WireMock.
    private static func formattedNumber(_ call: HelperCall) throws(HelperError) -> TemplateValue {
        let number: Double
        switch call.param(0) {
        case .number(let value): number = value
        case .string(let text):
            guard let value = Double(text.trimmingCharacters(in: .whitespaces)) else { return .string("") }
            number = value
        default: return .string("")
        }
        let formatter = NumberFormatter()
        // Java's default locale where WireMock runs without a configured one. Only known
        // identifiers: Foundation traps on some malformed ones.
        let locale = call.params.count > 2 ? call.param(2).text : "en"
        guard knownLocales.contains(locale) else { throw HelperError("numberFormat: unknown locale '\(locale)', e.g. 'de_DE'") }
        formatter.locale = Locale(identifier: locale)
        formatter.numberStyle = .decimal
        var isPattern = false
        switch call.params.count > 1 ? call.param(1).text : nil {
        case nil: break
        case "integer":
            formatter.maximumFractionDigits = 0
        case "percent": formatter.numberStyle = .percent
        case "currency": formatter.numberStyle = .currency
        case let pattern?:
            formatter.positiveFormat = pattern
            isPattern = true
        }
        // Foundation applies a pattern after the digit settings, so a pattern's digits win.
        for (key, setting) in [
            ("maximumFractionDigits", \NumberFormatter.maximumFractionDigits), ("minimumFractionDigits", \.minimumFractionDigits),
            ("maximumIntegerDigits", \.maximumIntegerDigits), ("minimumIntegerDigits", \.minimumIntegerDigits),
        ] {
            guard let value = call.hash[key], !isPattern else { continue }
            guard let digits = wholeNumber(value), (0...100).contains(digits) else { throw HelperError("numberFormat: \(key) must be 0…100") }
            formatter[keyPath: setting] = digits
        }
        if let grouping = call.hash["groupingUsed"] { formatter.usesGroupingSeparator = grouping.isTruthy }
        if let mode = call.hash["roundingMode"]?.text {
            let modes: [String: NumberFormatter.RoundingMode] = [
                "UP": .up, "DOWN": .down, "CEILING": .ceiling, "FLOOR": .floor, "HALF_UP": .halfUp, "HALF_DOWN": .halfDown, "HALF_EVEN": .halfEven,
            ]
            guard let rounding = modes[mode.uppercased()] else {
                throw HelperError("numberFormat: roundingMode '\(mode)' is not one of \(modes.keys.sorted().joined(separator: ", "))")
            }
            formatter.roundingMode = rounding
        }
        return .string(formatter.string(from: NSNumber(value: number)) ?? "")
    }
}
