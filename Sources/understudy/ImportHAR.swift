import ArgumentParser
import Foundation
import Recording

/// `understudy import-har`: traffic captured elsewhere (a browser's HAR export) as stub mappings.
struct ImportHAR: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import-har",
        abstract: "Turn the entries of a HAR 1.2 file into stub mappings (a stub pack).")

    @Argument(help: "The HAR file.")
    var file: String

    @Option(help: "Where the mappings go (a stub pack: mappings/ and __files/), e.g. stubs/recorded/browser.")
    var out: String

    @OptionGroup var rules: RecordingRules

    func run() throws {
        guard let data = FileManager.default.contents(atPath: file) else { return try fail("\(file): cannot read the file") }
        let exchanges: [RecordedExchange]
        let channels: [RecordedChannel]
        let skipped: [HARImport.Problem]
        do {
            (exchanges, channels, skipped) = try HARImport.exchanges(Array(data))
        } catch {
            return try fail("\(file): \(error)")
        }
        let store = RecordingStore(directory: URL(fileURLWithPath: out), options: rules.options)
        var written = 0
        let progress = ProgressLine()
        for (index, exchange) in exchanges.enumerated() {
            written += try store.record(exchange).count
            progress.update("importing \(index + 1) of \(exchanges.count) entries")
        }
        progress.finish()
        // Each WebSocket session a file of message mappings (message-mappings/, beside mappings/).
        for channel in channels {
            try store.record(channel)
            written += 1
        }
        for problem in skipped { FileHandle.standardError.write(Data("\(file): \(problem)\n".utf8)) }
        let total = exchanges.count + channels.count
        print(
            "imported \(total) of \(total + skipped.count) entries into \(out) (mapping files written: \(written)"
                + (channels.isEmpty ? ")" : ", \(channels.count) WebSocket session(s) as message mappings)"))
    }

    /// A problem with the file, not with how the command was called: the message alone, exit 1.
    private func fail(_ message: String) throws {
        FileHandle.standardError.write(Data("\(message)\n".utf8))
        throw ExitCode(1)
    }
}
