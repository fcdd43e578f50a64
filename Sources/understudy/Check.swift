import ArgumentParser
import Foundation
import Stubs

/// `understudy check`: validates stub files without serving them.
struct Check: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Check the stub files (mappings, body files, templates, NPI configurations); exit 1 on any problem.")

    @Option(help: "The stubs directory to check.")
    var stubs: String = "./stubs"

    func run() throws {
        let root = URL(fileURLWithPath: stubs)
        guard FileManager.default.fileExists(atPath: root.path) else {
            throw ValidationError("no stubs directory at \(root.path)")
        }
        let report = StubCheck.run(stubsDirectory: root)
        for problem in report.problems {
            FileHandle.standardError.write(Data("\(problem)\n".utf8))
        }
        let summary = "\(report.files) mapping files, \(report.mappings) mappings, \(report.problems.count) problem(s)"
        print(summary)
        if !report.problems.isEmpty { throw ExitCode(1) }
    }
}
