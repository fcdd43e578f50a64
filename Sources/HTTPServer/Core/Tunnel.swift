import CLibevent
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where a `CONNECT` tunnel leads.
public enum TunnelDestination: Sendable {
    /// Into this process's own TLS listener at `localPort`, which terminates TLS for `host`
    /// (`host:port` is what the client asked to reach): the decrypted requests are served here.
    case intercept(host: String, port: Int, localPort: Int)
    /// Into this process's own plain listener at `localPort` (a `ws://` or `http://` host on port
    /// 80, which Java's, Python's and browsers' clients reach through CONNECT): served here as if
    /// sent through the proxy directly.
    case relay(host: String, port: Int, localPort: Int)
    /// To the real `host:port`, bytes passed on untouched.
    case passThrough(host: String, port: Int)

    /// Whether the tunnel leads into this process (its requests are served here).
    var localPort: Int? {
        switch self {
        case .intercept(_, _, let port), .relay(_, _, let port): port
        case .passThrough: nil
        }
    }
}

/// What a TLS listener needs to know of a connection that a tunnel relays into it: the client
/// behind the relay and the host it asked for (for the certificate when the client sends no SNI,
/// and for the requests' `tunnelHost`). Keyed by the relay connection's local port, on loopback.
public enum TunnelRegistry {
    public struct Origin: Sendable {
        public var clientAddress: String
        public var clientPort: Int
        /// The host of the CONNECT (no port).
        public var host: String
        /// The state scope the CONNECT's proxy credentials named: every request inside is in it.
        public var scope: String?
    }

    private static let origins = Locked<[Int: Origin]>([:])
    /// How many tunnels lead into a plain listener now: while none does, a plain request from
    /// loopback is not looked up (the benchmarks' every request is one).
    static let plainRelays = Atomic(0)

    static func register(_ origin: Origin, relayPort: Int) { origins.withLock { $0[relayPort] = origin } }
    static func unregister(relayPort: Int) { _ = origins.withLock { $0.removeValue(forKey: relayPort) } }

    /// The origin of a connection from `remotePort` on loopback, if a tunnel made it.
    public static func origin(ofRelayPort remotePort: Int) -> Origin? { origins.withLock { $0[remotePort] } }
}

/// A `CONNECT` tunnel after the server has taken the client's socket from evhttp: it connects to
/// its destination, answers `200 Connection established`, then copies bytes both ways until
/// either side closes. Lives on its loop; keeps itself alive until it ends.
final class Tunnel {
    private let loop: EventLoop
    private let destination: TunnelDestination
    private let origin: TunnelRegistry.Origin
    private var client: OpaquePointer?
    private var upstream: OpaquePointer?
    private var relayPort: Int?
    /// The destination answered the connect, and the client had its 200.
    fileprivate private(set) var isConnected = false
    private var retained: Unmanaged<Tunnel>?
    /// Bytes waiting in one side's output past which reading the other side pauses.
    private static let highWater = 1 << 20

    /// Starts a tunnel on `socket` (the client's, now owned by the tunnel).
    @discardableResult
    static func start(loop: EventLoop, socket: Int32, origin: TunnelRegistry.Origin, destination: TunnelDestination) -> Tunnel? {
        _ = evutil_make_socket_nonblocking(socket)
        guard let client = bufferevent_socket_new(loop.base, socket, Int32(BEV_OPT_CLOSE_ON_FREE.rawValue)) else {
            close(socket)
            return nil
        }
        let tunnel = Tunnel(loop: loop, client: client, origin: origin, destination: destination)
        tunnel.retained = Unmanaged.passRetained(tunnel)
        loop.openTunnels[ObjectIdentifier(tunnel)] = tunnel
        tunnel.connect()
        return tunnel
    }

    private init(loop: EventLoop, client: OpaquePointer, origin: TunnelRegistry.Origin, destination: TunnelDestination) {
        self.loop = loop
        self.client = client
        self.origin = origin
        self.destination = destination
    }

