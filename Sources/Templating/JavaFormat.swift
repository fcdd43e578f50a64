import Foundation

/// Java's `String.format`, for the `stringFormat` helper: `%[index$][flags][width][.precision]`
/// with the conversions `s S d x X o f e E g b c n %`. The `,` and `(` flags and dates are not
/// supported and say so.
enum JavaFormat {
    static func format(_ pattern: String, _ arguments: [TemplateValue]) throws(HelperError) -> String {
        var out = ""
        var next = 0
        var characters = pattern[...]
        while let percent = characters.firstIndex(of: "%") {
            out += characters[..<percent]
            characters = characters[characters.index(after: percent)...]
            var spec = Spec()
            guard let conversion = spec.read(&characters) else { throw HelperError("stringFormat: '\(pattern)' ends inside a format specifier") }
            switch conversion {
            case "%":
                out += spec.padded("%")
                continue
            case "n":
                out += "\n"
                continue
            default: break
            }
            let index = spec.index.map { $0 - 1 } ?? next
            if spec.index == nil { next += 1 }
            guard arguments.indices.contains(index) else { throw HelperError("stringFormat: no argument for %\(conversion)") }
            out += try spec.render(conversion, arguments[index])
        }
        return out + characters
    }

    private struct Spec {
        var index: Int?
        var flags = ""
        var width: Int?
        var precision: Int?

        /// Reads the specifier after `%`; returns its conversion character.
        mutating func read(_ text: inout Substring) -> Character? {
            var digits = text.prefix { $0.isASCII && $0.isNumber }
            if !digits.isEmpty, text.dropFirst(digits.count).first == "$" {
                index = Int(digits)
                text = text.dropFirst(digits.count + 1)
            }
            let flagCharacters = text.prefix { "-#+ 0,(".contains($0) }
            flags = String(flagCharacters)
            text = text.dropFirst(flagCharacters.count)
            digits = text.prefix { $0.isASCII && $0.isNumber }
            width = Int(digits).map { min($0, TemplateHelpers.maximumTextSize) }
            text = text.dropFirst(digits.count)
            if text.first == "." {
                digits = text.dropFirst().prefix { $0.isASCII && $0.isNumber }
                precision = Int(digits).map { min($0, 100) } ?? 0
                text = text.dropFirst(digits.count + 1)
            }
            return text.popFirst()
        }

        func render(_ conversion: Character, _ value: TemplateValue) throws(HelperError) -> String {
            guard !flags.contains(","), !flags.contains("(") else { throw HelperError("stringFormat: the ',' and '(' flags are not supported") }
            switch conversion {
            case "s", "S":
                var text = value.text
                if case .null = value { text = "null" }
                if let precision { text = String(text.prefix(precision)) }
                return padded(conversion == "S" ? text.uppercased() : text)
            case "b", "B":
                let text: String
                switch value {
                case .null: text = "false"
                case .bool(let flag): text = flag ? "true" : "false"
                default: text = "true"
                }
                return padded(conversion == "B" ? text.uppercased() : text)
            case "c":
                guard let character = value.text.first else { throw HelperError("stringFormat: %c needs a character") }
                return padded(String(character))
            case "d", "x", "X", "o":
                guard let number = value.numberValue, number == number.rounded(), abs(number) < 0x1p63 else {
                    throw HelperError("stringFormat: %\(conversion) needs a whole number, got '\(value.text)'")
                }
                return String(format: "%\(flags)\(width.map(String.init) ?? "")l\(conversion)", Int(number))
            case "f", "e", "E", "g":
                guard let number = value.numberValue else { throw HelperError("stringFormat: %\(conversion) needs a number, got '\(value.text)'") }
                return String(format: "%\(flags)\(width.map(String.init) ?? "").\(precision ?? 6)\(conversion)", number)
            default:
                throw HelperError("stringFormat: %\(conversion) is not supported")
            }
        }

        func padded(_ text: String) -> String {
            guard let width, text.count < width else { return text }
            let padding = String(repeating: " ", count: width - text.count)
            return flags.contains("-") ? text + padding : padding + text
        }
    }
}
