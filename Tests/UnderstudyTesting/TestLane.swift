import Foundation

/// `make test-fast` runs the suites whose files use no socket or child process
/// (tools/in-memory-tests.py), with `UNDERSTUDY_TEST_LANE=in-memory`. In that lane the helpers
/// that open a socket or start a process refuse: a suite that reaches one through a helper in
/// another file fails, naming what it used, instead of passing for in memory.
public enum TestLane {
    public struct SocketInMemoryLane: Error, CustomStringConvertible {
        public let what: String
        public var description: String {
            "\(what) in the in-memory lane (make test-fast): this suite's file names no socket, so tools/in-memory-tests.py "
                + "counts it in memory, yet it reached one through a helper; move the test to a file that says so, or keep it in memory"
        }
    }

    static let isInMemory = ProcessInfo.processInfo.environment["UNDERSTUDY_TEST_LANE"] == "in-memory"

    /// Throws when the lane is in memory: `what` (a server on a socket, a child process) is not.
    static func allow(_ what: @autoclosure () -> String) throws(SocketInMemoryLane) {
        if isInMemory { throw SocketInMemoryLane(what: what()) }
    }
}
