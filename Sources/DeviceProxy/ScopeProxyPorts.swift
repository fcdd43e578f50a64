import Dispatch
import HTTPServer
import MockCore
import Synchronization

/// A proxy port per state scope (`POST /__admin/scopes/NAME/proxy`): a listener of its own whose
/// every request and tunnel is in that scope, for clients that take a proxy's host and port but no
/// credentials (a phone's Wi-Fi proxy, one simulator per Mac). It closes when its scope goes.
public final class ScopeProxyPorts: Sendable {
    /// Starts a listener on a free port with the server's settings, answering with `handler`.
    public typealias Start = @Sendable (any HTTPHandler) throws -> HTTPServer

    private let start: Start
    private let open = Locked<[Int: (scope: StateScope, server: HTTPServer)]>([:])
    /// How many are open: while none is, a request looks up nothing.
    private let count = Atomic<Int>(0)
    /// The router every port answers with, set once it is made.
    private let handler = Locked<(any HTTPHandler)?>(nil)

    public init(start: @escaping Start) {
        self.start = start
    }

    /// Every port answers with `handler` (the server's router) from now on.
    public func answer(with handler: any HTTPHandler) {
        self.handler.withLock { $0 = handler }
    }

    /// The scope whose port `localPort` is, if it is one.
    func scope(ofLocalPort localPort: Int) -> String? {
        guard count.load(ordering: .relaxed) > 0 else { return nil }
        return open.withLock { $0[localPort]?.scope.name }
    }

    /// The port of `scope`, nil when it has none.
    public func port(of scope: String) -> Int? {
        open.withLock { ports in ports.first { $0.value.scope.name == scope && !$0.value.scope.isDiscarded }?.key }
    }

    public enum OpenError: Error { case tooMany(Int), cannotStart(String) }

    /// The port of `scope`: the one open already, or a new one (at most `limit` at once). It
    /// belongs to this scope object: when the scope goes, the port closes, even if the name is
    /// used again meanwhile.
    func port(for scope: StateScope, limit: Int) throws(OpenError) -> Int {
        if let existing = port(of: scope.name) { return existing }
        guard open.withLock({ $0.count }) < limit else { throw .tooMany(limit) }
        guard let handler = handler.withLock({ $0 }) else { throw .cannotStart("the server is not answering yet") }
        let server: HTTPServer
        do {
            server = try start(handler)
        } catch {
            throw .cannotStart("\(error)")
        }
        let (port, extra) = open.withLock { ports -> (Int, HTTPServer?) in
            // Another call for the same scope won the race: its port stays, this one closes.
            if let won = ports.first(where: { $0.value.scope === scope }) { return (won.key, server) }
            ports[server.address.port] = (scope, server)
            return (server.address.port, nil)
        }
        if let extra { Self.close(extra) } else { count.add(1, ordering: .relaxed) }
        return port
    }

    /// Closes the ports of the scopes that have gone (`isGone`: all of them when the server stops).
    public func closePorts(where isGone: (StateScope) -> Bool = { $0.isDiscarded }) {
        let closing = open.withLock { ports -> [HTTPServer] in
            let gone = ports.filter { isGone($0.value.scope) }
            for port in gone.keys { ports[port] = nil }
            return gone.values.map(\.server)
        }
        count.subtract(closing.count, ordering: .relaxed)
        closing.forEach(Self.close)
    }

    /// Closes every port (the server is stopping).
    public func closeAll() {
        closePorts { _ in true }
    }

    private static func close(_ server: HTTPServer) {
        server.shutdown(gracePeriod: .seconds(1))
        DispatchQueue.global(qos: .utility).async { server.wait() }
    }

    /// This server as the device reached it, so that what it is told points back the same way:
    /// `Host` when it is a host[:port], else this listener on loopback (`Host` is the client's to
    /// write, and a PAC file is a script).
    public static func proxyAuthority(of request: Request) -> String {
        if let host = request.headers["Host"], HostName.of(authority: Substring(host)) != nil { return host }
        return "127.0.0.1:\(request.localPort)"
    }

    /// `authority` (host[:port]) with `port` instead: a scope's own proxy port.
    public static func authority(_ authority: String, withPort port: Int) -> String {
        var host = Substring(authority)
        // The port after the last colon, unless that colon is inside an IPv6 literal's brackets.
        if let colon = authority.lastIndex(of: ":"), !authority[colon...].contains("]") { host = authority[..<colon] }
        return "\(host):\(port)"
    }
}
