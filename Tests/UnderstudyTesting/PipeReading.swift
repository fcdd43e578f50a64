import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

#if canImport(Glibc)
private let systemRead = Glibc.read
#elseif canImport(Darwin)
private let systemRead = Darwin.read
#endif

/// Reading a child process's pipe in tests without Foundation's trapping reads: `availableData`,
/// `readData(ofLength:)` and `readDataToEndOfFile()` end the process on any error, and a read
/// interrupted by a signal (EINTR, e.g. while another test runs a child process) is one. These
/// read the descriptor directly and try again when interrupted.
extension FileHandle {
    /// Up to `count` bytes as they arrive; empty at the end of the stream (or on an error).
    public func readChunk(upTo count: Int = 65_536) -> Data {
        var buffer = [UInt8](repeating: 0, count: count)
        while true {
            let descriptor = fileDescriptor
            let got = buffer.withUnsafeMutableBytes { systemRead(descriptor, $0.baseAddress, count) }
            if got >= 0 { return Data(buffer.prefix(got)) }
            if errno != EINTR { return Data() }
        }
    }

    /// Like `readChunk(upTo:)`, waiting for data only until `deadline`: nil if none came by then.
    public func readChunk(upTo count: Int = 65_536, before deadline: ContinuousClock.Instant) -> Data? {
        var waiting = pollfd(fd: fileDescriptor, events: Int16(POLLIN), revents: 0)
        while true {
            let left = ContinuousClock.now.duration(to: deadline)
            guard left > .zero else { return nil }
            let milliseconds = left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000 + 1
            let ready = poll(&waiting, 1, Int32(clamping: milliseconds))
            if ready > 0 { return readChunk(upTo: count) }
            if ready < 0, errno != EINTR { return Data() }
        }
    }

    /// Everything until the end of the stream, or what came before `deadline` (then also `false`).
    public func readToEndOfStream(before deadline: ContinuousClock.Instant) -> (data: Data, ended: Bool) {
        var all = Data()
        while true {
            guard let chunk = readChunk(before: deadline) else { return (all, false) }
            if chunk.isEmpty { return (all, true) }
            all.append(chunk)
        }
    }

    /// Everything until the end of the stream, for at most `childProcessPatience`; past it, an
    /// issue is recorded and what came is returned.
    public func readToEndOfStream(within limit: Duration = childProcessPatience, sourceLocation: SourceLocation = #_sourceLocation) -> Data {
        let (data, ended) = readToEndOfStream(before: .now + limit)
        if !ended { Issue.record("the stream had not ended when the test's patience ran out", sourceLocation: sourceLocation) }
        return data
    }
}

/// A pipe for a child process's output that no other child inherits. Tests start processes
/// concurrently; a pipe's write end inherited by another test's server keeps the stream open after
/// its own process has exited, and a reader waiting for its end waits for that other server. The
/// child it is given to still gets it: dup2 onto its standard streams clears close-on-exec.
public func childPipe() -> Pipe {
    let pipe = Pipe()
    for descriptor in [pipe.fileHandleForReading.fileDescriptor, pipe.fileHandleForWriting.fileDescriptor] {
        _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
    }
    return pipe
}
