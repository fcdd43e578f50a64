import ArgumentParser
import DeviceProxy
import Foundation
import MockCore
import Stubs

/// `understudy check`: validates stub files without serving them.
struct Check: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Check the stub files (mappings, body files, templates, NPI configurations, recordings, hosts.json) and each emulator's folder ("
            + Emulator.registered.map { "\($0.name)/: \($0.checkedFiles)" }.joined(separator: "; ") + "); exit 1 on any problem.")

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
        let emulators = Emulator.present(in: root)
        let emulatorProblems = emulators.flatMap { $0.check(directory: $0.directory(in: root)) }
        // hosts.json may name the emulators whose folders are here, and what every server has.
        var hostProblems: [FixtureError] = []
        do {
            _ = try HostMap.load(root.appendingPathComponent("hosts.json"), backends: Set(emulators.map(\.name) + ["stubs", "recordings", "files"]))
        } catch {
            hostProblems.append(error)
        }
        let problems = report.problems.map(String.init(describing:)) + (emulatorProblems + hostProblems).map(String.init(describing:))
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
