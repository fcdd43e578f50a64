import Foundation

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

    /// The first line printed on standard output.
    public func firstLine() -> String {
        var bytes: [UInt8] = []
        while true {
            let byte = stdout.fileHandleForReading.readChunk(upTo: 1)
            if byte.isEmpty || byte.first == 10 { break }
            bytes += byte
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Everything printed on standard output, once the process has closed it.
    public func allOutput() -> String { String(decoding: stdout.fileHandleForReading.readToEndOfStream(), as: UTF8.self) }

    /// The first line printed on standard error that contains `text` (or "" if none ever does).
    public func errorLine(containing text: String) -> String { errors.firstLine(containing: text) }

    /// Waits for exit; the status and everything printed on standard error.
    public func finish() -> (status: Int32, stderr: String) {
        let text = errors.all()
        process.waitUntilExit()
        return (process.terminationStatus, text)
    }

    public func signal(_ signal: Int32) { kill(process.processIdentifier, signal) }
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

    public func firstLine(containing part: String) -> String {
        condition.withLock {
            while true {
                let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
                if let line = lines.dropLast().first(where: { $0.contains(part) }) { return String(line) }
                if ended { return "" }
                condition.wait()
            }
        }
    }

    /// Everything, once the process has closed its end.
    public func all() -> String {
        condition.withLock {
            while !ended { condition.wait() }
            return text
        }
    }
}
