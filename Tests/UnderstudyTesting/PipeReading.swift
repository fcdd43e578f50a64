import Foundation

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

    /// Everything until the end of the stream.
    public func readToEndOfStream() -> Data {
        var all = Data()
        while case let chunk = readChunk(), !chunk.isEmpty { all.append(chunk) }
        return all
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
