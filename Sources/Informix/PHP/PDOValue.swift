/// A column value as PDO_INFORMIX hands it to PHP: every type bound as text (CHAR blank-padded,
/// DECIMAL and MONEY with their scale, DATE as the ODBC driver writes it, `yyyy-mm-dd`), NULL
/// as PHP's null, and TEXT/BYTE as a stream resource.
enum PDOValue: Equatable {
    /// Text, and the blanks that follow it (CHAR padding, written without building a string).
    case string(String, padding: Int = 0)
    case null
    /// A LOB column's value: a PHP stream resource, which the scripts' `htmlentities()` refuses.
    case stream

    // Borrowed: an initializer's arguments are otherwise passed owned, a copy of the format per value.
    init(_ value: SQLiteValue, type: InformixType?, dateOutput: borrowing DBDateFormat) {
        if case .null = value {
            self = .null
            return
        }
        guard let type else {
            self = .string(Self.text(value))
            return
        }
        switch type.kind {
        case .text, .byte:
            self = .stream
        case .char, .nchar:
            let text = Self.text(value)
            self = .string(text, padding: max(0, type.length - Self.characterCount(text)))
        case .decimal, .money:
            guard type.scale != InformixType.floatingScale, let number = Self.number(value) else {
                self = .string(Self.text(value))
                return
            }
            self = .string(Self.fixed(number, scale: type.scale))
        case .date:
            let text = Self.text(value)
            self = .string(dateOutput == .iso ? text : dateOutput.format(isoDate: text))
        default:
            self = .string(Self.text(value))
        }
    }

    /// The value as PHP's string (padding included); nil for NULL and streams.
    var phpString: String? {
        guard case .string(let text, let padding) = self else { return nil }
        return padding > 0 ? text + String(repeating: " ", count: padding) : text
    }

    /// `text.count`, without walking grapheme clusters when the text is ASCII (nearly always).
    static func characterCount(_ text: String) -> Int {
        (text.utf8.withContiguousStorageIfAvailable(asciiCharacterCount) ?? nil) ?? text.count
    }

    /// The characters of ASCII text (each byte one, but CR LF is one); nil when not ASCII.
    static func asciiCharacterCount(_ bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        var pairs = 0
        var previous: UInt8 = 0
        for byte in bytes {
            if byte >= 0x80 { return nil }
            if byte == UInt8(ascii: "\n") && previous == UInt8(ascii: "\r") { pairs += 1 }
            previous = byte
        }
        return bytes.count - pairs
    }

    /// `number` with `scale` decimals, rounded half away from zero.
    static func fixed(_ number: Double, scale: Int) -> String {
        var factor = 1.0
        for _ in 0..<scale { factor *= 10 }
        let scaled = (abs(number) * factor).rounded(.toNearestOrAwayFromZero)
        guard scaled < 9e18 else { return String(number) }
        var digits = String(UInt64(scaled))
        if digits.count <= scale { digits = String(repeating: "0", count: scale - digits.count + 1) + digits }
        if scale > 0 { digits.insert(".", at: digits.index(digits.endIndex, offsetBy: -scale)) }
        return (number < 0 && scaled != 0 ? "-" : "") + digits
    }

    private static func number(_ value: SQLiteValue) -> Double? {
        switch value {
        case .integer(let number): Double(number)
        case .real(let number): number
        case .text(let text): Double(text)
        default: nil
        }
    }

    /// Numbers as the driver's text conversion writes them (floats without a trailing `.0`;
    /// the exact digits of FLOAT columns are unverified).
    static func text(_ value: SQLiteValue) -> String {
        switch value {
        case .null: ""
        case .integer(let number): String(number)
        case .real(let number):
            number == number.rounded() && abs(number) < 1e15 ? String(Int64(number)) : String(number)
        case .text(let text): text
        case .blob(let bytes): String(decoding: bytes, as: UTF8.self)
        }
    }
}
