import WireFormat

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
        UTCDateTime(millisecondsSince1970: Int64(seconds) * 1000).httpDate
    }
}
