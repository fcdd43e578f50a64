import WireFormat

/// Wall-clock formatting without a formatter object on the request path.
public enum Timestamp {
    /// `2026-11-22T08:06:27.123Z`
    public static func iso8601(_ secondsSinceEpoch: Double) -> String {
        let seconds = secondsSinceEpoch.rounded(.down)
        let millis = Int64(seconds) * 1000 + Int64((secondsSinceEpoch - seconds) * 1000)
        return UTCDateTime(millisecondsSince1970: millis).iso8601
    }
}
