#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The `Date` header value (RFC 9110 IMF-fixdate, `Sun, 06 Nov 1994 08:49:37 GMT`), formatted
/// once per second per loop. evhttp would otherwise format it for every response (measured: about
/// 3,400 instructions a request, a tenth of its whole cost).
struct HTTPDate {
    private var second: time_t = -1
    private var text: [CChar] = []

    private static let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// Calls `body` with the current value as a C string.
    mutating func withCurrent<T>(_ body: (UnsafePointer<CChar>) -> T) -> T {
        let now = time(nil)
        if now != second {
            second = now
            text = Array(Self.format(now).utf8CString)
        }
        return text.withUnsafeBufferPointer { body($0.baseAddress!) }
    }

    static func format(_ seconds: time_t) -> String {
        var seconds = seconds
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(days[Int(parts.tm_wday)]), \(two(parts.tm_mday)) \(months[Int(parts.tm_mon)]) \(parts.tm_year + 1900) "
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) GMT"
    }
}
