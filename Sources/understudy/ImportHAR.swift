import ArgumentParser
import Foundation
import Recording

/// `understudy import-har`: traffic captured elsewhere (a browser's HAR export) as stub mappings.
struct ImportHAR: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "import-har",
                                                    abstract: "Turn the entries of a HAR 1.2 file into stub mappings (a stub pack).")

    @Argument(help: "The HAR file.")
    var file: String

    @Option(help: "Where the mappings go (a stub pack: mappings/ and __files/), e.g. stubs/recorded/browser.")
    var out: String

    @Option(name: .customLong("match-header"), help: "A request header the mappings match on (repeatable).")
    var matchHeaders: [String] = []

    @Option(name: .customLong("ignore-query"), help: "A query parameter left out of the match (repeatable).")
    var ignoredQueryParameters: [String] = []

    @Option(name: .customLong("redact"), help: "Another query parameter, form field or JSON field whose value is never saved (repeatable).")
    var redacted: [String] = []

    @Flag(help: "Keep only the first answer of a request asked again, instead of a scenario of all of them.")
    var noScenarios = false

    func run() throws {
        guard let data = FileManager.default.contents(atPath: file) else { throw ValidationError("cannot read \(file)") }
        let exchanges: [RecordedExchange], skipped: [HARImport.Problem]
        do {
            (exchanges, skipped) = try HARImport.exchanges(Array(data))
        } catch {
            throw ValidationError("\(file): \(error)")
        }
        var options = RecordingOptions()
        options.matchHeaders = matchHeaders
        options.ignoredQueryParameters = ignoredQueryParameters
        options.redactedParameters += redacted
        options.repeatsAsScenarios = !noScenarios
        let store = RecordingStore(directory: URL(fileURLWithPath: out), options: options)
        var written = 0
        for exchange in exchanges { written += try store.record(exchange).count }
        for problem in skipped { FileHandle.standardError.write(Data("\(file): \(problem)\n".utf8)) }
        print("imported \(exchanges.count) of \(exchanges.count + skipped.count) entries into \(out) (mapping files written: \(written))")
    }
}
