import Foundation
import HTTPServer

/// The process's environment as tests share it. Every test suite runs in one process, in
/// parallel: `setenv` may move the environment while `Process.run()` on another thread copies it
/// for a child, which crashes. Tests that set a variable, and tests that start a child, do so
/// through here, one at a time.
public enum ProcessEnvironment {
    private static let lock = Locked(())

    /// `setenv(name, value, overwrite)`, never while a child is being started.
    public static func set(_ name: String, _ value: String, overwrite: Bool = true) {
        lock.withLock { _ in _ = setenv(name, value, overwrite ? 1 : 0) }
    }

    /// Starts `process`, never while a variable is being set.
    public static func run(_ process: ChildProcess) throws {
        try lock.withLock { _ in try process.run() }
    }
}
