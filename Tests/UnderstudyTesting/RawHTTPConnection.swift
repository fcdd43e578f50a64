import Foundation
import HTTPServer

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A blocking TCP client speaking HTTP/1.1 by hand: malformed requests, pipelining, HEAD framing
/// and connection state, which URLSession cannot produce or hides.
public final class RawHTTPConnection {
    private let fd: Int32
    private var buffer: [UInt8] = []

    public struct Response {
        public var statusLine: String
        public var headers: [(name: String, value: String)]
        public var body: [UInt8]

        public var status: Int { Int(statusLine.split(separator: " ")[1]) ?? 0 }
        public var bodyText: String { String(decoding: body, as: UTF8.self) }
        public func header(_ name: String) -> String? {
            headers.first { $0.name.lowercased() == name.lowercased() }?.value
        }
    }

    public enum Failure: Error { case connect(String), closed, timeout, malformed(String) }

    /// `receiveBuffer` shrinks the socket's receive buffer, so that a large response stays in
    /// flight on the server's side until it is read.
    public init(host: String, port: Int, timeout: TimeInterval = 10, receiveBuffer: Int32? = nil) throws {
        try TestLane.allow("a connection to \(host):\(port) (RawHTTPConnection)")
        var hints = addrinfo()
        hints.ai_socktype = PortableSocket.streamType
        var result: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &result) == 0, let info = result else {
            throw Failure.connect("cannot resolve \(host)")
        }
        defer { freeaddrinfo(result) }
        fd = socket(info.pointee.ai_family, PortableSocket.streamType, 0)
        if var size = receiveBuffer {
            setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        guard fd >= 0, connect(fd, info.pointee.ai_addr, info.pointee.ai_addrlen) == 0 else {
            let reason = String(cString: strerror(errno))
            if fd >= 0 { close(fd) }
            throw Failure.connect(reason)
        }
        setReadTimeout(timeout)
        // A server that stops reading fails a send after `timeout` too, instead of holding the test.
        var sendLimit = timeval(tv_sec: Int(timeout), tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &sendLimit, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit { close(fd) }

    public func setReadTimeout(_ seconds: TimeInterval) {
        var value = timeval(tv_sec: Int(seconds), tv_usec: Int((seconds - seconds.rounded(.down)) * 1_000_000))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &value, socklen_t(MemoryLayout<timeval>.size))
    }

    public func send(_ text: String) throws { try send(Array(text.utf8)) }

    public func send(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { PortableSocket.send(fd, $0) }
            guard written > 0 else { throw Failure.closed }
            offset += written
        }
    }

    /// Closes the sending side: a server waiting for more of a request sees its end at once.
    public func finishSending() {
        shutdown(fd, Int32(SHUT_WR))
    }

    /// Reads more bytes; false at end of stream. Throws on timeout.
    private func fill() throws -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65536)
        var count: Int
        repeat { count = recv(fd, &chunk, chunk.count, 0) } while count < 0 && errno == EINTR
        if count > 0 {
            buffer += chunk[0..<count]
            return true
        }
        if count == 0 || errno == ECONNRESET { return false }
        throw Failure.timeout
    }

    /// Reads one response. `expectBody: false` for a response to HEAD.
    public func readResponse(expectBody: Bool = true) throws -> Response {
        var headerEnd: Int?
        while headerEnd == nil {
            headerEnd = buffer.indices.dropLast(3).first {
                buffer[$0] == 13 && buffer[$0 + 1] == 10 && buffer[$0 + 2] == 13 && buffer[$0 + 3] == 10
            }
            if headerEnd == nil, try !fill() { throw Failure.closed }
        }
        let head = String(decoding: buffer[..<headerEnd!], as: UTF8.self)
        buffer.removeFirst(headerEnd! + 4)
        var lines = head.components(separatedBy: "\r\n")
        let statusLine = lines.removeFirst()
        let headers = lines.compactMap { line -> (String, String)? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        var response = Response(statusLine: statusLine, headers: headers, body: [])
        if expectBody, let length = response.header("Content-Length").flatMap(Int.init) {
            while buffer.count < length {
                if try !fill() { throw Failure.closed }
            }
            response.body = Array(buffer[..<length])
            buffer.removeFirst(length)
        }
        return response
    }

    /// What is buffered, or else what arrives next (at least a byte); throws at the read timeout
    /// or the end of the stream.
    public func receiveBytes() throws -> [UInt8] {
        if buffer.isEmpty, try !fill() { throw Failure.closed }
        defer { buffer.removeAll() }
        return buffer
    }

    /// Bytes received beyond the responses read so far (waits up to `seconds` for more).
    public func pendingBytes(waiting seconds: TimeInterval) -> [UInt8] {
        setReadTimeout(seconds)
        _ = try? fill()
        return buffer
    }

    /// How a connection ended.
    public enum Ending: Equatable { case closed, reset, stillOpen }

    /// Reads everything until the server closes the connection (or `seconds` pass without it):
    /// the bytes, and whether it closed normally or with a reset.
    public func readUntilClosed(within seconds: TimeInterval) -> (bytes: [UInt8], ending: Ending) {
        setReadTimeout(seconds)
        while true {
            var chunk = [UInt8](repeating: 0, count: 65536)
            let count = recv(fd, &chunk, chunk.count, 0)
            if count > 0 {
                buffer += chunk[0..<count]
            } else if count == 0 {
                return (buffer, .closed)
            } else {
                return (buffer, errno == ECONNRESET ? .reset : .stillOpen)
            }
        }
    }

    /// True when the server closes the connection within `seconds`.
    public func isClosedByPeer(within seconds: TimeInterval) -> Bool {
        setReadTimeout(seconds)
        while true {
            do {
                if try !fill() { return true }
            } catch {
                return false
            }
        }
    }
}
