import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A line of progress on standard error that rewrites itself, for long work: on a terminal only
/// (a pipe or a file gets the final summary alone), at most ten times a second, cleared at the end.
final class ProgressLine: @unchecked Sendable {
    private let enabled: Bool
    private let lock = NSLock()
    private var last: ContinuousClock.Instant?
    private var shown = false

    init(enabled: Bool = isatty(STDERR_FILENO) == 1 && ProcessInfo.processInfo.environment["TERM"] != "dumb") {
        self.enabled = enabled
    }

    func update(_ text: @autoclosure () -> String) {
        guard enabled else { return }
        let now = ContinuousClock.now
        lock.lock()
        defer { lock.unlock() }
        if let last, now - last < .milliseconds(100) { return }
        last = now
        shown = true
        FileHandle.standardError.write(Data(("\r\u{1B}[K" + text()).utf8))
    }

    /// Clears the line, so the summary that follows starts clean.
    func finish() {
        lock.lock()
        defer { lock.unlock() }
        if shown { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
        shown = false
    }
}
