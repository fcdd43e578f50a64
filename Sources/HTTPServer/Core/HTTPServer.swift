// Module HTTPServer: a fast HTTP/1.1 server on libevent's evhttp — worker loops, the Request and
// Response values, timers, and an outbound client for proxying. It knows nothing of stubs or
// emulators; MockCore's Router is the handler that does.

import CLibevent
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A multi-threaded HTTP/1.1 server on libevent's evhttp: one event loop per worker thread, each
/// accepting on its own `SO_REUSEPORT` socket (or all on one shared socket), every request handed
/// to one `HTTPHandler`.
public final class HTTPServer: Sendable {
    public let configuration: ServerConfiguration
    /// The address the server listens on (its real port when configured with port 0).
    public let address: SocketAddress
    public let loops: [EventLoop]
    /// Whether the workers ended up on one shared socket (configured, or `SO_REUSEPORT` missing).
    public let sharesOneSocket: Bool
    private let sharedSocket: Int32?
    private let joined = Atomic(false)

    /// Binds, starts the worker threads, and returns once every worker is accepting.
    public static func start(configuration: ServerConfiguration, handler: any HTTPHandler) throws -> HTTPServer {
        // libevent writes with writev(): a client that resets would otherwise kill the process.
        signal(SIGPIPE, SIG_IGN)
        DescriptorLimit.raiseToHardLimit()
        let requested = try SocketAddress.resolve(host: configuration.host, port: configuration.port)
        let threads = max(1, configuration.threads)
        var sockets: [Int32] = []
        var shared: Int32?
        var address = requested
        do {
            if configuration.socketLayout == .reusePort {
                if requested.port != 0 { try ListeningSocket.checkAvailable(requested) }
                do {
                    let first = try ListeningSocket.open(requested, reusePort: true)
                    sockets.append(first)
                    address = SocketAddress.local(of: first) ?? requested
                    for _ in 1..<threads {
                        sockets.append(try ListeningSocket.open(address, reusePort: true))
                    }
                } catch ServerError.socketFailed(operation: "SO_REUSEPORT", _) {
                    sockets.forEach { _ = close($0) }
                    sockets = []
                }
            }
            if sockets.isEmpty {
                let fd = try ListeningSocket.open(requested, reusePort: false)
                shared = fd
                address = SocketAddress.local(of: fd) ?? requested
                sockets = Array(repeating: fd, count: threads)
            }
        } catch {
            sockets.forEach { _ = close($0) }
            throw error
        }

        var loops: [EventLoop] = []
        do {
            for (index, fd) in sockets.enumerated() {
                loops.append(
                    try EventLoop(
                        index: index, configuration: configuration, handler: handler, listeningSocket: fd,
                        ownsSocket: shared == nil, localPort: address.port, localAuthority: address.localAuthority))
            }
            for loop in loops { try loop.startThread() }
        } catch {
            if loops.isEmpty { sockets.forEach { _ = close($0) } }
            throw error
        }
        return HTTPServer(configuration: configuration, address: address, loops: loops, sharedSocket: shared)
    }

    private init(configuration: ServerConfiguration, address: SocketAddress, loops: [EventLoop], sharedSocket: Int32?) {
        self.configuration = configuration
        self.address = address
        self.loops = loops
        self.sharedSocket = sharedSocket
        self.sharesOneSocket = sharedSocket != nil
    }

    /// `http://host:port` of the listening address.
    public var baseURL: String { (configuration.tls == nil ? "http://" : "https://") + "\(address)" }

    /// Stops accepting at once; replies in progress (delayed ones included) get up to
    /// `gracePeriod` to finish, and go out with `Connection: close`. Safe from any thread;
    /// `wait()` returns when every worker has stopped.
    public func shutdown(gracePeriod: Duration = .seconds(10)) {
        for loop in loops {
            loop.execute { loop.beginDraining(gracePeriod: gracePeriod) }
        }
    }

    /// Blocks until every worker has stopped (after `shutdown`).
    public func wait() {
        guard !joined.exchange(true, ordering: .acquiringAndReleasing) else { return }
        for loop in loops { loop.join() }
        if let sharedSocket { close(sharedSocket) }
    }
}
