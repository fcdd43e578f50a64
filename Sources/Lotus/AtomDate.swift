#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An instant as Atom writes it (RFC 3339, `2010-10-08T09:00:00.000Z`), kept as milliseconds
/// since 1970 so feeds sort and filter without Foundation on the request path.
struct AtomDate: Comparable, Hashable, Sendable {
    let millis: Int64
    /// `2010-10-08T09:00:00.000Z`, made once: feeds write each date several times.
    let text: String

    init(millis: Int64) {
        self.millis = millis
        text = Self.format(millis)
    }

    /// Now, or the configured fixed instant.
    static func now(fixed: AtomDate?) -> AtomDate {
        if let fixed { return fixed }
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return AtomDate(millis: Int64(spec.tv_sec) * 1000 + Int64(spec.tv_nsec) / 1_000_000)
    }

    /// `YYYY-MM-DDTHH:MM:SS[.fff][Z|±HH:MM]` (a lower-case `t`/`z` too); nil otherwise.
    init?(_ text: String) {
        let bytes = Array(text.utf8)
        func number(_ start: Int, _ count: Int) -> Int? {
            guard start + count <= bytes.count else { return nil }
            var value = 0
            for byte in bytes[start..<(start + count)] {
                guard byte >= 48 && byte <= 57 else { return nil }
                value = value * 10 + Int(byte - 48)
            }
            return value
        }
        guard bytes.count >= 19, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"),
              bytes[10] | 0x20 == UInt8(ascii: "t"), bytes[13] == UInt8(ascii: ":"), bytes[16] == UInt8(ascii: ":"),
              let year = number(0, 4), let month = number(5, 2), let day = number(8, 2),
              let hour = number(11, 2), let minute = number(14, 2), let second = number(17, 2),
              (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61 else { return nil }
        var index = 19
        var millis = 0
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            var digits = 0
            while index < bytes.count, bytes[index] >= 48, bytes[index] <= 57 {
                if digits < 3 { millis = millis * 10 + Int(bytes[index] - 48) }
                digits += 1
                index += 1
            }
            guard digits > 0 else { return nil }
            if digits < 3 { for _ in digits..<3 { millis *= 10 } }
        }
        var offset = 0
        if index < bytes.count, bytes[index] | 0x20 == UInt8(ascii: "z") {
            index += 1
        } else if index + 6 == bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-"),
                  bytes[index + 3] == UInt8(ascii: ":"), let hours = number(index + 1, 2), let minutes = number(index + 4, 2) {
            offset = (hours * 60 + minutes) * (bytes[index] == UInt8(ascii: "+") ? 1 : -1)
            index += 6
        } else {
            return nil
        }
        guard index == bytes.count else { return nil }
        let days = Self.daysFromCivil(year, month, day)
        let seconds = Int64(days) * 86_400 + Int64(hour * 3600 + minute * 60 + second - offset * 60)
        self.init(millis: seconds * 1000 + Int64(millis))
    }

    /// Days since 1970-01-01 (Howard Hinnant's algorithm).
    private static func daysFromCivil(_ year: Int, _ month: Int, _ day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    private var fields: (year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int, millis: Int, weekday: Int) {
        Self.fields(millis)
    }

    private static func fields(_ millis: Int64) -> (year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int, millis: Int, weekday: Int) {
        let seconds = millis >= 0 ? millis / 1000 : (millis - 999) / 1000
        let days = Int(seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400)
        let secondOfDay = Int(seconds - Int64(days) * 86_400)
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        return (year, month, day, secondOfDay / 3600, secondOfDay / 60 % 60, secondOfDay % 60, Int(millis - seconds * 1000),
                ((days % 7) + 11) % 7)
    }

    private static func format(_ millis: Int64) -> String {
        let f = fields(millis)
        return "\(pad(f.year, 4))-\(pad(f.month, 2))-\(pad(f.day, 2))T\(pad(f.hour, 2)):\(pad(f.minute, 2)):\(pad(f.second, 2)).\(pad(f.millis, 3))Z"
    }

    /// RFC 1123, for Last-Modified: `Fri, 08 Oct 2010 09:00:00 GMT`.
    var httpDate: String {
        let f = fields
        let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        return "\(days[f.weekday]), \(pad(f.day, 2)) \(months[f.month - 1]) \(f.year) \(pad(f.hour, 2)):\(pad(f.minute, 2)):\(pad(f.second, 2)) GMT"
    }

    /// Parses an HTTP date (RFC 1123 only, as clients send If-Modified-Since).
    init?(httpDate text: String) {
        let parts = text.split(separator: " ")
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        guard parts.count == 6, let day = Int(parts[1]), let month = months.firstIndex(of: String(parts[2])),
              let year = Int(parts[3]), parts[4].count == 8 else { return nil }
        self.init("\(pad(year, 4))-\(pad(month + 1, 2))-\(pad(day, 2))T\(parts[4])Z")
    }

    static func < (lhs: AtomDate, rhs: AtomDate) -> Bool { lhs.millis < rhs.millis }
    static func == (lhs: AtomDate, rhs: AtomDate) -> Bool { lhs.millis == rhs.millis }
    func hash(into hasher: inout Hasher) { hasher.combine(millis) }
}

private func pad(_ value: Int, _ width: Int) -> String {
    let digits = String(value)
    return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
}
