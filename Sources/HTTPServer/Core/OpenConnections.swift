#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The connections this process holds open on each of its listening ports, counted from the
/// descriptor table when asked. evhttp keeps no public count, and counting as connections open
/// and close would put work on every connection; a scan costs only the one who asks (the metrics).
public enum OpenConnections {
    /// Every TCP port this process listens on, with the accepted connections open on it.
    /// A connection the process opened itself (to an upstream, even to its own port) has an
    /// ephemeral local port, so it is not counted.
    public static func byListeningPort() -> [UInt16: Int] {
        var listening: Set<UInt16> = []
        var connected: [UInt16: Int] = [:]
        for fd in openDescriptors() {
            guard let socket = streamSocket(fd) else { continue }
            if socket.isListening {
                listening.insert(socket.localPort)
            } else {
                connected[socket.localPort, default: 0] += 1
            }
        }
        return Dictionary(uniqueKeysWithValues: listening.map { ($0, connected[$0] ?? 0) })
    }

    /// The local port of `fd` if it is a TCP socket (IPv4 or IPv6), and whether it listens.
    private static func streamSocket(_ fd: Int32) -> (localPort: UInt16, isListening: Bool)? {
        var type: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &length) == 0, type == PortableSocket.streamType else { return nil }
        guard let address = SocketAddress.local(of: fd), address.family == AF_INET || address.family == AF_INET6 else { return nil }
        var accepting: Int32 = 0
        length = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &accepting, &length) == 0 else { return nil }
        return (UInt16(truncatingIfNeeded: address.port), accepting != 0)
    }

    /// The descriptors open now: /proc/self/fd where there is one, else every number below the
    /// table's size that is open.
    private static func openDescriptors() -> [Int32] {
        if let directory = opendir("/proc/self/fd") {
            defer { closedir(directory) }
            let own = dirfd(directory)
            var descriptors: [Int32] = []
            while let entry = readdir(directory) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
                if let fd = Int32(name), fd != own { descriptors.append(fd) }
            }
            return descriptors
        }
        return (0..<getdtablesize()).filter { fcntl($0, F_GETFD) != -1 }
    }
}
