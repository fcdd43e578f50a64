import WireFormat

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
        guard (1...12).contains(month), (1...CivilDate.daysIn(month: month, year: year)).contains(day), (0...23).contains(hour),
            (0...59).contains(minute), (0...59).contains(second), (-999_999_999...999_999_999).contains(year)
        else { return nil }
        wallSeconds = CivilDate(year: year, month: month, day: day).daysSince1970 * 86_400 + Int64(hour * 3600 + minute * 60 + second)
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

    var fields: (year: Int, month: Int, day: Int) {
        let date = CivilDate(daysSince1970: wallSeconds.floorDiv(86_400))
        return (date.year, date.month, date.day)
    }

    static func < (a: DateTimeValue, b: DateTimeValue) -> Bool {
        (a.wallSeconds, a.nanoseconds) < (b.wallSeconds, b.nanoseconds)
    }

    /// The same wall-clock time on another date (the day clamped to the month's length, as
    /// java.time does when adding months).
    func moved(toYear year: Int, month: Int, day: Int) -> DateTimeValue {
        let clampedDay = min(day, CivilDate.daysIn(month: month, year: year))
        let timeOfDay = wallSeconds - wallSeconds.floorDiv(86_400) * 86_400
        return DateTimeValue(
            wallSeconds: CivilDate(year: year, month: month, day: clampedDay).daysSince1970 * 86_400 + timeOfDay,
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
