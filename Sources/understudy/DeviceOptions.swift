import ArgumentParser
import Foundation
import HTTPServer
import Logging
import MockCore

/// Device mode's options: Understudy as the HTTP(S) proxy of a simulator, an emulator, a phone
/// or a browser, answering for the real hosts of `stubs/hosts.json` (docs/device-mode.md).
struct DeviceOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Where the local CA's certificate and key are kept, made on first start "
        + "(default: UNDERSTUDY_CA_DIR, else ~/.understudy/ca).", valueName: "dir"))
    var caDir: String?

    @Option(help: ArgumentHelp("Also serve https:// on this port, with --tls-certificate/--tls-key or certificates from the local CA.",
                               valueName: "port"))
    var httpsPort: Int?

    @Flag(help: "Let proxied requests for hosts hosts.json does not name reach the real servers (default: a 502 page; nothing leaves the machine).")
    var passThrough = false

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

    /// Reads `hosts.json` and the local CA (made when missing). Without a CA, device mode still
    /// answers proxied plain-HTTP requests; CONNECT tunnels are refused.
    func start(hostsFile: URL, backends: [any Backend], logger: Logger) -> RunningDevice {
        // hosts.json names backends that answer requests: emulators, stubs, recordings, static files.
        let names = Set(backends.filter { $0.tier >= .userStubs }.map(\.name))
        let mode = DeviceMode(hostsFile: hostsFile, backends: names, passThrough: passThrough, logger: logger)
        var authority: LocalCA?
        do {
            authority = try LocalCA.loadOrCreate(directory: caDirectory)
        } catch {
            logger.warning("device mode: no local CA, so HTTPS tunnels are refused: \(error)")
        }
        return RunningDevice(mode: mode, authority: authority, httpsPort: httpsPort, logger: logger)
    }
}

/// Device mode once started: its host map, its CA, and the TLS listener it relays tunnels into.
struct RunningDevice {
    let mode: DeviceMode
    let authority: LocalCA?
    let httpsPort: Int?
    let logger: Logger

    /// Starts the TLS listeners: `--https-port` (at the main listener's address) when given, and
    /// the one CONNECT tunnels are relayed into — the https port itself when it issues the local
    /// CA's certificates on an address loopback reaches, else one on a free loopback port.
    func startHTTPS(_ main: ServerConfiguration, tlsFiles: (certificate: String, key: String)?, handler: any HTTPHandler) throws -> [HTTPServer] {
        var servers: [HTTPServer] = []
        var interception: HTTPServer?
        if let httpsPort {
            var configuration = main
            configuration.port = httpsPort
            if let tlsFiles {
                configuration.tls = TLSServerSettings(certificateFile: tlsFiles.certificate, privateKeyFile: tlsFiles.key)
            } else if let authority {
                configuration.tls = TLSServerSettings(authority: authority)
            } else {
                throw ValidationError("--https-port needs --tls-certificate and --tls-key, or the local CA (see the warning above)")
            }
            let https = try HTTPServer.start(configuration: configuration, handler: handler)
            servers.append(https)
            mode.servesHTTPS(onPort: https.address.port)
            if tlsFiles == nil, ["127.0.0.1", "0.0.0.0", "localhost"].contains(main.host) { interception = https }
        }
        if interception == nil, let authority {
            var configuration = main
            configuration.host = "127.0.0.1"
            configuration.port = 0
            configuration.tls = TLSServerSettings(authority: authority)
            let tunnels = try HTTPServer.start(configuration: configuration, handler: handler)
            servers.append(tunnels)
            interception = tunnels
        }
        if let interception { mode.intercept(onPort: interception.address.port) }
        return servers
    }
}
