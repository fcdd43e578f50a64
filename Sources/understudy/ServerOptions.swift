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

/// The listener's options, shared by `serve` and `record`, and the server's life: start, print
/// where it listens, run until SIGINT or SIGTERM, let requests in flight finish.
struct ServerOptions: ParsableArguments {
    @Option(help: "Port to listen on; 0 picks a free one.")
    var port: Int = 8080

    @Option(help: "Address to listen on (IPv4 or IPv6; 0.0.0.0 or :: for every interface).")
    var bind: String = "127.0.0.1"

    @Option(help: "Worker threads, each with its own event loop (default: one per core).")
    var threads: Int = System.coreCount

    @Option(help: "Write the port, once listening, to this file.")
    var portFile: String?

    @Option(help: "Largest request body accepted, in bytes (larger ones get 413).")
    var maxBody: Int = 16 * 1024 * 1024

    @Option(help: "Bytes of answers that may wait for clients that do not read them (larger answers past it get 503).")
    var maxUnsentBytes: Int = 256 * 1024 * 1024

    @Option(help: "Largest WebSocket message a client may send, in bytes (fragments summed); past it the channel closes with 1009.")
    var maxMessageBytes: Int = 1024 * 1024

    @Option(help: "WebSocket channels open at once, across scopes; past it an upgrade gets 503.")
    var maxChannels: Int = 10_000

    @Option(
        help: ArgumentHelp(
            "Milliseconds of work one request may make its event loop do (matching, templates, helpers, webhook rendering); "
                + "past it the stub does not match or its template answers 500, saying where (docs/security.md).",
            valueName: "ms"))
    var requestCpuBudget: Int = 100

    @Option(help: "Close connections idle this many seconds.")
    var idleTimeout: Int = 60

    @Option(help: "Seconds in-flight requests get to finish after SIGINT/SIGTERM.")
    var shutdownGrace: Int = 10

    @Option(help: "Requests kept in the journal (GET /__admin/requests).")
    var journalSize: Int = 10_000

    @Option(
        help: "Bytes of request and response bodies the journal keeps (a body shared by many answers counts once); past it the oldest entries go.")
    var journalBytes: Int = 64 * 1024 * 1024

    @Option(help: "Named state scopes (X-Understudy-Scope, /__scope/NAME/) alive at once; past it the least recently used goes.")
    var maxScopes: Int = 100

    @Option(help: "Drop a named state scope unused this many seconds.")
    var scopeIdleTimeout: Int = 600

    @Option(
        help: ArgumentHelp(
            "Answers of the default scope go through a simulated network: wifi, lte, 3g, edge, very-bad, 100-loss or "
                + "offline (a scope's own: PUT /__admin/scopes/NAME/network).", valueName: "profile"))
    var network: String?

    @Option(help: "Bytes of mapping JSON the admin calls of one named scope may add (past it: 413).")
    var maxScopeMappingBytes: Int = StubAdminAPI.defaultMaxScopeMappingBytes

    @Option(help: "Serve https:// with this PEM certificate (chain); needs --tls-key.")
    var tlsCertificate: String?

    @Option(help: "The PEM private key of --tls-certificate.")
    var tlsKey: String?

    @Option(
        help: ArgumentHelp(
            "Token every admin API call but health must carry (Authorization: Bearer TOKEN); also UNDERSTUDY_ADMIN_TOKEN. "
                + "Made up and printed when --bind is beyond loopback and none is given.", valueName: "token"))
    var adminToken: String?

    @Option(
        help: ArgumentHelp(
            "Another replica of a team server (repeatable): the default scope's admin writes made here reach it too "
                + "(docs/team-server.md).", valueName: "url"))
    var peer: [String] = []

    @Option(
        help: ArgumentHelp(
            "A DNS name whose addresses are the other replicas, on PORT (a Kubernetes headless Service), resolved again "
                + "every 10 s; this replica's own addresses are left out (docs/team-server.md).", valueName: "name:port"))
    var peersDns: String?

    @Option(
        help: ArgumentHelp(
            "A host name admin API requests may be addressed to, besides loopback names and IP addresses (repeatable).",
            valueName: "name"))
    var adminHost: [String] = []

