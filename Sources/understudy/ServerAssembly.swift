import ArgumentParser
import DeviceProxy
import Fleet
import Foundation
import HTTPServer
import Logging
import MCPServer
import MockCore
import WorkLimits

/// The composition root: the listener's options and a command's backends in, a running server
/// out. Each part is made once, after what it needs, and handed on; nothing is handed back:
/// device mode first (the backends' webhooks and file watchers ask it; it reads hosts.json
/// once they are made, as hosts.json names them), then the backends, the scopes, the admin
/// guard, the fleet, the router (which the MCP endpoint and device mode's scope proxy ports
/// answer with), the listeners.
struct ServerAssembly {
    let options: ServerOptions
    let journal: RequestJournal
    let logger: Logger
    /// Device mode's options and the `hosts.json` it reads; nil: no device mode.
    var device: (options: DeviceOptions, hostsFile: URL)?
    /// What requests and answers are checked against (`--openapi`); nil: nothing.
    var contract: (any ContractCheck)?

    /// Starts the server with what `makeBackends` makes, given device mode (nil without).
    /// Fixtures load once the sockets listen, so that the loads do not slow the start-up.
    func start(makeBackends: (RunningDevice?) throws -> [any Backend]) throws -> RunningServer {
        MallocSettings.keepThresholdsFixed()
        RequestBudget.defaultLimitNanoseconds.store(UInt64(options.requestCpuBudget) * 1_000_000, ordering: .relaxed)
        LoadStart.shared.hold()
        defer { LoadStart.shared.release() }
        let device = device.map { $0.options.makeDevice(hostsFile: $0.hostsFile, listener: options.serverConfiguration, logger: logger) }
        var backends = try makeBackends(device)
        device?.readHosts(answeredBy: backends)
        let scopes = StateScopes(limits: .init(maxScopes: options.maxScopes, idleSeconds: options.scopeIdleTimeout), logger: logger)
        if let network = options.network { scopes.default.networkConditions = NetworkConditions.profiles[network.lowercased()] }
        if let device { backends.append(DeviceModeAPI(deviceMode: device.mode, scopes: scopes)) }
        let adminGuard = options.makeAdminGuard(logger: logger)
        let fleet = options.makeFleet(token: adminGuard.token, logger: logger)
        let fleetAdmin = FleetAdmin(peers: fleet, selfURL: options.selfURL, backends: backends, scopes: scopes, logger: logger)
        backends.append(fleetAdmin)
        let mcp = MCPEndpoint()
        backends.append(mcp)
        let router = Router(
            backends: backends, journal: journal, scopes: scopes, deviceMode: device?.mode, logger: logger,
            adminGuard: adminGuard, requestLog: options.verbose ? RequestLog.forStandardError() : nil,
            fleet: fleet, contract: contract
        ) { [logger] in
            logger.info("shutdown requested through POST /__admin/shutdown")
            kill(getpid(), SIGTERM)
        }
        // Its tools are admin calls made through the router.
        mcp.connect(to: router)
        if let scopePorts = device?.mode.scopePorts {
            scopePorts.answer(with: router)
            // A scope's proxy port closes when the scope goes.
            scopes.onReclaim { scopePorts.closePorts() }
        }
        let servers = try listen(router, device: device)
        return RunningServer(servers: servers, device: device, fleetAdmin: fleetAdmin, backends: backends)
    }

    /// The main listener, and device mode's https one when it has its own port.
    private func listen(_ router: Router, device: RunningDevice?) throws -> [HTTPServer] {
        var configuration = options.serverConfiguration
        let tlsFiles = options.tlsCertificate.flatMap { certificate in options.tlsKey.map { (certificate, $0) } }
        // With an https port of its own, the certificate files are that port's.
        if let (certificate, key) = tlsFiles, device?.httpsPort == nil {
            configuration.tls = TLSServerSettings(certificateFile: certificate, privateKeyFile: key)
        }
        var servers: [HTTPServer] = []
        do {
            servers.append(try HTTPServer.start(configuration: configuration, handler: router))
            if let device { servers += try device.startHTTPS(configuration, tlsFiles: tlsFiles, handler: router) }
        } catch {
            servers.forEach { $0.shutdown(gracePeriod: .zero) }
            throw ValidationError("\(error)")
        }
        return servers
    }
}

/// A server `ServerAssembly` started: its listeners (the main one first), until `stop`.
struct RunningServer {
    let servers: [HTTPServer]
    let device: RunningDevice?
    let fleetAdmin: FleetAdmin
    let backends: [any Backend]

    var port: Int { servers[0].address.port }

    /// Peers reach this replica now: it may take the shared state from them (and they from it).
    func joinFleet() throws { try fleetAdmin.start() }

