import WireFormat

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
        text = UTCDateTime(millisecondsSince1970: millis).iso8601
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
            (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61
        else { return nil }
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
            bytes[index + 3] == UInt8(ascii: ":"), let hours = number(index + 1, 2), let minutes = number(index + 4, 2)
        {
            offset = (hours * 60 + minutes) * (bytes[index] == UInt8(ascii: "+") ? 1 : -1)
            index += 6
        } else {
            return nil
        }
        guard index == bytes.count else { return nil }
        let days = CivilDate(year: year, month: month, day: day).daysSince1970
        let seconds = days * 86_400 + Int64(hour * 3600 + minute * 60 + second - offset * 60)
        self.init(millis: seconds * 1000 + Int64(millis))
    }

    /// RFC 1123, for Last-Modified: `Fri, 08 Oct 2010 09:00:00 GMT`.
    var httpDate: String { UTCDateTime(millisecondsSince1970: millis).httpDate }

    /// Parses an HTTP date (RFC 1123 only, as clients send If-Modified-Since).
    init?(httpDate text: String) {
        let parts = text.split(separator: " ")
        guard parts.count == 6, let day = Int(parts[1]), let month = CivilDate.monthNames.firstIndex(of: String(parts[2])),
            let year = Int(parts[3]), parts[4].count == 8
        else { return nil }
        let pad = CivilDate.pad
        self.init("\(pad(year, 4))-\(pad(month + 1, 2))-\(pad(day, 2))T\(parts[4])Z")
    }

    static func < (lhs: AtomDate, rhs: AtomDate) -> Bool { lhs.millis < rhs.millis }
    static func == (lhs: AtomDate, rhs: AtomDate) -> Bool { lhs.millis == rhs.millis }
    func hash(into hasher: inout Hasher) { hasher.combine(millis) }
}
