import Foundation
import HTTPServer
import Logging
import MockCore
import Synchronization
import WireFormat

/// Understudy as a device's HTTP proxy, so apps run unchanged against their real host names:
/// absolute-form requests (`GET http://host/…`) and `CONNECT host:443` tunnels, whose TLS is ended
/// here with a certificate from the local CA when the host is answered here. `stubs/hosts.json`
/// (`HostMap`) says which hosts those are and what answers each. A host it does not name is
/// offline: a 502 page that says how to map it, and nothing leaves the machine — unless
/// `passThrough`, which lets such hosts reach the real server untouched.
public final class DeviceMode: ForwardProxy {
    public let hostsFile: URL
    public let passThrough: Bool
    /// The names `hosts.json` may use; nil until the backends are made (`readHosts(naming:)`).
    private let backendNames: Locked<Set<String>?>
    private let map: Locked<HostMap>
    /// Whether the map has any host: while not, requests to this server skip the gate unread.
    private let mapsAnyHost = Atomic<Bool>(false)
    /// The port of the TLS listener tunnels are relayed into once made; 0 before, -1 when none
    /// could be made.
    private let interceptPort = Atomic<Int>(0)
    /// The local CA and that listener: made by `tls.make` at their first use (`endTLS(using:)`).
    private let tls = Locked<(made: TLSSetup?, make: (@Sendable () -> TLSSetup)?)>((nil, nil))
    private let logger: Logger
    /// A client can send refused CONNECTs as fast as it likes.
    private let refusals = LogThrottle { count, seconds in "device mode: \(count) more CONNECT(s) refused in the last \(seconds) s" }

    /// Scopes' own proxy ports (`POST /__admin/scopes/NAME/proxy`); nil: none are opened.
    public let scopePorts: ScopeProxyPorts?

    /// With it, every proxied request and `CONNECT` must carry credentials with this password
    /// (their user name is the state scope); without, credentials are optional and the password
    /// is ignored.
    let proxyPassword: String?

    /// `backends`: the names `hosts.json` may use. A server makes device mode before its backends
    /// (their webhooks and file watchers ask it), so it gives nil and reads the file with
    /// `readHosts(naming:)` once they are made; until then no host is mapped.
    public init(
        hostsFile: URL, backends: Set<String>?, passThrough: Bool = false, proxyPassword: String? = nil,
        scopePorts: ScopeProxyPorts? = nil, logger: Logger = Logger(label: "understudy")
    ) {
        self.scopePorts = scopePorts
        self.hostsFile = hostsFile
        self.passThrough = passThrough
        self.proxyPassword = proxyPassword
        backendNames = Locked(nil)
        self.logger = logger
        map = Locked(HostMap())
        if let backends { readHosts(naming: backends) }
    }

    /// Reads `hosts.json`, whose entries may name `backends`.
    public func readHosts(naming backends: Set<String>) {
        backendNames.withLock { $0 = backends }
        if let problem = reload() { logger.warning("device mode: \(problem); no host is mapped") }
    }

    /// Reads `hosts.json` again; a file with a problem keeps the map in use. Before
    /// `readHosts(naming:)` there is nothing to read it against: nothing is read.
    @discardableResult
    public func reload() -> FixtureError? {
        guard let names = backendNames.withLock({ $0 }) else { return nil }
        do {
            let loaded = try HostMap.load(hostsFile, backends: names)
            map.withLock { $0 = loaded }
            mapsAnyHost.store(!loaded.isEmpty, ordering: .releasing)
            return nil
        } catch {
            return error
        }
    }

    public var hostMap: HostMap { map.withLock { $0 } }

    /// Device mode's TLS: the local CA devices trust, and the loopback port of the TLS listener
    /// tunnels are relayed into (nil: tunnels are refused).
    public struct TLSSetup: Sendable {
        public var authority: LocalCA?
        public var interceptPort: Int?

        public init(authority: LocalCA?, interceptPort: Int?) {
            self.authority = authority
            self.interceptPort = interceptPort
        }
    }

    /// TLS is made by `make` when first used — a device's first request through this server as its
    /// proxy, or a request for the CA's certificate or page — not at start: libcrypto's pages, the
    /// keys, the TLS context and the listener's loops cost about 3 MB that a server only reached
    /// directly (as by most test runs) never needs. Making it takes a few milliseconds, once, on
    /// the loop of the request that needs it.
    public func endTLS(using make: @escaping @Sendable () -> TLSSetup) {
        tls.withLock { $0 = (nil, make) }
        interceptPort.store(0, ordering: .releasing)
    }

    /// TLS made already (`--https-port` needs the CA at start).
    public func endTLS(with setup: TLSSetup) { endTLS(using: { setup }) }

    /// Tunnels go to the TLS listener on `port` (on loopback) from now on.
    public func intercept(onPort port: Int) { endTLS(with: TLSSetup(authority: nil, interceptPort: port)) }

