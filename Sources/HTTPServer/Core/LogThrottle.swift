#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One kind of warning a client can cause as often as it likes (a failed TLS handshake, a refused
/// tunnel, an answer refused for unread bytes): at most `linesPerWindow` lines per window, then,
/// with the first line of a later window, one that counts what was left out.
public final class LogThrottle: Sendable {
    private let windowNanos: UInt64
    private let linesPerWindow: Int
    /// The line that counts the lines left out, given their number and the window's seconds.
    private let dropped: @Sendable (Int, UInt64) -> String

    private struct Tally {
        var windowStart: UInt64 = 0
        var lines = 0
        var suppressed = 0
    }
    private let tally = Locked(Tally())

    public init(windowSeconds: UInt64 = 5, linesPerWindow: Int = 10, dropped: @escaping @Sendable (Int, UInt64) -> String) {
        windowNanos = windowSeconds * 1_000_000_000
        self.linesPerWindow = linesPerWindow
        self.dropped = dropped
    }

    /// The lines to log now for one more warning: none, `line()`, or the count of those left out
    /// in the last window before it. `line` is made only when it is logged.
    public func lines(_ line: () -> String, now: UInt64 = MonotonicClock.nanoseconds()) -> [String] {
        let (admitted, suppressed) = tally.withLock { tally -> (Bool, Int) in
            var suppressed = 0
            if now &- tally.windowStart >= windowNanos {
                suppressed = tally.suppressed
                tally = Tally(windowStart: now)
            }
            guard tally.lines < linesPerWindow else {
                tally.suppressed += 1
                return (false, suppressed)
            }
            tally.lines += 1
            return (true, suppressed)
        }
        return (suppressed > 0 ? [dropped(suppressed, windowNanos / 1_000_000_000)] : []) + (admitted ? [line()] : [])
    }
}

/// One write per line, so lines of several threads do not interleave.
public func writeToStandardError(_ line: String) {
    var text = line + "\n"
    text.withUTF8 { bytes in _ = write(STDERR_FILENO, bytes.baseAddress, bytes.count) }
}
