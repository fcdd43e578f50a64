import CLibevent

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A body in a file, sent with `evbuffer_add_file` (sendfile or mmap) and read in pieces: it
/// takes no memory. Either an open descriptor (an unlinked temporary file, which then leaves
/// nothing behind whatever happens to the process) or a path opened when it is read (holding no
/// descriptor meanwhile).
public final class FileBody: Sendable {
    private enum Source {
        case descriptor(Int32)
        case path(String)
    }

    private let source: Source
    public let count: Int

    /// Takes ownership of `descriptor` (open for reading, holding `count` bytes from offset 0).
    public init(descriptor: Int32, count: Int) {
        source = .descriptor(descriptor)
        self.count = count
    }

    /// The first `count` bytes of the file at `path`.
    public init(path: String, count: Int) {
        source = .path(path)
        self.count = count
    }

    /// A descriptor of its own, or -1: the caller closes it.
    func openDescriptor() -> Int32 {
        switch source {
        case .descriptor(let descriptor): dup(descriptor)
        case .path(let path): open(path, O_RDONLY)
        }
    }

    /// Up to `count` bytes from `offset` (fewer at the end of the file).
    public func read(at offset: Int, count: Int) -> [UInt8] {
        let descriptor = openDescriptor()
        defer { if descriptor >= 0 { close(descriptor) } }
        return read(descriptor, at: offset, count: count)
    }

    private func read(_ descriptor: Int32, at offset: Int, count: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: max(0, min(count, self.count - offset)))
        var done = 0
        while descriptor >= 0, done < bytes.count {
            let got = bytes.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress! + done, $0.count - done, off_t(offset + done)) }
            if got <= 0 { break }
            done += got
        }
        return Array(bytes.prefix(done))
    }

    /// The bytes in pieces of `chunk` bytes, for reading a large body without holding it.
    public func forEachChunk(of chunk: Int = 256 * 1024, _ body: ([UInt8]) throws -> Void) rethrows {
        let descriptor = openDescriptor()
        defer { if descriptor >= 0 { close(descriptor) } }
        var offset = 0
        while offset < count {
            let piece = read(descriptor, at: offset, count: chunk)
            if piece.isEmpty { return }
            try body(piece)
            offset += piece.count
        }
    }

    deinit {
        if case .descriptor(let descriptor) = source { close(descriptor) }
    }
}

/// A new unlinked file, written in pieces, that becomes a `FileBody`.
public final class TemporaryFile {
    private let descriptor: Int32
    private var written = 0
    /// Why a write failed, if one did (later writes are skipped).
    public private(set) var failure: String?
    /// Bytes past this fail to write as on a full disk: lets tests reach that path.
    var capacity = Int.max

    public init?(directory: String) {
        var template = Array((directory + "/understudy-body-XXXXXX").utf8CString)
        descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard descriptor >= 0 else { return nil }
        template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
    }

    public func append(_ bytes: [UInt8]) {
        var done = 0
        while failure == nil, done < bytes.count {
            let count = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress! + done, $0.count - done) }
            if count > 0 { done += count } else if errno != EINTR { failure = String(cString: strerror(errno)) }
        }
        written += done
    }

    /// Moves everything in `buffer` to the file; after a failure, what was not written stays in
    /// `buffer`.
    func append(movingFrom buffer: OpaquePointer) {
        while failure == nil, evbuffer_get_length(buffer) > 0 {
            guard written < capacity else {
                failure = String(cString: strerror(ENOSPC))
                break
            }
            let count = evbuffer_write_atmost(buffer, descriptor, min(capacity - written, Int(evbuffer_get_length(buffer))))
            if count > 0 { written += Int(count) } else if errno != EINTR { failure = String(cString: strerror(errno)) }
        }
    }

    func fail(_ reason: String) {
        if failure == nil { failure = reason }
    }

    /// The file so far, as a body of its own (this handle may be dropped).
    public var body: FileBody? {
        let own = dup(descriptor)
        return own < 0 ? nil : FileBody(descriptor: own, count: written)
    }

    deinit { close(descriptor) }
}