    @Option(
        help: ArgumentHelp(
            "An origin whose web pages may call the admin API, e.g. a browser test harness's http://localhost:3000 (repeatable).",
            valueName: "origin"))
    var adminOrigin: [String] = []

    @Flag(help: "Log one line per request (coloured on a terminal unless NO_COLOR is set).")
    var verbose = false

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port must be 0...65535, not \(port)") }
        guard threads >= 1 else { throw ValidationError("--threads must be at least 1, not \(threads)") }
        guard maxBody >= 0 else { throw ValidationError("--max-body must not be negative") }
        guard maxUnsentBytes >= 0 else { throw ValidationError("--max-unsent-bytes must not be negative") }
        guard maxMessageBytes >= 1 else { throw ValidationError("--max-message-bytes must be at least 1") }
        guard maxChannels >= 1 else { throw ValidationError("--max-channels must be at least 1") }
        guard (1...60_000).contains(requestCpuBudget) else {
            throw ValidationError("--request-cpu-budget must be 1...60000 milliseconds, not \(requestCpuBudget)")
        }
        guard idleTimeout >= 1 else { throw ValidationError("--idle-timeout must be at least 1 second") }
        guard journalSize >= 1 else { throw ValidationError("--journal-size must be at least 1") }
        guard journalBytes >= 0 else { throw ValidationError("--journal-bytes must not be negative") }
        guard maxScopes >= 1 else { throw ValidationError("--max-scopes must be at least 1") }
        guard scopeIdleTimeout >= 1 else { throw ValidationError("--scope-idle-timeout must be at least 1 second") }
        guard maxScopeMappingBytes >= 0 else { throw ValidationError("--max-scope-mapping-bytes must not be negative") }
        if let network, NetworkConditions.profiles[network.lowercased()] == nil {
            throw ValidationError("--network \(network): not a profile (\(NetworkConditions.profiles.keys.sorted().joined(separator: ", ")))")
        }
        if let peersDns, PeerDNS.parse(peersDns, ownHosts: []) == nil { throw ValidationError("--peers-dns \(peersDns): expected NAME:PORT") }
        if port == 0, !peer.isEmpty || peersDns != nil {
            throw ValidationError("--peer and --peers-dns need a fixed --port: peers reach this replica on it")
        }
        guard (tlsCertificate == nil) == (tlsKey == nil) else { throw ValidationError("--tls-certificate and --tls-key go together") }
    }

    /// The logger, with one line per request when --verbose.
    func makeLogger() -> Logger {
        let level: Logger.Level = verbose ? .debug : .info
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        return Logger(label: "understudy")
    }

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

/// How the recorder talks to upstream servers.
struct UpstreamOptions: ParsableArguments {
    @Flag(help: "Accept any certificate from https:// upstreams (no verification).")
    var insecure = false

    @Option(help: "A PEM file of certificates to trust for https:// upstreams, besides the system's.")
    var caFile: String?

    @Option(help: "Seconds an upstream may take to answer before the client gets 504.")
    var upstreamTimeout: Int = 30

    var tls: TLSClientSettings { TLSClientSettings(verifyCertificates: !insecure, trustedCertificates: caFile) }
}

/// How `record` and `import-har` turn exchanges into mappings.
struct RecordingRules: ParsableArguments {
    @Option(name: .customLong("match-header"), help: "A request header the mappings match on (repeatable).")
    var matchHeaders: [String] = []

    @Option(name: .customLong("ignore-query"), help: "A query parameter left out of the match (repeatable).")
    var ignoredQueryParameters: [String] = []

    @Option(name: .customLong("redact"), help: "Another query parameter, form field or JSON field whose value is never saved (repeatable).")
    var redacted: [String] = []

    @Flag(help: "Keep only the first answer of a request asked again, instead of a scenario of all of them.")
    var noScenarios = false

    @Option(
        name: .customLong("graphql"),
        help: "A path whose requests are GraphQL operations, each recorded as one (repeatable; default: any JSON body with a GraphQL query).")
    var graphQLPaths: [String] = []

    var options: RecordingOptions {
        var options = RecordingOptions()
        options.matchHeaders = matchHeaders
        options.ignoredQueryParameters = ignoredQueryParameters
        options.redactedParameters += redacted
        options.repeatsAsScenarios = !noScenarios
        options.graphQLPaths = graphQLPaths
        return options
    }
}
