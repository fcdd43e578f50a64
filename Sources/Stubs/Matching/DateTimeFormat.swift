/// How the date matchers read a request's date-time: by default as WireMock does (ISO 8601 zoned
/// or local, RFC 1123, RFC 1036, asctime), or by an `actualFormat`: a java.time pattern such as
/// `dd/MM/yyyy HH:mm`, or `epoch` (milliseconds) / `unix` (seconds). Text that does not fit reads
/// as nil, never a trap.
enum DateTimeFormat: Sendable {
    case standard
    case pattern(DateTimePatternFormat)
    case epochMilliseconds
    case unixSeconds

    /// `actualFormat` as a mapping gives it; nil when the pattern uses what is not supported.
    static func parse(_ text: String) throws(DateTimePatternFormat.Unsupported) -> DateTimeFormat {
        switch text.lowercased() {
        case "epoch": return .epochMilliseconds
        case "unix": return .unixSeconds
        default: return .pattern(try DateTimePatternFormat(text))
        }
    }

    func read(_ text: String) -> DateTimeValue? {
        switch self {
        case .standard: return Self.readStandard(text)
        case .pattern(let format): return format.read(text)
        case .epochMilliseconds: return Int64(text).map { Self.instant(milliseconds: $0) }
        case .unixSeconds:
            return Int64(text).flatMap { $0.multipliedReportingOverflow(by: 1000).overflow ? nil : Self.instant(milliseconds: $0 * 1000) }
        }
    }

    private static func instant(milliseconds: Int64) -> DateTimeValue {
        let seconds = milliseconds.floorDiv(1000)
        return DateTimeValue(wallSeconds: seconds, nanoseconds: Int(milliseconds - seconds * 1000) * 1_000_000, offset: 0)
    }

    // The forms WireMock tries when no actualFormat is given, zoned ones first.
    private static let httpDates =
        ([
            "EEE, d MMM yyyy HH:mm:ss z", "d MMM yyyy HH:mm:ss z", "EEE, d MMM yyyy HH:mm z", "d MMM yyyy HH:mm z",  // RFC 1123
            "EEEE, dd-MMM-yy HH:mm:ss z",  // RFC 1036
            "EEE MMM dd HH:mm:ss yyyy", "EEE MMM  d HH:mm:ss yyyy",  // asctime, in GMT
        ] as [String]).compactMap { try? DateTimePatternFormat($0, defaultOffset: 0) }

    static func readStandard(_ text: String) -> DateTimeValue? {
        if let iso = readISO(text) { return iso }
        for format in httpDates {
            if let value = format.read(text) { return value }
        }
        return nil
    }

    /// `2021-06-14T12:13:14.5+02:00[Europe/Paris]`, `…Z`, `2021-06-14T12:13` (local), `2021-06-14` (local, midnight).
    static func readISO(_ text: String) -> DateTimeValue? {
        var scanner = DateTimeScanner(text)
        guard let year = scanner.digits(4...4), scanner.take("-"), let month = scanner.digits(2...2), scanner.take("-"),
            let day = scanner.digits(2...2)
        else { return nil }
        if scanner.atEnd { return DateTimeValue(year: year, month: month, day: day, offset: nil) }
        guard scanner.take("T"), let hour = scanner.digits(2...2), scanner.take(":"), let minute = scanner.digits(2...2) else { return nil }
        var second = 0
        var nanoseconds = 0
        if scanner.take(":") {
            guard let seconds = scanner.digits(2...2) else { return nil }
            second = seconds
            if scanner.take(".") {
                guard let fraction = scanner.fraction(1...9) else { return nil }
                nanoseconds = fraction
            }
        }
        var offset: Int?
        if !scanner.atEnd {
            guard let zone = scanner.offset(iso: true) else { return nil }
            offset = zone
            // A region after the offset (`[Europe/Paris]`) adds nothing the offset does not say.
            if scanner.take("[") {
                guard scanner.skip(while: { $0 != UInt8(ascii: "]") }), scanner.take("]") else { return nil }
            }
            guard scanner.atEnd else { return nil }
        }
        return DateTimeValue(
            year: year, month: month, day: day, hour: hour, minute: minute, second: second,
            nanoseconds: nanoseconds, offset: offset)
    }
}