    /// Stops every listener (those device mode started later too), letting requests in flight
    /// finish within `gracePeriod`.
    func stop(gracePeriod: Duration) {
        let all = servers + (device?.startedLater ?? [])
        device?.mode.scopePorts?.closeAll()
        for server in all { server.shutdown(gracePeriod: gracePeriod) }
        for server in all { server.wait() }
    }
}

extension ServerOptions {
    /// Serves what `makeBackends` makes until SIGINT or SIGTERM; `stopped` runs after the
    /// server has stopped. The signals are blocked first: threads the backends start (loaders,
    /// queues) inherit the mask, so only the main thread's sigwait ever sees them.
    /// `device`: device mode's options and the `hosts.json` it reads (nil: no device mode).
    /// `listening` is told the main port once the server listens.
    func run(
        journal: RequestJournal, logger: Logger, device: (options: DeviceOptions, hostsFile: URL)? = nil,
        listening: (Int) -> Void = { _ in }, stopped: () -> Void = {}, contract: (any ContractCheck)? = nil,
        makeBackends: (RunningDevice?) throws -> [any Backend]
    ) throws {
        let signals = ShutdownSignals()
        let server = try ServerAssembly(options: self, journal: journal, logger: logger, device: device, contract: contract)
            .start(makeBackends: makeBackends)
        listening(server.port)
        // The port file first: whoever waits for the line may read the file at once.
        if let portFile { try writePortFile(portFile, port: server.port) }
        try server.joinFleet()
        for listener in server.servers { FileHandle.standardOutput.write(Data("listening on \(listener.baseURL)\n".utf8)) }
        StartupSummary.printWhenReady(baseURL: server.servers[0].baseURL, backends: server.backends)

        let signal = signals.wait()
        logger.info("received \(signal), stopping: in-flight requests get \(shutdownGrace) s")
        server.stop(gracePeriod: .seconds(shutdownGrace))
        stopped()
        logger.info("stopped")
    }

    /// The other replicas of a team server (`--peer`, `--peers-dns`); nil for a server alone.
    func makeFleet(token: String?, logger: Logger) -> FleetPeers? {
        let given = FleetPeers.others(peer, thisHost: ProcessInfo.processInfo.hostName)
        let dns = peersDns.flatMap { text in
            PeerDNS.parse(
                text, ownHosts: listensEverywhere ? SocketAddress.interfaceHosts() : [bind.trimmingCharacters(in: CharacterSet(charactersIn: "[]"))])
        }
        guard !given.isEmpty || dns != nil else { return nil }
        // A replica on another port is another replica, whatever its address.
        return FleetPeers(
            given: given, dns: dns.map { $0.port == port ? $0 : PeerDNS(name: $0.name, port: $0.port, ownHosts: []) },
            selfURL: selfURL, token: token, logger: logger)
    }

    /// `--bind` names no one address: the server listens on every interface.
    private var listensEverywhere: Bool { ["0.0.0.0", "::", ""].contains(bind) }

    /// This replica's base URL as its peers reach it: its host name when it listens on every address.
    var selfURL: String {
        if listensEverywhere { return "http://\(ProcessInfo.processInfo.hostName):\(port)" }
        return bind.contains(":") ? "http://[\(bind)]:\(port)" : "http://\(bind):\(port)"
    }

    /// The main listener's settings (plain HTTP unless the TLS files apply to it).
    var serverConfiguration: ServerConfiguration {
        var configuration = ServerConfiguration()
        configuration.host = bind
        configuration.port = port
        configuration.threads = threads
        configuration.maxBodySize = maxBody
        configuration.maxUnsentBytes = maxUnsentBytes
        configuration.maxMessageBytes = maxMessageBytes
        configuration.idleTimeout = .seconds(idleTimeout)
        return configuration
    }

    /// The admin API's guard. Listening beyond loopback exposes it to other hosts, so it then
    /// always has a token: the one given, or a new one printed for the user.
    func makeAdminGuard(logger: Logger) -> AdminGuard {
        var token = adminToken ?? ProcessInfo.processInfo.environment["UNDERSTUDY_ADMIN_TOKEN"].flatMap { $0.isEmpty ? nil : $0 }
        if token == nil, !HostName.isLoopback(bind) {
            var generator = SystemRandomNumberGenerator()
            let made = (0..<16).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
            logger.warning("--bind \(bind) is beyond loopback: the admin API needs 'Authorization: Bearer \(made)' (set your own with --admin-token)")
            token = made
        }
        return AdminGuard(token: token, allowedHosts: adminHost, allowedOrigins: adminOrigin)
    }

    /// Written whole under a temporary name, then renamed, so a reader never sees half a number.
    private func writePortFile(_ path: String, port: Int) throws {
        do {
            try SafeFile.write(Data("\(port)\n".utf8), to: URL(fileURLWithPath: path))
        } catch {
            throw ValidationError("cannot write --port-file \(path): \(error.localizedDescription)")
        }
    }
}
