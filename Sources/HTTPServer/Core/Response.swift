import Synchronization

/// An HTTP response to send. `Date` and `Content-Length` are added by the server when absent.
public struct Response: Sendable {
    public var status: Int
    /// Reason phrase override; nil sends the standard one for `status`.
    public var reason: String?
    public var headers: HTTPHeaders
    public var body: ResponseBody

    public init(status: Int = 200, reason: String? = nil, headers: HTTPHeaders = [:], body: ResponseBody = ResponseBody()) {
        self.status = status
        self.reason = reason
        self.headers = headers
        self.body = body
    }

    /// A `text/plain; charset=utf-8` response.
    public static func text(_ text: String, status: Int = 200) -> Response {
        Response(status: status, headers: ["Content-Type": "text/plain; charset=utf-8"], body: ResponseBody(text))
    }

    /// An `application/json` response from already serialised JSON.
    public static func json(_ json: String, status: Int = 200) -> Response {
        Response(status: status, headers: ["Content-Type": "application/json"], body: ResponseBody(json))
    }

    /// Whether a response with this status may carry a body (RFC 9110: not 1xx, 204, 304).
    public static func statusAllowsBody(_ status: Int) -> Bool {
        !(100..<200).contains(status) && status != 204 && status != 304
    }
}

/// Response body bytes: owned bytes (copied into the socket buffer), a `SharedBytes` buffer
/// handed to libevent by reference (fixtures served many times), or a `FileBody` (an answer too
/// large to hold in memory, sent from its file).
public struct ResponseBody: Sendable {
    enum Storage: Sendable {
        case bytes([UInt8])
        case shared(SharedBytes)
        case file(FileBody)
    }

    var storage: Storage

    public init() { storage = .bytes([]) }
    public init(_ bytes: [UInt8]) { storage = .bytes(bytes) }
    public init(_ text: String) { storage = .bytes(Array(text.utf8)) }
    public init(shared: SharedBytes) { storage = .shared(shared) }
    public init(file: FileBody) { storage = .file(file) }

    /// The file the body is in, when it is in one.
    public var file: FileBody? {
        if case .file(let file) = storage { return file }
        return nil
    }

    public var count: Int {
        switch storage {
        case .bytes(let bytes): bytes.count
        case .shared(let shared): shared.count
        case .file(let file): file.count
        }
    }

    public var isEmpty: Bool { count == 0 }

    /// The shared buffer the body is, when it is one.
    public var sharedBytes: SharedBytes? {
        if case .shared(let shared) = storage { return shared }
        return nil
    }

    /// The first `count` bytes, as a body of its own.
    public func prefix(_ count: Int) -> ResponseBody {
        switch storage {
        case .bytes(let bytes): ResponseBody(Array(bytes.prefix(count)))
        case .shared(let shared): ResponseBody(Array(shared.buffer.prefix(count)))
        case .file(let file): ResponseBody(file.read(at: 0, count: min(count, file.count)))
        }
    }

    /// `count` in decimal, for Content-Length (made once for shared bodies).
    var countText: String {
        switch storage {
        case .bytes(let bytes): String(bytes.count)
        case .shared(let shared): shared.countText
        case .file(let file): String(file.count)
        }
    }

    /// A copy of the bytes (for a file body, all of the file read into memory).
    public var bytes: [UInt8] {
        switch storage {
        case .bytes(let bytes): bytes
        case .shared(let shared): Array(shared.buffer)
        case .file(let file): file.read(at: 0, count: file.count)
        }
    }

    public var text: String { String(decoding: bytes, as: UTF8.self) }
}

/// Immutable bytes in memory that never moves, so libevent can write them without a copy.
public final class SharedBytes: Sendable {
    nonisolated(unsafe) let base: UnsafeMutableRawPointer
    public let count: Int
    let countText: String
    /// How many entries of a byte-budgeted store (the request journal) hold this buffer: the first
    /// to take it counts its bytes, so a fixture answered a thousand times costs its size once.
    public let budgetedHolds = Atomic<Int>(0)
    /// How many answers queued for clients hold this buffer (`UnsentBytes`): the first counts it.
    let unsentHolds = Atomic<Int>(0)

    public init(_ bytes: some Collection<UInt8>) {
        count = bytes.count
        countText = String(count)
        base = UnsafeMutableRawPointer.allocate(byteCount: max(count, 1), alignment: 16)
        let target = UnsafeMutableRawBufferPointer(start: base, count: count)
        // Contiguous bytes (an array: every answer made per request) with memcpy; copyBytes
        // from a collection goes byte by byte.
        if bytes.withContiguousStorageIfAvailable({ target.copyMemory(from: UnsafeRawBufferPointer($0)) }) == nil {
            target.copyBytes(from: bytes)
        }
    }

    public var buffer: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: base, count: count) }

    deinit { base.deallocate() }
}
