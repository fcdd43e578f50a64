import Foundation
import JSON
import Logging
import MockCore
import Testing
import UnderstudyTesting

/// The one loader of every emulator's `config.json`.
@Suite struct EmulatorSettingsTests {
    /// Settings as an emulator writes them: one key with its default, and the mounts.
    struct Example: EmulatorSettings {
        var limit = 10
        var mounts = ["/example"]

        mutating func read(_ json: JSONValue, in file: URL) throws(FixtureError) {
            limit = try FixtureError.wholeNumber(json, "limit", in: file) ?? limit
            if let value = try Self.mounts(in: json, formerly: "prefixes", file: file) {
                guard let list = value.arrayValue?.compactMap(\.stringValue) else { throw .field(file, "mounts", "must be a list") }
                mounts = list
            }
        }
    }

    private func folder(_ config: String?) throws -> URL {
        try makeTemporaryDirectory(config.map { ["config.json": $0] } ?? [:])
    }

    @Test func anAbsentFileGivesTheDefaults() throws {
        let root = try folder(nil)
        defer { try? FileManager.default.removeItem(at: root) }
        let (settings, problem) = Example.read(from: root)
        #expect(problem == nil && settings.limit == 10 && settings.mounts == ["/example"])
        #expect(Example.problems(in: root).isEmpty)
    }

    @Test func aProblemNamesTheFileAndFieldAndLeavesTheDefaults() throws {
        let root = try folder(#"{"limit": "many", "mounts": ["/other"]}"#)
        defer { try? FileManager.default.removeItem(at: root) }
        let settings = Example.load(from: root, emulator: "example", logger: Logger(label: "test"))
        #expect(settings.limit == 10 && settings.mounts == ["/example"])
        let problems = Example.problems(in: root).map(\.description)
        #expect(problems.count == 1)
        #expect(problems.first?.contains("config.json") == true && problems.first?.contains("limit") == true, "\(problems)")
    }

    @Test func mountsAreReadByTheirNameOrTheOlderOneButNotBoth() throws {
        for (config, expected) in [(#"{"mounts": ["/a"]}"#, ["/a"]), (#"{"prefixes": ["/b"]}"#, ["/b"])] {
            let root = try folder(config)
            defer { try? FileManager.default.removeItem(at: root) }
            #expect(Example.read(from: root).settings.mounts == expected, "\(config)")
        }
        let root = try folder(#"{"mounts": ["/a"], "prefixes": ["/b"]}"#)
        defer { try? FileManager.default.removeItem(at: root) }
        let problem = Example.read(from: root).problem.map(\.description) ?? ""
        #expect(problem.contains("prefixes") && problem.contains("mounts"), "\(problem)")
    }
}