    /// Device mode's TLS, made now if this is its first use; nil without `endTLS`.
    public func tlsSetup() -> TLSSetup? {
        tls.withLock { tls in
            if tls.made == nil, let make = tls.make { tls.made = make() }
            return tls.made
        }
    }

    /// The port tunnels are relayed into, TLS made at the first call; nil: tunnels are refused.
    private func tunnelPort() -> Int? {
        let known = interceptPort.load(ordering: .acquiring)
        if known != 0 { return known > 0 ? known : nil }
        guard let setup = tlsSetup() else { return nil }
        interceptPort.store(setup.interceptPort ?? -1, ordering: .releasing)
        return setup.interceptPort
    }

    /// `--https-port`: pages that real servers serve over TLS link there.
    private let httpsPortValue = Atomic<Int>(0)
    public func servesHTTPS(onPort port: Int) { httpsPortValue.store(port, ordering: .releasing) }

    /// What may answer an app's request, and what it learns of the ways to TLS
    /// (`RequestContext.secureOrigin`). Only a device's request through this server as its proxy
    /// asks whether tunnels are intercepted.
    public func gate(_ request: Request, _ context: inout RequestContext) -> ProxyGate {
        let port = httpsPortValue.load(ordering: .relaxed)
        context.httpsPort = port > 0 ? port : nil
        if request.isProxied { context.interceptsTLS = tunnelPort() != nil }
        switch gate(for: request) {
        case .ordinary: return .ordinary
        case .mapped(let target): return .mapped(backend: HostMap.backend(for: request.path, in: target))
        case .offline(let host): return .offline(host: host)
        }
    }

    // MARK: What a request may reach

    enum Gate {
        /// Not for a mapped host, and not proxied: routed as always.
        case ordinary
        /// For a mapped host: only what the entry names (and stubs, recordings) answer.
        case mapped(HostMap.Target)
        /// Proxied for a host that is not mapped.
        case offline(String)
    }

    func gate(for request: Request) -> Gate {
        let proxied = request.isProxied
        if !proxied {
            guard mapsAnyHost.load(ordering: .acquiring) else { return .ordinary }
            // Requests to this server itself, by address or as localhost: the common case, decided
            // on the Host header's first byte, with no parsing or look-up.
            guard let host = request.headers["Host"], let first = host.utf8.first else { return .ordinary }
            if (first >= 0x30 && first <= 0x39) || first == UInt8(ascii: "[")
                || (first | 0x20 == UInt8(ascii: "l") && host.lowercased().hasPrefix("localhost"))
            {
                return .ordinary
            }
        }
        guard let host = request.requestedHost?.host else { return .ordinary }
        if let target = map.withLock({ $0.isEmpty ? nil : $0.target(for: host) }) { return .mapped(target) }
        return proxied ? .offline(host) : .ordinary
    }

    // MARK: The scope a request is in

    /// The scope whose own proxy port `localPort` is (nil: none is).
    public func scope(ofLocalPort localPort: Int) -> String? { scopePorts?.scope(ofLocalPort: localPort) }

    /// The scope a request sent through the proxy in absolute form names with its credentials
    /// (nil for none, or for a request that did not come through the proxy that way).
    public func scopeOfCredentials(_ request: Request) throws(ProxyRefusal) -> String? {
        guard request.proxiedAuthority != nil else { return nil }
        return try ProxyCredentials(of: request, password: proxyPassword).scope
    }

    // MARK: CONNECT

    /// Answers `CONNECT host:port`: a tunnel into the TLS listener (a mapped host, or any other
    /// host name while offline, so its 502 page can be read), a tunnel to the real host with
    /// `passThrough`, or a refusal that says why.
    /// A CONNECT on a scope's own proxy port is in that scope. `isOffline` says whether the scope
    /// (nil: `default`) is offline: its device then gets no tunnel, the connection closes without
    /// an answer.
    public func answerConnect(_ request: Request, _ responder: Responder, isOffline: (String?) -> Bool = { _ in false }) {
        let portScope = scope(ofLocalPort: request.localPort)
        let scope: String?
        do throws(ProxyRefusal) {
            let named = try ProxyCredentials(of: request, password: portScope == nil ? proxyPassword : nil).scope
            if let named, let portScope, named != portScope {
                throw ProxyRefusal(
                    status: 400, message: "the proxy credentials name the scope \"\(named)\" on the proxy port of scope \"\(portScope)\"")
            }
            scope = named ?? portScope
        } catch {
            var response = error.response
            response.headers.set("Connection", "close")
            return responder.send(response)
        }
        if isOffline(scope) { return responder.fail(with: .emptyResponse) }
        guard let (host, port) = HostName.of(authority: Substring(request.target)), let port else {
            return refuse(request, responder, 400, "CONNECT needs host:port with a host name or an IP address, not '\(request.target.prefix(300))'")
        }
        let mapped = map.withLock { $0.target(for: host) } != nil
        if !mapped && passThrough {
            logger.debug("device mode: tunnel to \(host):\(port) passed through for \(request.remoteAddress)")
            return responder.openTunnel(
                to: .passThrough(host: host, port: port), clientAddress: request.remoteAddress, clientPort: request.remotePort, scope: scope)
        }
        if !mapped && HostName.isIPAddress(host) {
            return refuse(
                request, responder, 403,
                "no entry of \(hostsFile.lastPathComponent) names the address \(host); map it there, or start with --pass-through to let it through")
        }
        // Port 80 speaks plain HTTP (a ws:// WebSocket, as Java's and Python's clients and browsers
        // send it through a proxy): into the listener the CONNECT came on, no TLS to end.
        if port == 80 {
            return responder.openTunnel(
                to: .relay(host: host, port: port, localPort: request.localPort), clientAddress: request.remoteAddress,
                clientPort: request.remotePort, scope: scope)
        }
        guard let listener = tunnelPort() else {
            return refuse(request, responder, 501, "this server does not end TLS for tunnels: it has no local CA (its log says why)")
        }
        responder.openTunnel(
            to: .intercept(host: host, port: port, localPort: listener), clientAddress: request.remoteAddress, clientPort: request.remotePort,
            scope: scope)
    }