    private var me: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }

    private func connect() {
        guard let upstream = bufferevent_socket_new(loop.base, -1, Int32(BEV_OPT_CLOSE_ON_FREE.rawValue)) else { return fail("out of memory") }
        self.upstream = upstream
        bufferevent_setcb(upstream, onUpstreamRead, onUpstreamWrite, onUpstreamEvent, me)
        // The client says nothing until it has its 200.
        bufferevent_setcb(client, onClientRead, onClientWrite, onClientEvent, me)
        var started: Int32
        switch destination {
        case .intercept(_, _, let localPort), .relay(_, _, let localPort):
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(localPort).bigEndian)
            address.sin_addr.s_addr = in_addr_t(UInt32(0x7F00_0001).bigEndian)
            started = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bufferevent_socket_connect(upstream, $0, Int32(MemoryLayout<sockaddr_in>.size))
                }
            }
        case .passThrough(let host, let port):
            started = bufferevent_socket_connect_hostname(upstream, loop.dns, AF_UNSPEC, host, Int32(port))
        }
        if started != 0 { fail("cannot connect") }
    }

    /// Connected: the relay's port is registered (before the client can send its first TLS
    /// byte), the client gets its 200, and bytes flow.
    fileprivate func upstreamConnected() {
        guard let client, let upstream else { return }
        isConnected = true
        if destination.localPort != nil, let port = SocketAddress.local(of: bufferevent_getfd(upstream))?.port {
            relayPort = port
            TunnelRegistry.register(origin, relayPort: port)
            if case .relay = destination { TunnelRegistry.plainRelays.add(1, ordering: .relaxed) }
        }
        let established = "HTTP/1.1 200 Connection established\r\n\r\n"
        _ = established.withCString { bufferevent_write(client, $0, strlen($0)) }
        // Idle as long as a connection may be (--idle-timeout), then closed like one.
        var idle = timeval(loop.idleTimeout)
        bufferevent_set_timeouts(client, &idle, &idle)
        bufferevent_set_timeouts(upstream, &idle, &idle)
        bufferevent_enable(client, Int16(EV_READ | EV_WRITE))
        bufferevent_enable(upstream, Int16(EV_READ | EV_WRITE))
    }

    /// Before the 200: the client is told why, and the tunnel ends.
    fileprivate func fail(_ reason: String) {
        if let client, !isConnected {
            let refusal =
                "HTTP/1.1 502 Bad Gateway\r\nContent-Type: text/plain\r\nContent-Length: \(reason.utf8.count + 1)\r\nConnection: close\r\n\r\n\(reason)\n"
            _ = refusal.withCString { bufferevent_write(client, $0, strlen($0)) }
            // Closed once the refusal is out.
            bufferevent_setcb(client, nil, onClientDrained, onClientEvent, me)
            bufferevent_enable(client, Int16(EV_WRITE))
            freeUpstream()
            return
        }
        end()
    }

    /// Moves what `from` has read to `to`, pausing `from` while `to` has too much to write.
    fileprivate func relay(from: OpaquePointer, to: OpaquePointer) {
        evbuffer_add_buffer(bufferevent_get_output(to), bufferevent_get_input(from))
        if evbuffer_get_length(bufferevent_get_output(to)) > Self.highWater {
            bufferevent_disable(from, Int16(EV_READ))
        }
    }

    /// `side` wrote its output down: the other side may read again.
    fileprivate func drained(_ side: OpaquePointer) {
        guard let other = side == client ? upstream : client else { return }
        if evbuffer_get_length(bufferevent_get_output(side)) <= Self.highWater / 2 {
            bufferevent_enable(other, Int16(EV_READ))
        }
        if closing, evbuffer_get_length(bufferevent_get_output(side)) == 0 { end() }
    }

    /// One side closed or failed: what the other side still has to write goes out, then both close.
    private var closing = false
    fileprivate func sideClosed(_ side: OpaquePointer) {
        guard let other = side == client ? upstream : client else { return end() }
        evbuffer_add_buffer(bufferevent_get_output(other), bufferevent_get_input(side))
        closing = true
        if evbuffer_get_length(bufferevent_get_output(other)) == 0 { end() }
    }

    private func freeUpstream() {
        if let relayPort {
            TunnelRegistry.unregister(relayPort: relayPort)
            if case .relay = destination { TunnelRegistry.plainRelays.subtract(1, ordering: .relaxed) }
        }
        relayPort = nil
        if let upstream { bufferevent_free(upstream) }
        upstream = nil
    }

    /// Both sockets closed; the loop forgets the tunnel.
    func end() {
        freeUpstream()
        if let client { bufferevent_free(client) }
        client = nil
        loop.openTunnels[ObjectIdentifier(self)] = nil
        retained?.release()
        retained = nil
    }

    fileprivate var clientSide: OpaquePointer? { client }
    fileprivate var upstreamSide: OpaquePointer? { upstream }
}

