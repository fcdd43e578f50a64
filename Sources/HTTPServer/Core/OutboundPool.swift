import CLibevent

/// One client connection to an upstream server, reused across requests while it stays open.
final class OutboundConnection {
    /// Which connections can stand in for each other.
    struct Server: Hashable {
        var secure: Bool
        var host: String
        /// The numeric address connected to, when the caller chose it (`OutboundRequest.connectAddress`).
        var address: String?
        var port: Int32
        var tls: TLSClientSettings
    }

    let server: Server
    let evcon: OpaquePointer
    /// The OpenSSL bufferevent of an https connection: where a handshake failure is told.
    let tlsEvents: OpaquePointer?

    init(server: Server, evcon: OpaquePointer, tlsEvents: OpaquePointer?) {
        self.server = server
        self.evcon = evcon
        self.tlsEvents = tlsEvents
    }

    /// Still connected: libevent closes a connection when the server asks to (`Connection:
    /// close`, HTTP/1.0) or hangs up while it is idle.
    var isOpen: Bool {
        guard let events = evhttp_connection_get_bufferevent(evcon) else { return false }
        return bufferevent_getfd(events) >= 0
    }
}

/// A loop's idle keep-alive connections to upstream servers, so proxying does not pay a TCP
/// (and TLS) handshake per request nor leave a socket in TIME_WAIT for each. Loop thread only.
final class OutboundPool {
    /// Idle connections kept per server; more are closed when their request is done.
    static let idlePerServer = 32

    private var idle: [OutboundConnection.Server: [OutboundConnection]] = [:]
    /// Connections to free once the callback that finished with them has returned.
    private var retired: [OutboundConnection] = []

    /// An idle, still open connection to `server`; closed ones found on the way are freed.
    func take(_ server: OutboundConnection.Server) -> OutboundConnection? {
        while let connection = idle[server]?.popLast() {
            if connection.isOpen { return connection }
            evhttp_connection_free(connection.evcon)
        }
        return nil
    }

    /// Called from the connection's request callback: kept for the next request if it is still
    /// open and there is room, else freed right after the callback.
    func finished(_ connection: OutboundConnection, reusable: Bool, loop: EventLoop) {
        if reusable, connection.isOpen, idle[connection.server, default: []].count < Self.idlePerServer {
            idle[connection.server, default: []].append(connection)
            return
        }
        retired.append(connection)
        if retired.count == 1 {
            loop.schedule(after: .zero) { [self] in
                for connection in retired { evhttp_connection_free(connection.evcon) }
                retired.removeAll()
            }
        }
    }

    /// Frees every connection not in use (the loop is ending).
    func close() {
        for connection in idle.values.joined() { evhttp_connection_free(connection.evcon) }
        for connection in retired { evhttp_connection_free(connection.evcon) }
        idle.removeAll()
        retired.removeAll()
    }
}