    private func refuse(_ request: Request, _ responder: Responder, _ status: Int, _ reason: String) {
        for line in refusals.lines({
            "device mode: CONNECT \(LogText.escaped(request.target)) from \(request.remoteAddress) refused (\(status)): \(LogText.escaped(reason))"
        }) {
            logger.info("\(line)")
        }
        var response = Response.text("CONNECT refused: \(reason).\n", status: status)
        response.headers.set("Connection", "close")
        responder.send(response)
    }

    // MARK: Hosts that are not mapped

    /// A proxied request for a host `hosts.json` does not name: forwarded with `passThrough`
    /// (plain HTTP; HTTPS ones were tunnelled untouched), else the page that says how to map it.
    public var passesThrough: Bool { passThrough }

    public func offlineReply(_ request: Request, host: String) -> Reply {
        guard passThrough, !request.isSecure else { return .response(offlinePage(host: host)) }
        let url = "http://\(request.proxiedAuthority ?? host)\(request.target)"
        let outbound = OutboundRequest(method: request.method, url: url, headers: Self.forwarded(request.headers), body: request.body)
        return .deferred { reply in
            reply.loop.send(outbound) { result in
                switch result {
                case .success(let response): reply.send(response)
                case .failure(let error): reply.send(.text("Understudy could not reach \(host): \(error).\n", status: 502))
                }
            }
        }
    }

    /// The request's headers without the hop-by-hop ones a proxy consumes (RFC 9110 §7.6.1).
    static func forwarded(_ headers: HTTPHeaders) -> HTTPHeaders {
        var kept = headers
        for name in ["Proxy-Connection", "Proxy-Authorization", "Connection", "Keep-Alive", "TE", "Trailer", "Upgrade"] { kept.remove(name) }
        return kept
    }

    /// Names `hosts.json` by its place in the stubs folder, not by its path on the machine.
    func offlinePage(host: String) -> Response {
        let file = hostsFile.lastPathComponent
        // The other names this server's hosts.json may use (its emulators among them), as it runs.
        let others = (backendNames.withLock { $0 } ?? []).subtracting(["stubs"]).sorted().map { "\"\($0)\", " }.joined()
        let text = """
            502 Bad Gateway: Understudy does not answer for \(host).

            Understudy is this device's proxy, and \(host) is not in \(file) of its stubs folder, so the request
            went nowhere: nothing leaves this machine. To answer it here, map the host to a backend
            in \(file), e.g.

                "\(host)": "stubs"

            (or \(others)path prefixes: {"/api": "stubs"}).
            To let unmapped hosts reach the real servers instead, start Understudy with --pass-through.

            """
        return .text(text, status: 502)
    }

    // MARK: PAC

    /// A proxy auto-config file that sends the mapped hosts to `proxy` (`host:port` of this
    /// server as the device reaches it) and everything else direct.
    func pacFile(proxy: String) -> Response {
        let hosts = hostMap.hosts
        var lines = [
            "// Understudy: the hosts of \(hostsFile.lastPathComponent) go through the proxy, the rest goes direct.",
            "function FindProxyForURL(url, host) {",
            "  host = host.toLowerCase();",
        ]
        // Every value in a string literal escaped as JSON's, which JavaScript reads the same.
        let quoted = { (text: String) in "\"" + TextEscaper.json.escaped(text) + "\"" }
        for host in hosts {
            let condition = host.hasPrefix("*.") ? "dnsDomainIs(host, \(quoted(String(host.dropFirst(1)))))" : "host == \(quoted(host))"
            lines.append("  if (\(condition)) return \(quoted("PROXY " + proxy));")
        }
        lines += ["  return \"DIRECT\";", "}", ""]
        var response = Response(status: 200, body: ResponseBody(lines.joined(separator: "\n")))
        response.headers.set("Content-Type", "application/x-ns-proxy-autoconfig")
        return response
    }
}
