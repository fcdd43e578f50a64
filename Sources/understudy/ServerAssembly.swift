import ArgumentParser
import DeviceProxy
import Foundation
import HTTPServer
import Logging
import MCPServer
import MockCore
import Recording
import Stubs
import WorkLimits

extension ServerOptions {
    /// Serves what `makeBackends` makes until SIGINT or SIGTERM; `stopped` runs after the
    /// server has stopped. The signals are blocked first: threads the backends start (loaders,
    /// queues) inherit the mask, so only the main thread's sigwait ever sees them.
    /// `device`: device mode's options, the `hosts.json` it reads, and who wants its `DeviceMode`
    /// once made (nil: no device mode).
    /// `listening` is told the main port once the server listens.
    func run(
        journal: RequestJournal, logger: Logger, device: (options: DeviceOptions, hostsFile: URL, made: (DeviceMode) -> Void)? = nil,
        listening: (Int) -> Void = { _ in }, stopped: () -> Void = {}, contract: (any ContractCheck)? = nil,
        makeBackends: () throws -> [any Backend]
    ) throws {
        let signals = ShutdownSignals()
        MallocSettings.keepThresholdsFixed()
        RequestBudget.defaultLimitNanoseconds.store(UInt64(requestCpuBudget) * 1_000_000, ordering: .relaxed)
        // Fixtures load once the sockets listen, so that the loads do not slow the start-up.
        LoadStart.shared.hold()
        defer { LoadStart.shared.release() }
        var backends = try makeBackends()
        let scopes = StateScopes(limits: .init(maxScopes: maxScopes, idleSeconds: scopeIdleTimeout), logger: logger)
        if let network { scopes.default.networkConditions = NetworkConditions.profiles[network.lowercased()] }
        let running = device.map { device in device.options.start(hostsFile: device.hostsFile, backends: backends, logger: logger) }
        // Each scope's own proxy port (POST /__admin/scopes/NAME/proxy) listens as the main port
        // does, on a free port, with one thread.
        let portSettings = serverConfiguration
        let scopePorts = running.map { _ in
            ScopeProxyPorts { handler in
                var configuration = portSettings
                configuration.port = 0
                configuration.threads = 1
                return try HTTPServer.start(configuration: configuration, handler: handler)
            }
        }
        if let running {
            backends.append(DeviceModeAPI(deviceMode: running.mode, scopePorts: scopePorts))
            device?.made(running.mode)
        }
        let device = running
        let adminGuard = makeAdminGuard(logger: logger)
        let fleet = makeFleet(token: adminGuard.token)
        let fleetAdmin = FleetAdmin(peers: fleet, selfURL: selfURL, backends: backends, scopes: scopes, logger: logger)
        backends.append(fleetAdmin)
        let mcp = MCPEndpoint()
        backends.append(mcp)
        let router = Router(
            backends: backends, journal: journal, scopes: scopes, deviceMode: device?.mode, logger: logger,
            adminGuard: adminGuard, requestLog: verbose ? RequestLog.forStandardError() : nil,
            scopePorts: scopePorts, fleet: fleet, contract: contract
        ) {
            logger.info("shutdown requested through POST /__admin/shutdown")
            kill(getpid(), SIGTERM)
        }
        // Its tools are admin calls made through the router.
        mcp.connect(to: router)
        var configuration = serverConfiguration
        // With an https port of its own, the certificate files are that port's.
        if let tlsCertificate, let tlsKey, device?.httpsPort == nil {
            configuration.tls = TLSServerSettings(certificateFile: tlsCertificate, privateKeyFile: tlsKey)
        }

        var servers: [HTTPServer] = []
        do {
            servers.append(try HTTPServer.start(configuration: configuration, handler: router))
            if let device {
                servers += try device.startHTTPS(configuration, tlsFiles: tlsCertificate.flatMap { c in tlsKey.map { (c, $0) } }, handler: router)
            }
        } catch {
            servers.forEach { $0.shutdown(gracePeriod: .zero) }
            throw ValidationError("\(error)")
        }
        // The port file first: whoever waits for the line may read the file at once.
        LoadStart.shared.release()
        listening(servers[0].address.port)
        if let portFile { try writePortFile(portFile, port: servers[0].address.port) }
        // Peers reach this replica now: it may take the shared state from them (and they from it).
        try fleetAdmin.start()
        FileHandle.standardOutput.write(Data("listening on \(servers[0].baseURL)\n".utf8))
        if device?.httpsPort != nil {
            FileHandle.standardOutput.write(Data("listening on \(servers[1].baseURL)\n".utf8))
        }
        StartupSummary.printWhenReady(baseURL: servers[0].baseURL, backends: backends)

        let signal = signals.wait()
        logger.info("received \(signal), stopping: in-flight requests get \(shutdownGrace) s")
        servers += device?.startedLater ?? []
        scopePorts?.closeAll()
        for server in servers { server.shutdown(gracePeriod: .seconds(shutdownGrace)) }
        for server in servers { server.wait() }
        stopped()
        logger.info("stopped")
    }

    /// The other replicas of a team server (`--peer`, `--peers-dns`); nil for a server alone.
    private func makeFleet(token: String?) -> FleetPeers? {
        let given = FleetPeers.others(peer, thisHost: ProcessInfo.processInfo.hostName)
        let dns = peersDns.flatMap { text in
            PeerDNS.parse(
                text, ownHosts: listensEverywhere ? SocketAddress.interfaceHosts() : [bind.trimmingCharacters(in: CharacterSet(charactersIn: "[]"))])
        }
        guard !given.isEmpty || dns != nil else { return nil }
        // A replica on another port is another replica, whatever its address.
        return FleetPeers(
            given: given, dns: dns.map { $0.port == port ? $0 : PeerDNS(name: $0.name, port: $0.port, ownHosts: []) },
            selfURL: selfURL, token: token)
    }

    /// `--bind` names no one address: the server listens on every interface.
    private var listensEverywhere: Bool { ["0.0.0.0", "::", ""].contains(bind) }

    /// This replica's base URL as its peers reach it: its host name when it listens on every address.
    private var selfURL: String {
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
    private func makeAdminGuard(logger: Logger) -> AdminGuard {
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
