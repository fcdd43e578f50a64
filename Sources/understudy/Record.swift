import ArgumentParser
import Foundation
import HTTPServer
import MockCore
import Recording

/// `understudy record`: a proxy to real backends that saves what they answer as stub mappings.
struct Record: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Forward requests to real backends and save their answers as stub mappings (a stub pack) until stopped.")

    @OptionGroup var server: ServerOptions
    @OptionGroup var upstream: UpstreamOptions

    @Option(name: .customLong("target"), help: "The backend to record: URL, or /prefix=URL for the paths under /prefix (repeatable).")
    var targets: [String] = []

    @Option(help: "Where the recording goes (a stub pack: mappings/ and __files/), e.g. stubs/recorded/staging.")
    var out: String

    @OptionGroup var rules: RecordingRules

    func validate() throws {
        guard !targets.isEmpty else { throw ValidationError("give at least one --target URL") }
        for target in targets where RecordingTarget(argument: target) == nil {
            throw ValidationError("--target \(target): not an http:// or https:// URL (or /prefix=URL)")
        }
    }

    func run() throws {
        let logger = server.makeLogger()
        let directory = URL(fileURLWithPath: out)
        let journal = RequestJournal(capacity: server.journalSize)
        let store = RecordingStore(directory: directory, options: rules.options)
        try server.run(journal: journal, logger: logger, stopped: {
            logger.info("recorded \(store.mappings.count) mappings into \(directory.path)")
        }) {
            let proxy = RecordingProxy(timeout: .seconds(upstream.upstreamTimeout), tls: upstream.tls, logger: logger)
            proxy.start(targets: targets.compactMap(RecordingTarget.init(argument:)), store: store)
            logger.info("recording \(targets.joined(separator: ", ")) into \(directory.path)")
            return [RecordingAdminAPI(proxy: proxy, recordedDirectory: directory.deletingLastPathComponent(), replay: nil), proxy]
        }
    }
}
