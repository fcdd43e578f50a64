import ArgumentParser
import ContractValidation
import DeviceProxy
import Foundation
import HTTPServer
import MockCore
import OpenAPIContracts
import Recording

/// `understudy record`: a proxy to real backends that saves what they answer as stub mappings.
struct Record: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Forward requests to real backends and save their answers as stub mappings (a stub pack) until stopped.")

    @OptionGroup var server: ServerOptions
    @OptionGroup var upstream: UpstreamOptions

    @Option(name: .customLong("target"), help: "The backend to record: URL, or /prefix=URL for the paths under /prefix (repeatable).")
    var targets: [String] = []

    @Flag(help: "Be a device's proxy and record the real hosts it asks for (HTTPS through the local CA): a device session becomes a stub pack.")
    var proxy = false

    @OptionGroup var device: DeviceOptions

    @Option(help: "Where the recording goes (a stub pack: mappings/ and __files/), e.g. stubs/recorded/staging.")
    var out: String

    @OptionGroup var rules: RecordingRules

    @Option(
        help: ArgumentHelp(
            "An OpenAPI 3.0/3.1 document the real answers are checked against: what breaks it is marked in the journal and summed up at the end.",
            valueName: "spec"))
    var openapi: String?

    func validate() throws {
        guard !targets.isEmpty || proxy else { throw ValidationError("give at least one --target URL, or --proxy") }
        for target in targets where RecordingTarget(argument: target) == nil {
            throw ValidationError("--target \(target): not an http:// or https:// URL (or /prefix=URL)")
        }
    }

    func run() throws {
        let logger = server.makeLogger()
        let directory = URL(fileURLWithPath: out)
        let journal = RequestJournal(capacity: server.journalSize, maxBodyBytes: server.journalBytes)
        let store = RecordingStore(directory: directory, options: rules.options)
        // As a device's proxy no host is mapped: every one it asks for is forwarded and recorded.
        let asDeviceProxy = proxy ? (device, directory.appendingPathComponent("hosts.json")) : nil
        // On a terminal, a line that counts what is saved as it comes.
        let progress = ProgressLine()
        let ticker = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "record progress"))
        var shownCount = 0
        ticker.schedule(deadline: .now() + 1, repeating: 0.5)
        ticker.setEventHandler {
            let count = store.exchangeCount
            guard count != shownCount else { return }
            shownCount = count
            progress.update("recorded \(count) exchange\(count == 1 ? "" : "s") into \(directory.path)")
        }
        ticker.resume()
        var contract: OpenAPIContract?
        if let openapi {
            do throws(SpecError) {
                contract = try OpenAPIContract.load(openapi, enforcement: .soft)
            } catch {
                throw ValidationError("\(error)")
            }
        }
        try server.run(
            journal: journal, logger: logger, device: asDeviceProxy,
            stopped: {
                ticker.cancel()
                progress.finish()
                logger.info("recorded \(store.mappings.count) mappings into \(directory.path)")
                if let contract { Self.printDrift(journal, against: contract) }
            }, contract: contract
        ) { _ in
            let recorder = RecordingProxy(timeout: .seconds(upstream.upstreamTimeout), tls: upstream.tls, logger: logger)
            recorder.start(targets: targets.compactMap(RecordingTarget.init(argument:)) + (proxy ? [.requestedHost] : []), store: store)
            logger.info("recording \((targets + (proxy ? ["the hosts a device asks for"] : [])).joined(separator: ", ")) into \(directory.path)")
            return [RecordingAdminAPI(proxy: recorder, recordedDirectory: directory.deletingLastPathComponent(), replay: nil), recorder]
        }
    }

    /// What the real answers broke of the contract: each distinct violation, by operation.
    private static func printDrift(_ journal: RequestJournal, against contract: OpenAPIContract) {
        let drifted = journal.entries.filter { !$0.violations.isEmpty }
        let violations = drifted.flatMap(\.violations)
        print("contract drift against \(contract.path): \(drifted.count) of \(journal.entries.count) answers break it")
        for line in ContractViolation.summary(of: violations) { print("  " + line) }
    }
}
