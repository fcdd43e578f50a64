import Foundation
import HTTPServer

#if canImport(Glibc)
import Glibc

/// A child process for tests, with the part of `Process`'s interface the tests use. On Linux it
/// is started with `posix_spawn` here: Foundation's `Process.run()` (Swift 6.3) lists
/// `/proc/self/fd` copying each entry's whole 256-byte name field, which reads past glibc's
/// directory buffer once the process has about 1,350 descriptors open — as the test process does
/// while many servers run in parallel — and crashes it now and then (fixed in
/// swift-corelibs-foundation after 6.3). Elsewhere it is `Process`.
public final class ChildProcess: @unchecked Sendable {
    public var executableURL: URL?
    public var arguments: [String]?
    /// The child's whole environment; nil: this process's.
    public var environment: [String: String]?
    /// A `Pipe` (the child gets the end it needs) or a `FileHandle`; nil: /dev/null.
    public var standardInput: Any?
    public var standardOutput: Any?
    public var standardError: Any?

    public private(set) var processIdentifier: Int32 = 0
    /// nil while running (or before `run`); the `waitpid` status once it has exited.
    private let exit = Locked<Int32?>(nil)

    public init() {}

    /// Starts the child in a process group of its own, with every descriptor but its three
    /// standard streams closed and its signals as `Process` leaves them.
    public func run() throws {
        try TestLane.allow("a child process (\(executableURL?.lastPathComponent ?? "?"))")
        guard let executableURL else { throw CocoaError(.fileNoSuchFile) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        var closeInParent: [FileHandle] = []
        var closeInChild = Set<Int32>()
        for (stream, target) in [(standardInput, STDIN_FILENO), (standardOutput, STDOUT_FILENO), (standardError, STDERR_FILENO)] {
            switch stream {
            case let pipe as Pipe:
                let (childEnd, parentOnly) =
                    target == STDIN_FILENO
                    ? (pipe.fileHandleForReading, pipe.fileHandleForWriting) : (pipe.fileHandleForWriting, pipe.fileHandleForReading)
                posix_spawn_file_actions_adddup2(&actions, childEnd.fileDescriptor, target)
                closeInChild.insert(parentOnly.fileDescriptor)
                closeInParent.append(childEnd)
            case let handle as FileHandle where handle.fileDescriptor >= 0:
                posix_spawn_file_actions_adddup2(&actions, handle.fileDescriptor, target)
            default:
                // None given, or `FileHandle.nullDevice` (no descriptor): /dev/null, as `Process` does.
                posix_spawn_file_actions_addopen(&actions, target, "/dev/null", O_RDWR, 0)
            }
        }
        // The parent's ends, once each (a pipe may serve two streams); then, where glibc can, the rest.
        for descriptor in closeInChild.subtracting(closeInParent.map(\.fileDescriptor)) {
            posix_spawn_file_actions_addclose(&actions, descriptor)
        }
        Self.closeFromThree(&actions)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // No signal blocked and every one at its default, as `Process` starts a child: a test runs
        // on a dispatch worker, which blocks most signals, and a child inherits the mask (a tool's
        // SIGTERM would wait forever); SIGPIPE is ignored in this process, and the child would
        // inherit that too.
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        var all = sigset_t()
        sigfillset(&all)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let argv = [executableURL.path] + (arguments ?? [])
        let environment = (self.environment ?? ProcessInfo.processInfo.environment).map { "\($0.key)=\($0.value)" }
        var pid: pid_t = 0
        let status = withCStrings(argv) { argv in
            withCStrings(environment) { envp in posix_spawn(&pid, executableURL.path, &actions, &attributes, argv, envp) }
        }
        guard status == 0 else { throw POSIXError(POSIXErrorCode(rawValue: status) ?? .EIO) }
        processIdentifier = pid
        for handle in closeInParent { try? handle.close() }
    }

    public var isRunning: Bool { processIdentifier != 0 && reap(blocking: false) == nil }

    public func waitUntilExit() { _ = reap(blocking: true) }

    /// The exit code, or the signal that ended it (as `Process` gives them).
    public var terminationStatus: Int32 {
        guard let status = reap(blocking: false) else { return 0 }
        return status & 0x7F == 0 ? (status >> 8) & 0xFF : status & 0x7F
    }

    public func terminate() { kill(processIdentifier, SIGTERM) }

    /// The `waitpid` status once the child has exited; nil while it runs (without blocking).
    private func reap(blocking: Bool) -> Int32? {
        exit.withLock { exit in
            if exit == nil, processIdentifier != 0 {
                var status: Int32 = 0
                var result: pid_t
                repeat { result = waitpid(processIdentifier, &status, blocking ? 0 : WNOHANG) } while result < 0 && errno == EINTR
                if result == processIdentifier { exit = status }
            }
            return exit
        }
    }

    /// `posix_spawn_file_actions_addclosefrom_np(actions, 3)` where glibc has it (2.34 and later),
    /// looked up at run time: the Glibc module does not export it.
    private static func closeFromThree(_ actions: inout posix_spawn_file_actions_t) {
        typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np") else { return }
        _ = unsafeBitCast(symbol, to: CloseFrom.self)(&actions, 3)
    }
}

/// `strings` as a NULL-terminated array of C strings, for `body`'s duration.
private func withCStrings<T>(_ strings: [String], _ body: ([UnsafeMutablePointer<CChar>?]) -> T) -> T {
    let copies = strings.map { strdup($0) } + [nil]
    defer { copies.forEach { free($0) } }
    return body(copies)
}
#else
public typealias ChildProcess = Process
#endif