/// A java.time `DateTimeFormatter` pattern: `y u M L d H h m s S a E z Z X x` and quoted or
/// punctuation literals. Names (months, days, `AM`/`PM`) are English.
struct DateTimePatternFormat: Sendable {
    struct Unsupported: Error { let message: String }

    private enum Field: Sendable { case year, twoDigitYear, month, day, hour, hour12, minute, second }
    private enum Token: Sendable {
        case literal([UInt8])
        case number(Field, ClosedRange<Int>)
        case fraction(ClosedRange<Int>)
        case monthName
        case dayName
        case amPm
        case zone
    }

    private let tokens: [Token]
    /// The offset of values whose pattern names none (asctime is GMT); nil: they are local.
    private let defaultOffset: Int?

    init(_ pattern: String, defaultOffset: Int? = nil) throws(Unsupported) {
        self.defaultOffset = defaultOffset
        var tokens: [Token] = []
        var rest = Substring(pattern)
        while let letter = rest.first {
            if letter == "'" {
                rest.removeFirst()
                if rest.first == "'" {
                    rest.removeFirst()
                    tokens.append(.literal([UInt8(ascii: "'")]))
                    continue
                }
                guard let end = rest.firstIndex(of: "'") else { throw Unsupported(message: "unterminated quote in '\(pattern)'") }
                tokens.append(.literal(Array(rest[..<end].utf8)))
                rest = rest[rest.index(after: end)...]
                continue
            }
            guard letter.isASCII, letter.isLetter else {
                guard letter != "[", letter != "]", letter != "{", letter != "}", letter != "#" else {
                    throw Unsupported(message: "'\(letter)' (optional sections) is not supported in '\(pattern)'")
                }
                rest.removeFirst()
                tokens.append(.literal(Array(String(letter).utf8)))
                continue
            }
            let run = rest.prefix { $0 == letter }.count
            rest.removeFirst(run)
            let fixed = max(run, 1)...max(run, 2)
            switch letter {
            case "y", "u": tokens.append(run == 2 ? .number(.twoDigitYear, 2...2) : .number(.year, max(run, 1)...9))
            case "M", "L": tokens.append(run >= 3 ? .monthName : .number(.month, run == 1 ? 1...2 : 2...2))
            case "d": tokens.append(.number(.day, run == 1 ? 1...2 : fixed))
            case "H": tokens.append(.number(.hour, run == 1 ? 1...2 : fixed))
            case "h": tokens.append(.number(.hour12, run == 1 ? 1...2 : fixed))
            case "m": tokens.append(.number(.minute, run == 1 ? 1...2 : fixed))
            case "s": tokens.append(.number(.second, run == 1 ? 1...2 : fixed))
            case "S": tokens.append(.fraction(run...run))
            case "a": tokens.append(.amPm)
            case "E": tokens.append(.dayName)
            case "z", "Z", "X", "x", "O", "V": tokens.append(.zone)
            default:
                throw Unsupported(
                    message: "pattern letter '\(letter)' is not supported in '\(pattern)' (supported: y u M L d H h m s S a E z Z X x O V)")
            }
        }
        self.tokens = tokens
    }

    /// A pattern without a time of day reads the start of the day.
    func read(_ text: String) -> DateTimeValue? {
        var scanner = DateTimeScanner(text)
        var year: Int?
        var month: Int?
        var day: Int?
        var hour = 0
        var hour12: Int?
        var minute = 0
        var second = 0
        var nanoseconds = 0
        var afternoon: Bool?
        var offset = defaultOffset
        for token in tokens {
            switch token {
            case .literal(let bytes):
                guard scanner.take(bytes) else { return nil }
            case .number(let field, let width):
                guard let value = scanner.digits(width) else { return nil }
                switch field {
                case .year: year = value
                case .twoDigitYear: year = 2000 + value
                case .month: month = value
                case .day: day = value
                case .hour: hour = value
                case .hour12: hour12 = value
                case .minute: minute = value
                case .second: second = value
                }
            case .fraction(let width):
                guard let value = scanner.fraction(width) else { return nil }
                nanoseconds = value
            case .monthName:
                guard let value = scanner.name(in: Self.months) else { return nil }
                month = value + 1
            case .dayName:
                guard scanner.name(in: Self.days) != nil else { return nil }
            case .amPm:
                guard let value = scanner.name(in: ["AM", "PM"]) else { return nil }
                afternoon = value == 1
            case .zone:
                guard let value = scanner.offset() else { return nil }
                offset = value
            }
        }
        guard scanner.atEnd, let year, let month, let day else { return nil }
        if let hour12 {
            guard (1...12).contains(hour12) else { return nil }
            hour = hour12 % 12 + (afternoon == true ? 12 : 0)
        }
        return DateTimeValue(
            year: year, month: month, day: day, hour: hour, minute: minute, second: second,
            nanoseconds: nanoseconds, offset: offset)
    }

