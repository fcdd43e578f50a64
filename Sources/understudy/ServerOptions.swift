import ArgumentParser
import Fleet
import Foundation
import HTTPServer
import Logging
import MockCore
import Recording
import Stubs

/// The listener's options, shared by `serve` and `record` (ServerAssembly.swift puts the server
/// together from them and runs it).
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
