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
            if let value = try Self.mounts(in: json, formerly: "prefixes", file: file) { mounts = try Self.mountPaths(value, file: file) }
        }
    }

    private func folder(_ config: String?) throws -> URL {
        try makeTemporaryDirectory(config.map { ["config.json": $0] } ?? [:])
    }

    /// Every emulator's mounts are checked by the one validator: each problem named with its place.
    @Test func mountsAreCheckedAlikeWhereverTheyAre() throws {
        for (config, place, words) in [
            (#"{"mounts": "/a"}"#, "mounts", "list"), (#"{"mounts": []}"#, "mounts", "one path or more"),
            (#"{"mounts": [7]}"#, "mounts[0]", "path"), (#"{"mounts": ["/a", "a"]}"#, "mounts[1]", "start with /"),
            (#"{"mounts": ["/a/"]}"#, "mounts[0]", "not end with one"), (#"{"mounts": ["/"]}"#, "mounts[0]", "start with /"),
            (#"{"mounts": ["/a?b=1"]}"#, "mounts[0]", "no query"), (#"{"mounts": ["/a b"]}"#, "mounts[0]", "space"),
            (#"{"mounts": ["/__admin/x"]}"#, "mounts[0]", "admin API"), (#"{"mounts": ["/a", "/a"]}"#, "mounts[1]", "twice"),
        ] {
            let root = try folder(config)
            defer { try? FileManager.default.removeItem(at: root) }
            let problem = try #require(Example.read(from: root).problem, "\(config)").description
            #expect(problem.contains(place) && problem.contains(words), "\(config): \(problem)")
        }
        let root = try folder(#"{"mounts": ["/a", "/b/c"]}"#)
        defer { try? FileManager.default.removeItem(at: root) }
        #expect(Example.read(from: root).settings.mounts == ["/a", "/b/c"])
        #expect(throws: Never.self) { try Example.mountPaths([], file: root, allowingNone: true) }
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
