import ArgumentParser
import DeviceProxy
import Foundation
import HTTPServer
import Logging
import MockCore

/// Device mode's options: Understudy as the HTTP(S) proxy of a simulator, an emulator, a phone
/// or a browser, answering for the real hosts of `stubs/hosts.json` (docs/device-mode.md).
struct DeviceOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "Where the local CA's certificate and key are kept, made at first use "
                + "(default: UNDERSTUDY_CA_DIR, else ~/.understudy/ca).", valueName: "dir"))
    var caDir: String?

    @Option(
        help: ArgumentHelp(
            "Also serve https:// on this port, with --tls-certificate/--tls-key or certificates from the local CA.",
            valueName: "port"))
    var httpsPort: Int?

    @Flag(help: "Let proxied requests for hosts hosts.json does not name reach the real servers (default: a 502 page; nothing leaves the machine).")
    var passThrough = false

    @Option(
        help: ArgumentHelp(
            "Proxied requests and CONNECTs must carry proxy credentials with this password (else 407); "
                + "their user name names the state scope either way. Also UNDERSTUDY_PROXY_PASSWORD.", valueName: "password"))
    var proxyPassword: String?

    func validate() throws {
        if let httpsPort, !(0...65535).contains(httpsPort) { throw ValidationError("--https-port must be 0...65535, not \(httpsPort)") }
    }

    /// `--ca-dir`, else `UNDERSTUDY_CA_DIR`, else `~/.understudy/ca`.
    var caDirectory: URL {
        if let caDir { return URL(fileURLWithPath: caDir) }
        if let fromEnvironment = ProcessInfo.processInfo.environment["UNDERSTUDY_CA_DIR"], !fromEnvironment.isEmpty {
            return URL(fileURLWithPath: fromEnvironment)
        }
        return FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".understudy/ca")
    }

    /// Device mode, made before the backends: `hosts.json` is read once they are
    /// (`RunningDevice.readHosts(answeredBy:)`), the local CA when TLS is first needed. Each
    /// scope's own proxy port (`POST /__admin/scopes/NAME/proxy`) listens as `listener` does, on
    /// a free port, with one thread.
    func makeDevice(hostsFile: URL, listener: ServerConfiguration, logger: Logger) -> RunningDevice {
        let password = proxyPassword ?? ProcessInfo.processInfo.environment["UNDERSTUDY_PROXY_PASSWORD"].flatMap { $0.isEmpty ? nil : $0 }
        let scopePorts = ScopeProxyPorts { handler in
            var configuration = listener
            configuration.port = 0
            configuration.threads = 1
            return try HTTPServer.start(configuration: configuration, handler: handler)
        }
        let mode = DeviceMode(
            hostsFile: hostsFile, backends: nil, passThrough: passThrough, proxyPassword: password, scopePorts: scopePorts, logger: logger)
        return RunningDevice(mode: mode, caDirectory: caDirectory, httpsPort: httpsPort, logger: logger)
    }
}

/// Device mode once started: its host map, and the TLS listeners of its CA.
final class RunningDevice: Sendable {
    let mode: DeviceMode
    let caDirectory: URL
    let httpsPort: Int?
    let logger: Logger
    /// The listener tunnels are relayed into, when started at the first tunnel.
    private let tunnels = Locked<HTTPServer?>(nil)

    init(mode: DeviceMode, caDirectory: URL, httpsPort: Int?, logger: Logger) {
        self.mode = mode
        self.caDirectory = caDirectory
        self.httpsPort = httpsPort
        self.logger = logger
    }

    /// Reads `hosts.json`, whose entries may name the backends that answer requests: emulators,
    /// stubs, recordings, static files.
    func readHosts(answeredBy backends: [any Backend]) {
        mode.readHosts(naming: Set(backends.filter { $0.tier >= .userStubs }.map(\.name)))
    }

    /// Without a CA, device mode still answers proxied plain-HTTP requests; CONNECT tunnels are refused.
    private func loadAuthority() -> LocalCA? {
        do {
            return try LocalCA.loadOrCreate(directory: caDirectory)
        } catch {
            logger.warning("device mode: no local CA, so HTTPS tunnels are refused: \(error)")
            return nil
        }
    }

    /// Starts `--https-port`'s listener (at the main listener's address) when given, and sets up
    /// the one CONNECT tunnels are relayed into: the https port itself when it issues the local
    /// CA's certificates on an address loopback reaches, else one on a free loopback port, started
    /// with the CA at the first need (`DeviceMode.endTLS(using:)`).
    func startHTTPS(_ main: ServerConfiguration, tlsFiles: (certificate: String, key: String)?, handler: any HTTPHandler) throws -> [HTTPServer] {
        var servers: [HTTPServer] = []
        var authority: LocalCA?
        if let httpsPort {
            var configuration = main
            configuration.port = httpsPort
            if let tlsFiles {
                configuration.tls = TLSServerSettings(certificateFile: tlsFiles.certificate, privateKeyFile: tlsFiles.key)
            } else if let loaded = loadAuthority() {
                authority = loaded
                configuration.tls = TLSServerSettings(authority: loaded)
            } else {
                throw ValidationError("--https-port needs --tls-certificate and --tls-key, or the local CA (see the warning above)")
            }
            let https = try HTTPServer.start(configuration: configuration, handler: handler)
            servers.append(https)
            mode.servesHTTPS(onPort: https.address.port)
            if tlsFiles == nil, ["127.0.0.1", "0.0.0.0", "localhost"].contains(main.host) {
                mode.endTLS(with: .init(authority: authority, interceptPort: https.address.port))
                return servers
            }
        }
        mode.endTLS { [self, authority] in startTunnelListener(main, authority: authority ?? loadAuthority(), handler: handler) }
        return servers
    }

    /// The loopback TLS listener tunnels are relayed into, with certificates from `authority`.
    private func startTunnelListener(_ main: ServerConfiguration, authority: LocalCA?, handler: any HTTPHandler) -> DeviceMode.TLSSetup {
        guard let authority else { return .init(authority: nil, interceptPort: nil) }
        var configuration = main
        configuration.host = "127.0.0.1"
        configuration.port = 0
        configuration.tls = TLSServerSettings(authority: authority)
        do {
            let server = try HTTPServer.start(configuration: configuration, handler: handler)
            tunnels.withLock { $0 = server }
            return .init(authority: authority, interceptPort: server.address.port)
        } catch {
            logger.warning("device mode: HTTPS tunnels are refused, as their listener did not start: \(error)")
            return .init(authority: authority, interceptPort: nil)
        }
    }

    /// The listeners started at a first tunnel, to stop with the others.
    var startedLater: [HTTPServer] { tunnels.withLock { $0.map { [$0] } ?? [] } }
}
