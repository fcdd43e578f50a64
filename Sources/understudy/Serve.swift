import ArgumentParser
import DeviceProxy
import Foundation
import HTTPServer
import Logging
import MockCore
import Recording
import Stubs

/// `understudy serve`: starts the server and runs until SIGINT or SIGTERM.
struct Serve: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Serve the stubs and emulators until stopped (Ctrl-C / SIGTERM).",
        discussion: "An emulator is served when its folder is in the stubs directory:\n" + Emulator.listing)

    @OptionGroup var server: ServerOptions
    @OptionGroup var upstream: UpstreamOptions
    @OptionGroup var device: DeviceOptions

    @Option(
        help: ArgumentHelp(
            "The stubs directory: __files/, mappings/, recorded/ and one folder per emulator ("
                + Emulator.registered.map { $0.name + "/" }.joined(separator: ", ") + ")."))
    var stubs: String = "./stubs"

    @Flag(
        name: [.customLong("global-templating"), .customLong("global-response-templating")],
        help: "Treat every stub response as a template, not only those with transformers: [\"response-template\"].")
    var globalTemplating = false

    @Option(
        name: .customLong("wiremock-version"),
        help: ArgumentHelp(
            "Follow WireMock 2 (2.35) or 3 (3.13) where they differ: 3 prints {{x}} in templates as it is, 2 HTML-escapes it "
                + "(default: wiremockVersion in the stubs folder's understudy.json, else 3).", valueName: "2|3"))
    var wireMockVersion: Int?

    @Option(help: "Keep emulator state (the Informix database) in files of this directory between runs.")
    var dataDir: String?

    @OptionGroup var contractOptions: ContractOptions

    @Flag(help: "Serve only stubs and recordings: no emulators, so what was not recorded is a 404 with near-misses.")
    var replayOnly = false

    @Option(help: "Forward what no stub or recording answers to this backend and record it in stubs/recorded/fallback.")
    var fallbackProxy: String?

    @Flag(inversion: .prefixedNo, help: "Reload stub files when they change (within a second).")
    var watch = true

    @Option(
        name: .customLong("allow-webhook-host"),
        help: ArgumentHelp(
            "A host stubs' webhooks may reach besides loopback and hosts.json's hosts (repeatable; --pass-through allows any).",
            valueName: "host"))
    var webhookHosts: [String] = []

    func validate() throws {
        if let wireMockVersion, WireMockVersion(rawValue: wireMockVersion) == nil {
            throw ValidationError("--wiremock-version must be 2 or 3, not \(wireMockVersion)")
        }
        if let fallbackProxy, RecordingTarget(argument: fallbackProxy) == nil {
            throw ValidationError("--fallback-proxy must be an http:// or https:// URL")
        }
    }

    func run() throws {
        let logger = server.makeLogger()
        let stubsURL = URL(fileURLWithPath: stubs)
        if !FileManager.default.fileExists(atPath: stubsURL.path) {
            logger.warning("stubs directory \(stubsURL.path) does not exist: serving the admin API only")
        }
        var chosen = wireMockVersion.flatMap { WireMockVersion(rawValue: $0) }
        if chosen == nil {
            do throws(StubError) { chosen = try StubDirectory.wireMockVersion(in: stubsURL) } catch { throw ValidationError("\(error)") }
        }
        let version = chosen ?? .v3
        let contract = try contractOptions.load(stubs: stubsURL)
        if let contract {
            logger.info("checking traffic against \(contract.path) (\(contract.enforcement.rawValue) validation)")
        }
        let journal = RequestJournal(capacity: server.journalSize, maxBodyBytes: server.journalBytes)
        var watchers: [StubWatcher] = []
        let hostsFile = stubsURL.appendingPathComponent("hosts.json")
        let webhooks = WebhookDispatch(logger: logger)
        try server.run(
            journal: journal, logger: logger, device: (device, hostsFile), listening: webhooks.listening(onPort:),
            stopped: { watchers.forEach { $0.stop() } }, contract: contract
        ) { running in
            // Webhooks may reach what hosts.json maps; the file reloads with the stub files.
            let deviceMode = running?.mode
            webhooks.configure { [passThrough = device.passThrough, webhookHosts] policy in
                policy.allowedHosts = Set(webhookHosts.map { $0.lowercased() })
                policy.anyHost = passThrough
                policy.isMapped = { host in deviceMode?.hostMap.target(for: host) != nil }
            }
            let settings = GlobalSettings()
            let stubs = StubEngine(
                stubsDirectory: stubsURL, globalTemplating: globalTemplating, wireMockVersion: version, settings: settings,
                webhooks: webhooks, logger: logger)
            let staticFiles = StaticFiles(root: stubsURL.appendingPathComponent("__files"), logger: logger)
            let recordedURL = stubsURL.appendingPathComponent("recorded")
            let recordings = StubEngine(
                stubsDirectory: recordedURL, globalTemplating: globalTemplating, wireMockVersion: version, name: "recordings",
                tier: .recordings, settings: settings, webhooks: webhooks, logger: logger)
            // A recording started through the admin API forwards everything but user stubs (as
            // WireMock's record mode does: registered before the recordings, same tier); the
            // fallback proxy only what nothing else, static files included, answers.
            let recorder = RecordingProxy(timeout: .seconds(upstream.upstreamTimeout), tls: upstream.tls, logger: logger)
            // The message journal: a quarter of --journal-bytes, beside the requests'.
            let messages = MessageStubs(
                directory: stubs.directory, httpStubs: stubs, journalCapacity: server.journalSize, journalBytes: server.journalBytes / 4,
                maxChannels: server.maxChannels, logger: logger)
            var core: [any Backend] = [
                StubAdminAPI(
                    engine: stubs, journal: journal, recordings: recordings,
                    maxScopeMappingBytes: server.maxScopeMappingBytes),
                RecordingAdminAPI(proxy: recorder, recordedDirectory: recordedURL, replay: recordings),
                messages,
                stubs, recorder, recordings, staticFiles,
            ]
            if let fallbackProxy, let target = RecordingTarget(argument: fallbackProxy) {
                let fallback = RecordingProxy(
                    name: "fallback-proxy", tier: .fallback, timeout: .seconds(upstream.upstreamTimeout),
                    tls: upstream.tls, logger: logger)
                fallback.start(
                    targets: [target], store: RecordingStore(directory: recordedURL.appendingPathComponent("fallback"), options: RecordingOptions()))
                core.append(fallback)
            }
            if watch {
                watchers = [
                    StubWatcher(engine: stubs, logger: logger, files: [hostsFile], folders: messages.watchedFolders) {
                        staticFiles.reload()
                        messages.reloadFiles()
                        if let problem = deviceMode?.reload() { logger.warning("device mode: \(problem); the hosts in use stay") }
                    },
                    StubWatcher(engine: recordings, logger: logger),
                ]
            }
            return core + (replayOnly ? [] : emulators(stubsURL, logger))
        }
    }

    /// The registered emulators whose folder `stubs` has, started.
    private func emulators(_ stubs: URL, _ logger: Logger) -> [any Backend] {
        let dataDirectory = dataDir.map { URL(fileURLWithPath: $0) }
        return Emulator.present(in: stubs).map { emulator in
            emulator.makeBackend(Emulator.Context(directory: emulator.directory(in: stubs), dataDirectory: dataDirectory, logger: logger))
        }
    }
}
