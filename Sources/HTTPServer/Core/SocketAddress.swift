import CLibevent

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An IPv4 or IPv6 socket address.
public struct SocketAddress: Sendable, CustomStringConvertible {
    var storage: sockaddr_storage
    var length: socklen_t

    /// Resolves `host` (numeric or a name) for a passive (listening) socket on `port`.
    static func resolve(host: String, port: Int) throws -> SocketAddress {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = PortableSocket.streamType
        hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV
        var result: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &result)
        guard status == 0, let first = result else {
            throw ServerError.cannotResolve(host: host, reason: String(cString: gai_strerror(status)))
        }
        defer { freeaddrinfo(result) }
        var address = SocketAddress(storage: sockaddr_storage(), length: first.pointee.ai_addrlen)
        withUnsafeMutableBytes(of: &address.storage) { target in
            target.copyMemory(from: UnsafeRawBufferPointer(start: first.pointee.ai_addr, count: Int(first.pointee.ai_addrlen)))
        }
        return address
    }

    /// The address a bound socket actually has (its port, after binding port 0).
    static func local(of fd: Int32) -> SocketAddress? {
        var address = SocketAddress(storage: sockaddr_storage(), length: socklen_t(MemoryLayout<sockaddr_storage>.size))
        let status = withUnsafeMutablePointer(to: &address.storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &address.length) }
        }
        return status == 0 ? address : nil
    }

    /// The address a connected socket's other end has.
    static func peer(of fd: Int32) -> SocketAddress? {
        var address = SocketAddress(storage: sockaddr_storage(), length: socklen_t(MemoryLayout<sockaddr_storage>.size))
        let status = withUnsafeMutablePointer(to: &address.storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getpeername(fd, $0, &address.length) }
        }
        return status == 0 ? address : nil
    }

    var family: Int32 { Int32(storage.ss_family) }
    public var isIPv6: Bool { family == AF_INET6 }

    public var port: Int {
        withUnsafeBytes(of: storage) { raw in
            isIPv6
                ? Int(UInt16(bigEndian: raw.load(as: sockaddr_in6.self).sin6_port))
                : Int(UInt16(bigEndian: raw.load(as: sockaddr_in.self).sin_port))
        }
    }

    /// `host` without brackets when it is an IPv4 or IPv6 address literal (`127.0.0.1`, `[::1]`),
    /// nil for a name — `cafe.de` included, though it is all hex digits and dots.
    static func ipLiteral(_ host: String) -> String? {
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        var buffer = in6_addr()
        let isAddress = inet_pton(AF_INET, bare, &buffer) == 1 || inet_pton(AF_INET6, bare, &buffer) == 1
        return isAddress ? bare : nil
    }

    /// The numeric host, e.g. `127.0.0.1` or `::1`.
    public var host: String {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        withUnsafeBytes(of: storage) { raw in
            if isIPv6 {
                var address = raw.load(as: sockaddr_in6.self).sin6_addr
                _ = inet_ntop(AF_INET6, &address, &buffer, socklen_t(buffer.count))
            } else {
                var address = raw.load(as: sockaddr_in.self).sin_addr
                _ = inet_ntop(AF_INET, &address, &buffer, socklen_t(buffer.count))
            }
        }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// `host:port`, with IPv6 hosts in brackets, as a URL authority.
    public var description: String { isIPv6 ? "[\(host)]:\(port)" : "\(host):\(port)" }

    /// The authority a client on this machine reaches a listener at: the loopback address for a
    /// listener on every address (`0.0.0.0`, `::`).
    var localAuthority: String {
        switch host {
        case "0.0.0.0": "127.0.0.1:\(port)"
        case "::": "[::1]:\(port)"
        default: description
        }
    }

    func withSockaddr<T>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> T) -> T {
        withUnsafePointer(to: storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, length) }
        }
    }

    func withPort(_ port: Int) -> SocketAddress {
        var copy = self
        withUnsafeMutableBytes(of: &copy.storage) { raw in
            if isIPv6 {
                raw.storeBytes(
                    of: in_port_t(UInt16(port).bigEndian), toByteOffset: MemoryLayout<sockaddr_in6>.offset(of: \.sin6_port)!, as: in_port_t.self)
            } else {
                raw.storeBytes(
                    of: in_port_t(UInt16(port).bigEndian), toByteOffset: MemoryLayout<sockaddr_in>.offset(of: \.sin_port)!, as: in_port_t.self)
            }
        }
        return copy
    }
}

