/// A day of the proleptic Gregorian calendar and its number of days since 1970-01-01 (Howard
/// Hinnant's algorithms): the calendar arithmetic of every date format Understudy reads or
/// writes, without Foundation on the request path.
public struct CivilDate: Hashable, Sendable {
    public let year: Int
    public let month: Int
    public let day: Int

    /// Not checked: see `isValid`. (Arithmetic on an out-of-range day carries into the next month.)
    public init(year: Int, month: Int, day: Int) {
        self.year = year
        self.month = month
        self.day = day
    }

    public init(daysSince1970 days: Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        day = Int(dayOfYear - (153 * mp + 2) / 5 + 1)
        month = Int(mp < 10 ? mp + 3 : mp - 9)
        year = Int(yearOfEra + era * 400) + (month <= 2 ? 1 : 0)
    }

    public var daysSince1970: Int64 {
        let y = Int64(month <= 2 ? year - 1 : year)
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let m = Int64(month)
        let dayOfYear = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + Int64(day) - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// 0 for Sunday to 6 for Saturday.
    public var weekday: Int {
        let days = daysSince1970
        return Int((days % 7 + 11) % 7)
    }

    /// `2010-10-08`
    public var iso8601: String { "\(Self.pad(year, 4))-\(Self.pad(month, 2))-\(Self.pad(day, 2))" }

    /// Whether the month has that day (any year the arithmetic holds).
    public var isValid: Bool { (1...12).contains(month) && day >= 1 && day <= Self.daysIn(month: month, year: year) }

    public static func isLeap(_ year: Int) -> Bool { year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) }

    public static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: isLeap(year) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// `value` in decimal with leading zeros up to `width` digits.
    public static func pad(_ value: Int, _ width: Int) -> String {
        let digits = String(value)
        return digits.utf8.count >= width ? digits : String(repeating: "0", count: width - digits.utf8.count) + digits
    }

    /// English abbreviations, as HTTP dates and RFC 822 write them.
    public static let weekdayNames = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    public static let monthNames = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
}
