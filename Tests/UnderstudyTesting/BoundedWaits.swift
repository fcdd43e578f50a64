import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How long a test waits for a child process's output or exit. A child that is slower than this
/// is wedged: the wait records an issue naming what did not come, and the child is killed, so the
/// test fails instead of holding the whole run (and CI's time) until something outside kills it.
public let childProcessPatience: Duration = .seconds(120)

extension ChildProcess {
    /// Waits for the child to exit until `deadline`. Past it, records an issue, kills the child
    /// (and its process group, where it has one of its own) and reaps it; false then.
    @discardableResult
    public func waitUntilExit(before deadline: ContinuousClock.Instant, sourceLocation: SourceLocation = #_sourceLocation) -> Bool {
        while isRunning {
            guard ContinuousClock.now < deadline else {
                let name = executableURL?.lastPathComponent ?? "a child process"
                Issue.record(
                    "\(name) (pid \(processIdentifier)) had not exited when the test's patience ran out; killed", sourceLocation: sourceLocation)
                kill(-processIdentifier, SIGKILL)
                kill(processIdentifier, SIGKILL)
                waitUntilExit()
                return false
            }
            usleep(10_000)
        }
        return true
    }

    /// Waits for the child to exit for at most `limit`.
    @discardableResult
    public func waitUntilExit(within limit: Duration, sourceLocation: SourceLocation = #_sourceLocation) -> Bool {
        waitUntilExit(before: .now + limit, sourceLocation: sourceLocation)
    }
}

extension Duration {
    /// In seconds, as `Date` arithmetic takes them.
    var seconds: TimeInterval { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
