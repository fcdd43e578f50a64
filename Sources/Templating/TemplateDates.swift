import Foundation

/// Dates for the date helpers (`now`, `date`, `parseDate`, `dateFormat`, `truncateDate`): Java-style patterns (which ICU's, used by
/// DateFormatter, follow for the common letters), `epoch` (milliseconds) and `unix` (seconds),
/// offsets such as `3 days` or `-1 hours`, and time zones by identifier.
enum TemplateDates {
    static func iso8601(_ date: Date, timeZone: TimeZone = TimeZone(identifier: "UTC")!) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.timeZone = timeZone
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.string(from: date)
    }

    static func format(_ date: Date, pattern: String?, timeZone: String?) throws(HelperError) -> TemplateValue {
        let zone = try zone(timeZone)
        switch pattern {
        case nil: return .string(iso8601(date, timeZone: zone))
        case "epoch": return .number((date.timeIntervalSince1970 * 1000).rounded(.down))
        case "unix": return .number(date.timeIntervalSince1970.rounded(.down))
        case let pattern?:
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = zone
            formatter.dateFormat = pattern
            return .string(formatter.string(from: date))
        }
    }

    private static func zone(_ identifier: String?) throws(HelperError) -> TimeZone {
        guard let identifier else { return TimeZone(identifier: "UTC")! }
        guard let zone = TimeZone(identifier: identifier) ?? TimeZone(abbreviation: identifier) else {
            throw HelperError("unknown time zone '\(identifier)'")
        }
        return zone
    }

    /// `date` moved by an offset such as `3 days`, `-24 seconds`, `1 months`.
    static func offset(_ date: Date, by text: String?) throws(HelperError) -> Date {
        guard let text else { return date }
        let parts = text.split(separator: " ")
        guard parts.count == 2, let amount = Int(parts[0]) else {
            throw HelperError("offset '\(text)' is not '<amount> <unit>', e.g. '3 days'")
        }
        let unit = parts[1].lowercased()
        let component: Calendar.Component
        switch unit.hasSuffix("s") ? String(unit.dropLast()) : unit {
        case "millisecond": return date.addingTimeInterval(Double(amount) / 1000)
        case "second": component = .second
        case "minute": component = .minute
        case "hour": component = .hour
        case "day": component = .day
        case "week": component = .weekOfYear
        case "month": component = .month
        case "year": component = .year
        default: throw HelperError("offset unit '\(parts[1])' is not seconds, minutes, hours, days, weeks, months or years")
        }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar.date(byAdding: component, value: amount, to: date) ?? date
    }

    /// Reads a date: ISO 8601 (with or without time), epoch milliseconds, or the given pattern.
    static func parse(_ text: String, pattern: String?) throws(HelperError) -> Date {
        if let pattern {
            if pattern == "epoch", let millis = Double(text) { return Date(timeIntervalSince1970: millis / 1000) }
            if pattern == "unix", let seconds = Double(text) { return Date(timeIntervalSince1970: seconds) }
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "UTC")
            formatter.dateFormat = pattern
            if let date = formatter.date(from: text) { return date }
            throw HelperError("'\(text)' does not read as a date in the format '\(pattern)'")
        }
        let iso = ISO8601DateFormatter()
        for options: ISO8601DateFormatter.Options in [[.withInternetDateTime], [.withInternetDateTime, .withFractionalSeconds], [.withFullDate]] {
            iso.formatOptions = options
            if let date = iso.date(from: text) { return date }
        }
        // RFC 1123, as in HTTP Date headers.
        let http = DateFormatter()
        http.locale = Locale(identifier: "en_US_POSIX")
        http.timeZone = TimeZone(identifier: "GMT")
        http.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        if let date = http.date(from: text) { return date }
        throw HelperError("'\(text)' is not an ISO 8601 or HTTP date; give format='…'")
    }

}

/// WireMock's date truncations, by their names in templates (`truncateDate`) and in date matchers
/// (`truncateExpected`, `truncateActual`); each reader applies them to its own date type.
public enum DateTruncation: String, Sendable, CaseIterable {
    case firstSecondOfMinute = "first second of minute"
    case firstMinuteOfHour = "first minute of hour"
    case firstHourOfDay = "first hour of day"
    case firstDayOfMonth = "first day of month"
    case firstDayOfNextMonth = "first day of next month"
    case lastDayOfMonth = "last day of month"
    case firstDayOfYear = "first day of year"
    case firstDayOfNextYear = "first day of next year"
    case lastDayOfYear = "last day of year"

    public func apply(to date: Date) -> Date {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
        func start(_ components: Set<Calendar.Component>) -> Date {
            calendar.date(from: calendar.dateComponents(components, from: date)) ?? date
        }
        func moved(_ date: Date, _ component: Calendar.Component, _ amount: Int) -> Date {
            calendar.date(byAdding: component, value: amount, to: date) ?? date
        }
        switch self {
        case .firstSecondOfMinute: return start([.year, .month, .day, .hour, .minute])
        case .firstMinuteOfHour: return start([.year, .month, .day, .hour])
        case .firstHourOfDay: return start([.year, .month, .day])
        case .firstDayOfMonth: return start([.year, .month])
        case .firstDayOfNextMonth: return moved(start([.year, .month]), .month, 1)
        case .lastDayOfMonth: return moved(moved(start([.year, .month]), .month, 1), .day, -1)
        case .firstDayOfYear: return start([.year])
        case .firstDayOfNextYear: return moved(start([.year]), .year, 1)
        case .lastDayOfYear: return moved(moved(start([.year]), .year, 1), .day, -1)
        }
    }
}