private func tunnel(_ arg: UnsafeMutableRawPointer?) -> Tunnel? {
    arg.map { Unmanaged<Tunnel>.fromOpaque($0).takeUnretainedValue() }
}

private func onClientRead(_ bev: OpaquePointer?, _ arg: UnsafeMutableRawPointer?) {
    guard let tunnel = tunnel(arg), let client = tunnel.clientSide, let upstream = tunnel.upstreamSide else { return }
    tunnel.relay(from: client, to: upstream)
}

private func onUpstreamRead(_ bev: OpaquePointer?, _ arg: UnsafeMutableRawPointer?) {
    guard let tunnel = tunnel(arg), let client = tunnel.clientSide, let upstream = tunnel.upstreamSide else { return }
    tunnel.relay(from: upstream, to: client)
}

private func onClientWrite(_ bev: OpaquePointer?, _ arg: UnsafeMutableRawPointer?) {
    guard let tunnel = tunnel(arg), let client = tunnel.clientSide else { return }
    tunnel.drained(client)
}

private func onUpstreamWrite(_ bev: OpaquePointer?, _ arg: UnsafeMutableRawPointer?) {
    guard let tunnel = tunnel(arg), let upstream = tunnel.upstreamSide else { return }
    tunnel.drained(upstream)
}

private func onClientDrained(_ bev: OpaquePointer?, _ arg: UnsafeMutableRawPointer?) {
    tunnel(arg)?.end()
}

private func onClientEvent(_ bev: OpaquePointer?, _ what: Int16, _ arg: UnsafeMutableRawPointer?) {
    guard let tunnel = tunnel(arg), let client = tunnel.clientSide else { return }
    if what & Int16(BEV_EVENT_EOF | BEV_EVENT_ERROR | BEV_EVENT_TIMEOUT) != 0 { tunnel.sideClosed(client) }
}

private func onUpstreamEvent(_ bev: OpaquePointer?, _ what: Int16, _ arg: UnsafeMutableRawPointer?) {
    guard let tunnel = tunnel(arg) else { return }
    if what & Int16(BEV_EVENT_CONNECTED) != 0 { return tunnel.upstreamConnected() }
    guard let upstream = tunnel.upstreamSide else { return }
    if !tunnel.isConnected { return tunnel.fail("cannot reach the tunnel's destination") }
    if what & Int16(BEV_EVENT_EOF | BEV_EVENT_ERROR | BEV_EVENT_TIMEOUT) != 0 { tunnel.sideClosed(upstream) }
}

/// A socket of nobody's, for evhttp to shut down and close under the number of a socket taken
/// from it.
enum StandInSocket {
    static func make() -> Int32 {
        socket(AF_INET, PortableSocket.streamType, 0)
    }
}
