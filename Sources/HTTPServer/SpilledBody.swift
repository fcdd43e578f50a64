import CLibevent
import Dispatch

/// A response body too large to hold in memory, written as it arrives to a temporary file. The
/// writes run on a serial queue, never on the event loop; each takes over a libevent buffer the
/// loop hands it, so no thread touches a buffer another one holds.
final class SpilledBody: @unchecked Sendable {
    /// Only touched on `queue`.
    private let file: TemporaryFile

    private static let queue = DispatchQueue(label: "understudy.outbound-spill")

    /// nil when no file can be made in `directory`.
    init?(directory: String) {
        guard let file = TemporaryFile(directory: directory) else { return nil }
        self.file = file
    }

    /// Moves everything in `source` to the end of the file (written later, in order).
    func append(movingFrom source: OpaquePointer) {
        guard let handed = evbuffer_new() else {
            return Self.queue.async { [self] in file.fail("out of memory") }
        }
        evbuffer_add_buffer(handed, source)
        let buffer = UnsafeSendablePointer(pointer: handed)
        Self.queue.async { [self] in
            file.append(movingFrom: buffer.pointer)
            evbuffer_free(buffer.pointer)
        }
    }

    /// Once every write is done, the file as a body, or why it could not be written; `result`
    /// runs on the writer's queue.
    func finish(_ result: @escaping @Sendable (Result<FileBody, SpillError>) -> Void) {
        Self.queue.async { [self] in
            if let failure = file.failure { return result(.failure(SpillError(description: failure))) }
            guard let body = file.body else { return result(.failure(SpillError(description: "cannot reopen the file"))) }
            result(.success(body))
        }
    }
}

struct SpillError: Error, CustomStringConvertible {
    let description: String
}
