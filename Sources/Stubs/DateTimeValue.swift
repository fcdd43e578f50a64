#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A date-time as the date matchers see it: the wall-clock fields, and the offset from UTC when
/// the text named one (nil: a local date-time, compared by its fields).
struct DateTimeValue: Sendable, Comparable {
    /// The wall-clock fields as seconds since 1970-01-01T00:00 (proleptic Gregorian).
    var wallSeconds: Int64
    var nanoseconds: Int = 0
    /// Seconds east of UTC; nil for a local value.
    var offset: Int?

    init(wallSeconds: Int64, nanoseconds: Int = 0, offset: Int?) {
        self.wallSeconds = wallSeconds
        self.nanoseconds = nanoseconds
        self.offset = offset
    }

    /// nil when a field is out of range (month 13, February 30, hour 24, …).
    init?(year: Int, month: Int, day: Int, hour: Int = 0, minute: Int = 0, second: Int = 0, nanoseconds: Int = 0, offset: Int?) {
        guard (1...12).contains(month), (1...Self.daysIn(month, of: year)).contains(day), (0...23).contains(hour),
              (0...59).contains(minute), (0...59).contains(second), (-999_999_999...999_999_999).contains(year) else { return nil }
        wallSeconds = Self.days(year: year, month: month, day: day) * 86_400 + Int64(hour * 3600 + minute * 60 + second)
        self.nanoseconds = nanoseconds
        self.offset = offset
    }

    /// The current time, in UTC.
    static func now() -> DateTimeValue {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return DateTimeValue(wallSeconds: Int64(time.tv_sec), nanoseconds: Int(time.tv_nsec), offset: 0)
    }

    /// Seconds since the epoch of the instant (a local value counts as UTC).
    var instantSeconds: Int64 { wallSeconds - Int64(offset ?? 0) }

    var fields: (year: Int, month: Int, day: Int) { Self.civil(fromDays: wallSeconds.floorDiv(86_400)) }

    static func < (a: DateTimeValue, b: DateTimeValue) -> Bool {
        (a.wallSeconds, a.nanoseconds) < (b.wallSeconds, b.nanoseconds)
    }

    // MARK: Calendar arithmetic (Howard Hinnant's days-from-civil)

    static func isLeap(_ year: Int) -> Bool { year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) }

    static func daysIn(_ month: Int, of year: Int) -> Int {
        switch month {
        case 2: isLeap(year) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    static func days(year: Int, month: Int, day: Int) -> Int64 {
        let y = Int64(month <= 2 ? year - 1 : year)
        let era = y.floorDiv(400)
        let yearOfEra = y - era * 400
        let m = Int64(month)
        let dayOfYear = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + Int64(day) - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    static func civil(fromDays days: Int64) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = z.floorDiv(146_097)
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (Int(yearOfEra + era * 400 + (month <= 2 ? 1 : 0)), Int(month), Int(day))
    }

    /// The same wall-clock time on another date (the day clamped to the month's length, as
    /// java.time does when adding months).
    func moved(toYear year: Int, month: Int, day: Int) -> DateTimeValue {
        let clampedDay = min(day, Self.daysIn(month, of: year))
        let timeOfDay = wallSeconds - wallSeconds.floorDiv(86_400) * 86_400
        return DateTimeValue(wallSeconds: Self.days(year: year, month: month, day: clampedDay) * 86_400 + timeOfDay,
                             nanoseconds: nanoseconds, offset: offset)
    }

    /// Midnight of the same day.
    var startOfDay: DateTimeValue {
        DateTimeValue(wallSeconds: wallSeconds.floorDiv(86_400) * 86_400, offset: offset)
    }
}

extension Int64 {
    /// Division rounding toward minus infinity (dates before 1970 have negative seconds).
    func floorDiv(_ divisor: Int64) -> Int64 {
        let quotient = self / divisor
        return (self % divisor != 0 && (self < 0) != (divisor < 0)) ? quotient - 1 : quotient
    }
}