    private static let months = [
        "January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December",
    ]
    private static let days = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
}

/// Reads a date-time's text byte by byte; every read says nil rather than run past the end.
struct DateTimeScanner {
    private let bytes: [UInt8]
    private var position = 0

    init(_ text: String) { bytes = Array(text.utf8) }

    var atEnd: Bool { position == bytes.count }

    mutating func take(_ character: Character) -> Bool { take(Array(String(character).utf8)) }

    mutating func take(_ expected: [UInt8]) -> Bool {
        guard bytes.count - position >= expected.count, bytes[position..<position + expected.count].elementsEqual(expected) else { return false }
        position += expected.count
        return true
    }

    mutating func skip(while keep: (UInt8) -> Bool) -> Bool {
        while position < bytes.count, keep(bytes[position]) { position += 1 }
        return true
    }

    /// A whole number of `width` digits (as many as there are, up to its upper bound).
    mutating func digits(_ width: ClosedRange<Int>) -> Int? {
        var value = 0
        var count = 0
        while count < width.upperBound, position < bytes.count, (48...57).contains(bytes[position]) {
            value = value * 10 + Int(bytes[position] - 48)
            position += 1
            count += 1
        }
        return width.contains(count) ? value : nil
    }

    /// Fraction-of-second digits as nanoseconds.
    mutating func fraction(_ width: ClosedRange<Int>) -> Int? {
        let start = position
        guard let value = digits(width) else { return nil }
        var nanoseconds = value
        for _ in (position - start)..<9 { nanoseconds *= 10 }
        return nanoseconds
    }

    /// The index of the name (full, or its first three letters) found here, any case.
    mutating func name(in names: [String]) -> Int? {
        for (index, name) in names.enumerated() {
            for form in [name, String(name.prefix(3))] where take(caseInsensitive: Array(form.utf8)) { return index }
        }
        return nil
    }

    private mutating func take(caseInsensitive expected: [UInt8]) -> Bool {
        guard bytes.count - position >= expected.count,
            zip(bytes[position..<position + expected.count], expected).allSatisfy({ $0 | 0x20 == $1 | 0x20 })
        else { return false }
        position += expected.count
        return true
    }

    /// `Z`, `GMT`, `UTC`, `UT` or `±HH`, `±HHmm`, `±HH:mm` (also after `GMT`/`UTC`): seconds east of
    /// UTC. `iso`: only `Z` or `±HH:mm`, as ISO 8601 offsets are read.
    mutating func offset(iso: Bool = false) -> Int? {
        if iso {
            if take("Z") { return 0 }
        } else if take(caseInsensitive: Array("GMT".utf8)) || take(caseInsensitive: Array("UTC".utf8)) || take(caseInsensitive: Array("UT".utf8)) {
            guard !atEnd, bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-") else { return 0 }
        } else if take("Z") {
            return 0
        }
        guard position < bytes.count else { return nil }
        let sign: Int
        switch bytes[position] {
        case UInt8(ascii: "+"): sign = 1
        case UInt8(ascii: "-"): sign = -1
        default: return nil
        }
        position += 1
        guard let hours = digits(2...2), hours <= 18 else { return nil }
        var minutes = 0
        let colon = take(":")
        if iso && !colon { return nil }
        if let found = digits(2...2) {
            guard found < 60 else { return nil }
            minutes = found
        } else if colon {
            return nil
        }
        return sign * (hours * 3600 + minutes * 60)
    }
}
