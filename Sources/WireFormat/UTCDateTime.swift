/// An instant to the millisecond as a UTC date and time of day, and the two ways it is written:
/// ISO 8601 (Atom, the journal) and the HTTP date.
public struct UTCDateTime: Hashable, Sendable {
    public let date: CivilDate
    public let hour: Int
    public let minute: Int
    public let second: Int
    public let millisecond: Int

    public init(millisecondsSince1970 millis: Int64) {
        let seconds = millis >= 0 ? millis / 1000 : (millis - 999) / 1000
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondOfDay = Int(seconds - days * 86_400)
        date = CivilDate(daysSince1970: days)
        hour = secondOfDay / 3600
        minute = secondOfDay / 60 % 60
        second = secondOfDay % 60
        millisecond = Int(millis - seconds * 1000)
    }

    /// `2010-10-08T09:00:00.000Z`
    public var iso8601: String {
        "\(date.iso8601)T\(CivilDate.pad(hour, 2)):\(CivilDate.pad(minute, 2)):\(CivilDate.pad(second, 2)).\(CivilDate.pad(millisecond, 3))Z"
    }

    /// RFC 9110's IMF-fixdate: `Fri, 08 Oct 2010 09:00:00 GMT`.
    public var httpDate: String {
        "\(CivilDate.weekdayNames[date.weekday]), \(CivilDate.pad(date.day, 2)) \(CivilDate.monthNames[date.month - 1]) \(date.year) "
            + "\(CivilDate.pad(hour, 2)):\(CivilDate.pad(minute, 2)):\(CivilDate.pad(second, 2)) GMT"
    }
}
