import ArgumentParser
import Foundation
import Geocoder
import Informix
import Lotus
import Commerce
import MockCore
import Stubs

/// `understudy check`: validates stub files without serving them.
struct Check: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Check the stub files (mappings, body files, templates, NPI configurations, geocoder data, the Informix database, the Lotus and Commerce fixtures and page templates, hosts.json); exit 1 on any problem.")

    @Option(help: "The stubs directory to check.")
    var stubs: String = "./stubs"

    func run() throws {
        let root = URL(fileURLWithPath: stubs)
        guard FileManager.default.fileExists(atPath: root.path) else {
            throw ValidationError("no stubs directory at \(root.path)")
        }
        let progress = ProgressLine()
        let report = StubCheck.run(stubsDirectory: root) { progress.update("checking mapping file \($0)") }
        progress.finish()
        let geocoder = root.appendingPathComponent("geocoder")
        let geocoderProblems = FileManager.default.fileExists(atPath: geocoder.path) ? GeocoderBackend.check(directory: geocoder) : []
        let informix = root.appendingPathComponent("informix")
        let informixProblems = FileManager.default.fileExists(atPath: informix.path) ? InformixBackend.check(directory: informix) : []
        let lotus = root.appendingPathComponent("lotus")
        let lotusProblems = FileManager.default.fileExists(atPath: lotus.path) ? LotusBackend.check(directory: lotus) : []
        let commerce = root.appendingPathComponent("commerce")
        let commerceProblems = FileManager.default.fileExists(atPath: commerce.path) ? CommerceBackend.check(directory: commerce) : []
        // hosts.json may name the emulators whose folders are here, and what every server has.
        let emulators = ["geocoder", "informix", "lotus", "commerce"].filter { FileManager.default.fileExists(atPath: root.appendingPathComponent($0).path) }
        var hostProblems: [FixtureError] = []
        do {
            _ = try HostMap.load(root.appendingPathComponent("hosts.json"), backends: Set(emulators + ["stubs", "recordings", "files"]))
        } catch {
            hostProblems.append(error)
        }
        let problems = report.problems.map(String.init(describing:)) + geocoderProblems.map(String.init(describing:))
            + informixProblems.map(String.init(describing:)) + lotusProblems.map(String.init(describing:))
            + commerceProblems.map(String.init(describing:)) + hostProblems.map(String.init(describing:))
        for problem in problems {
            FileHandle.standardError.write(Data("\(problem)\n".utf8))
        }
        for warning in report.warnings {
            FileHandle.standardError.write(Data("warning: \(warning)\n".utf8))
        }
        let warnings = report.warnings.isEmpty ? "" : ", \(report.warnings.count) warning(s)"
        let summary = "\(report.files) mapping files, \(report.mappings) mappings, \(problems.count) problem(s)" + warnings
        print(summary)
        if !problems.isEmpty { throw ExitCode(1) }
    }
}