/// Creates listening TCP sockets.
enum ListeningSocket {
    static let backlog: Int32 = 1024

    /// A bound, listening, non-blocking socket. With `reusePort`, several may share one port.
    /// Throws `socketFailed(operation: "SO_REUSEPORT", …)` when the platform lacks the option, so
    /// the caller can fall back to one shared socket.
    static func open(_ address: SocketAddress, reusePort: Bool) throws -> Int32 {
        let fd = socket(address.family, PortableSocket.streamType, 0)
        guard fd >= 0 else { throw ServerError.socketFailed(operation: "socket", reason: errnoText()) }
        do {
            try setOption(fd, SOL_SOCKET, SO_REUSEADDR, "SO_REUSEADDR")
            if reusePort { try setOption(fd, SOL_SOCKET, SO_REUSEPORT, "SO_REUSEPORT") }
            // Accepted sockets inherit TCP_NODELAY on Linux: dribbled or streamed bodies leave at once.
            try setOption(fd, Int32(IPPROTO_TCP), TCP_NODELAY, "TCP_NODELAY")
            let bound = address.withSockaddr { bind(fd, $0, $1) }
            guard bound == 0 else {
                throw ServerError.cannotBind(address: address.host, port: address.port, reason: errnoText())
            }
            guard listen(fd, backlog) == 0 else {
                throw ServerError.cannotBind(address: address.host, port: address.port, reason: errnoText())
            }
            guard evutil_make_socket_nonblocking(fd) == 0, evutil_make_socket_closeonexec(fd) == 0 else {
                throw ServerError.socketFailed(operation: "fcntl", reason: errnoText())
            }
            return fd
        } catch {
            close(fd)
            throw error
        }
    }

    /// Fails with `cannotBind` when something already listens on `address`. Needed before
    /// joining an `SO_REUSEPORT` group: another process of the same user that also sets the option
    /// would otherwise share the port silently (two `make run`s splitting the requests between them).
    static func checkAvailable(_ address: SocketAddress) throws {
        close(try open(address, reusePort: false))
    }

    private static func setOption(_ fd: Int32, _ level: Int32, _ option: Int32, _ name: String) throws {
        var on: Int32 = 1
        guard setsockopt(fd, level, option, &on, socklen_t(MemoryLayout<Int32>.size)) == 0 else {
            throw ServerError.socketFailed(operation: name, reason: errnoText())
        }
    }
}

func errnoText() -> String { String(cString: strerror(errno)) }

/// Socket calls whose spelling differs between Glibc and Darwin.
public enum PortableSocket {
    /// `SOCK_STREAM` as `socket()` takes it: an enum case on Glibc, a plain number on Darwin.
    public static let streamType: Int32 = {
        #if canImport(Glibc)
        Int32(SOCK_STREAM.rawValue)
        #else
        SOCK_STREAM
        #endif
    }()

    /// `send` without SIGPIPE on Linux (Darwin has no MSG_NOSIGNAL: the server ignores SIGPIPE).
    public static func send(_ socket: Int32, _ bytes: UnsafeRawBufferPointer) -> Int {
        #if canImport(Glibc)
        Glibc.send(socket, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL))
        #else
        Darwin.send(socket, bytes.baseAddress, bytes.count, 0)
        #endif
    }
}
