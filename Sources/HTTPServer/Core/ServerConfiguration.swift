/// How the server listens and what it tolerates. Every limit has a finite default: libevent's
/// own defaults are "unlimited", which a server on a shared CI machine should not be.
public struct ServerConfiguration: Sendable {
    /// Address to bind: a numeric IPv4/IPv6 address or a host name (first address wins).
    public var host: String = "127.0.0.1"
    /// 0 binds a free port; every worker then joins the port the first one got.
    public var port: Int = 8080
    /// Worker threads, each with its own event loop and listening socket.
    public var threads: Int = max(1, System.coreCount)
    /// Largest request body accepted; larger ones get 413.
    public var maxBodySize: Int = 16 * 1024 * 1024
    /// Largest request line plus headers accepted; larger ones get 400.
    public var maxHeaderSize: Int = 64 * 1024
    /// A connection idle (or stalled mid-request) this long is closed.
    public var idleTimeout: Duration = .seconds(60)
    /// How listening sockets are laid out across workers.
    public var socketLayout: SocketLayout = .reusePort
    /// Bytes of answers in memory (a shared buffer once) that may wait, across the server, for
    /// clients that do not read them; past it, large answers get 503.
    public var maxUnsentBytes: Int = 256 * 1024 * 1024
    /// Largest WebSocket message a client may send (its fragments summed); past it the channel
    /// closes with 1009.
    public var maxMessageBytes: Int = 1024 * 1024
    /// Serve `https://` with this certificate and key instead of plain HTTP.
    public var tls: TLSServerSettings?
    /// A TLS handshake not finished this long after its connection began is ended, however
    /// steadily the client dribbles bytes (each restarts `idleTimeout`).
    public var tlsHandshakeTimeout: Duration = .seconds(10)

    public init() {}

    public enum SocketLayout: Sendable {
        /// One `SO_REUSEPORT` socket per worker: the kernel spreads connections. Falls back to
        /// `.shared` where the option is missing.
        case reusePort
        /// One socket that every worker accepts on.
        case shared
    }
}

public enum System {
    /// Cores this process may run on.
    public static var coreCount: Int { Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))) }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
