import Foundation
import Testing

/// The built `understudy` executable, beside the test bundle. The servers it starts keep device
/// mode's local CA in a folder of the test run's, not in the home directory.
public let understudyBinary: URL = {
    let caDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("understudy-tests-ca-\(getpid())")
    ProcessEnvironment.set("UNDERSTUDY_CA_DIR", caDirectory.path, overwrite: false)
    let candidates = [CommandLine.arguments.first, Bundle.main.executablePath, Bundle.main.bundlePath].compactMap { $0 }
    for candidate in candidates {
        var directory = URL(fileURLWithPath: candidate).deletingLastPathComponent()
        for _ in 0..<3 {
            let binary = directory.appendingPathComponent("understudy")
            if FileManager.default.isExecutableFile(atPath: binary.path) { return binary }
            directory = directory.deletingLastPathComponent()
        }
    }
    return URL(fileURLWithPath: "understudy")
}()

/// A running `understudy` process with its output captured. Standard error is read as it comes
/// (a server whose log filled an unread pipe would block on its next line).
public final class UnderstudyProcess {
    public let process = ChildProcess()
    private let stdout = childPipe()
    private let stderr = childPipe()
    private let errors = OutputCollector()

    public init(_ arguments: [String]) throws {
        process.executableURL = understudyBinary
        process.arguments = arguments
        process.standardOutput = stdout
        process.standardError = stderr
        try ProcessEnvironment.run(process)
        let (reading, errors) = (stderr.fileHandleForReading, errors)
        Thread.detachNewThread {
            while case let chunk = reading.readChunk(), !chunk.isEmpty { errors.append(chunk) }
            errors.end()
        }
    }

    /// The first line printed on standard output (what came of it, with an issue recorded, if it
    /// is not complete within `childProcessPatience`).
    public func firstLine(sourceLocation: SourceLocation = #_sourceLocation) -> String {
        let deadline = ContinuousClock.now + childProcessPatience
        var bytes: [UInt8] = []
        while true {
            guard let byte = stdout.fileHandleForReading.readChunk(upTo: 1, before: deadline) else {
                Issue.record(
                    "understudy \(process.arguments?.first ?? "") printed no whole line within \(childProcessPatience)",
                    sourceLocation: sourceLocation)
                break
            }
            if byte.isEmpty || byte.first == 10 { break }
            bytes += byte
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Everything printed on standard output, once the process has closed it.
    public func allOutput(sourceLocation: SourceLocation = #_sourceLocation) -> String {
        String(decoding: stdout.fileHandleForReading.readToEndOfStream(sourceLocation: sourceLocation), as: UTF8.self)
    }

    /// The first line printed on standard error that contains `text` ("" if none does before the
    /// process ends, or within `childProcessPatience`, then with an issue recorded).
    public func errorLine(containing text: String, sourceLocation: SourceLocation = #_sourceLocation) -> String {
        errors.firstLine(containing: text, before: Date.now + childProcessPatience.seconds, sourceLocation: sourceLocation)
    }

    /// Waits for exit; the status and everything printed on standard error. A process that has
    /// not ended within `childProcessPatience` is killed, with an issue recorded.
    public func finish(sourceLocation: SourceLocation = #_sourceLocation) -> (status: Int32, stderr: String) {
        let deadline = ContinuousClock.now + childProcessPatience
        process.waitUntilExit(before: deadline, sourceLocation: sourceLocation)
        // Its standard error ends with it (a pipe no other child inherits).
        let text = errors.all(before: Date.now + 10, sourceLocation: sourceLocation)
        return (process.terminationStatus, text)
    }

    /// Sends `signal` while the process runs (never to a pid it has left, which may be another's now).
    public func signal(_ signal: Int32) {
        if process.isRunning { kill(process.processIdentifier, signal) }
    }

    /// A process its test left running (it threw before stopping it) is killed and reaped: a live
    /// server would hold its port and threads to the end of the run, and an unreaped one keeps Swift
    /// Testing's child-process monitor busy.
    deinit {
        if process.isRunning {
            kill(-process.processIdentifier, SIGKILL)
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }
}

/// Text a process writes, gathered by a reading thread; readers wait for what they need.
public final class OutputCollector: @unchecked Sendable {
    private let condition = NSCondition()
    private var text = ""
    private var ended = false

    public func append(_ data: Data) {
        condition.withLock { text += String(decoding: data, as: UTF8.self) }
        condition.broadcast()
    }

    public func end() {
        condition.withLock { ended = true }
        condition.broadcast()
    }

    public func firstLine(containing part: String, before deadline: Date, sourceLocation: SourceLocation) -> String {
        let found: String? = condition.withLock {
            while true {
                let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
                if let line = lines.dropLast().first(where: { $0.contains(part) }) { return String(line) }
                if ended { return "" }
                if !condition.wait(until: deadline) { return nil }
            }
        }
        guard let found else {
            Issue.record("no line containing \"\(part)\" on standard error within the test's patience", sourceLocation: sourceLocation)
            return ""
        }
        return found
    }

    /// Everything, once the process has closed its end (what came, with an issue recorded, if it
    /// has not by `deadline`).
    public func all(before deadline: Date, sourceLocation: SourceLocation) -> String {
        let gathered: (text: String, complete: Bool) = condition.withLock {
            while !ended {
                if !condition.wait(until: deadline) { return (text, false) }
            }
            return (text, true)
        }
        if !gathered.complete { Issue.record("standard error had not ended within the test's patience", sourceLocation: sourceLocation) }
        return gathered.text
    }
}
