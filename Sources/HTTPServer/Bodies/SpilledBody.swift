import CLibevent
import Dispatch

/// A response body too large to hold in memory, written as it arrives to a temporary file. The
/// writes run on a serial queue, never on the event loop; each takes over a libevent buffer the
/// loop hands it, so no thread touches a buffer another one holds.
///
/// When a write fails (the disk is full), the body goes on in memory instead: what the file
/// holds is read back and every later piece is kept, so the client still gets the whole answer,
/// only not from a file.
final class SpilledBody: @unchecked Sendable {
    /// The rest is only touched on `queue`.
    private let file: TemporaryFile
    /// The body once the file failed: its bytes read back, then the pieces after them.
    private var memory: OpaquePointer?
    /// Why the file was given up for memory.
    private var fallback: String?
    /// Bytes were lost (no buffer could be made): the body cannot be completed.
    private var lost: String?

    private static let queue = DispatchQueue(label: "understudy.outbound-spill")

    /// nil when no file can be made in `directory`. `capacity`: bytes the file may take before
    /// a write fails as on a full disk (tests).
    init?(directory: String, capacity: Int? = nil) {
        guard let file = TemporaryFile(directory: directory) else { return nil }
        if let capacity { file.capacity = capacity }
        self.file = file
    }

    deinit { if let memory { evbuffer_free(memory) } }

    /// Moves everything in `source` to the end of the file (written later, in order).
    func append(movingFrom source: OpaquePointer) {
        guard let handed = evbuffer_new() else {
            return Self.queue.async { [self] in if lost == nil { lost = "out of memory" } }
        }
        evbuffer_add_buffer(handed, source)
        // Only the queue touches the buffer from here on.
        let buffer = UnsafeTransfer(handed)
        Self.queue.async { [self] in
            write(movingFrom: buffer.wrappedValue)
            evbuffer_free(buffer.wrappedValue)
        }
    }

    /// On the queue: to the file while it takes the bytes, else to memory.
    private func write(movingFrom buffer: OpaquePointer) {
        if memory == nil {
            // A failed write leaves what it could not write in `buffer`.
            file.append(movingFrom: buffer)
            guard let failure = file.failure else { return }
            guard let memory = evbuffer_new(), readBack(into: memory) else {
                if lost == nil { lost = "\(failure), and the part written cannot be read back" }
                return
            }
            self.memory = memory
            fallback = failure
        }
        if let memory { evbuffer_add_buffer(memory, buffer) }
    }

    /// Copies what the file holds into `memory`; false when it cannot all be read.
    private func readBack(into memory: OpaquePointer) -> Bool {
        guard let written = file.body else { return false }
        var copied = 0
        written.forEachChunk { piece in
            piece.withUnsafeBytes { _ = evbuffer_add(memory, $0.baseAddress, $0.count) }
            copied += piece.count
        }
        return copied == written.count
    }

    /// What a spilled body became: its file, or (the file failed) the bytes and why.
    enum Stored: Sendable {
        case file(FileBody)
        case memory([UInt8], reason: String)
    }

    /// Once every write is done, the body, or why it could not be kept; `result` runs on the
    /// writer's queue.
    func finish(_ result: @escaping @Sendable (Result<Stored, SpillError>) -> Void) {
        Self.queue.async { [self] in
            if let lost { return result(.failure(SpillError(description: lost))) }
            if let memory, let fallback { return result(.success(.memory([UInt8](evbuffer: memory), reason: fallback))) }
            guard let body = file.body else { return result(.failure(SpillError(description: "cannot reopen the file"))) }
            result(.success(.file(body)))
        }
    }
}

struct SpillError: Error, CustomStringConvertible {
    let description: String
}
