import Foundation
import MockCore
import Testing
import UnderstudyTesting

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The executable's one list of emulators: `understudy emulators` shows it, and `serve`, `check`,
/// their help and the load benchmark take the emulators from it, so none can be left out of one.
@Suite(.serialized) struct EmulatorRegistrationTests {
    /// `understudy emulators --json`, as bench/run.py reads it.
    func registered() throws -> [[String: Any]] {
        let run = try UnderstudyProcess(["emulators", "--json"])
        let output = run.allOutput()
        #expect(run.finish().status == 0)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any])
        return try #require(json["emulators"] as? [[String: Any]])
    }

    func names() throws -> [String] { try registered().compactMap { $0["name"] as? String } }

    /// The emulators that ship; a new one is added to the registry, not to this list.
    static let shipped = ["geocoder", "informix", "lotus", "commerce"]

    @Test func listsTheShippedEmulatorsWithTheBenchScenariosTheFiguresAreKeptFor() throws {
        let emulators = try registered()
        let names = emulators.compactMap { $0["name"] as? String }
        #expect(Set(Self.shipped).isSubset(of: names), "every shipped emulator is registered: \(names)")
        #expect(Set(names).count == names.count, "no emulator registered twice")
        // docs/performance.md's history compares these scenarios run by run: their names, requests
        // and variants stay as they were.
        var scenarios: [String: [String: Any]] = [:]
        for emulator in emulators {
            let summary = emulator["summary"] as? String ?? ""
            #expect(!summary.isEmpty && summary.count <= Emulator.maxSummaryLength, "one line of serve --help's list: \(summary)")
            #expect(!(emulator["checkedFiles"] as? String ?? "").isEmpty)
            for benchmark in emulator["benchmarks"] as? [[String: Any]] ?? [] {
                scenarios[benchmark["name"] as? String ?? ""] = benchmark
            }
        }
        #expect(
            Set(["commerce-product", "commerce-search", "geocode-reverse", "geocode-zip", "informix-customers", "lotus-blogs"]).isSubset(
                of: scenarios.keys))
        #expect(scenarios["geocode-zip"]?["path"] as? String == "/maps/api/geocode/xml?address=94086&sensor=true")
        #expect(scenarios["geocode-zip"]?["method"] as? String == "GET")
        #expect(scenarios["geocode-zip"]?["formBody"] is NSNull)
        #expect(scenarios["informix-customers"]?["method"] as? String == "POST")
        #expect(scenarios["informix-customers"]?["formBody"] as? String == "sql_stmt=SELECT+*+FROM+customer&tableName=customer")
        #expect(scenarios.values.allSatisfy { $0["uncachedVariant"] as? Bool == true }, "each has its -uncached scenario")
        #expect(scenarios["lotus-blogs"]?["sameBytesVariant"] as? Bool == true)

        let text = try UnderstudyProcess(["emulators"])
        let lines = text.allOutput().split(separator: "\n")
        #expect(text.finish().status == 0)
        #expect(lines.compactMap { $0.split(separator: " ").first.map(String.init) } == names, "the text lists what the JSON lists, in order")
    }

    @Test func serveStartsEveryRegisteredEmulatorWhoseFolderIsThereAndNoneWhenReplayingOnly() async throws {
        let names = try names()
        let stubs = try makeTemporaryDirectory(Dictionary(uniqueKeysWithValues: names.map { ("\($0)/config.json", "{}") }))
        defer { try? FileManager.default.removeItem(at: stubs) }
        for replayOnly in [false, true] {
            let run = try UnderstudyProcess(
                ["serve", "--port", "0", "--stubs", stubs.path, "--threads", "1", "--no-watch"] + (replayOnly ? ["--replay-only"] : []))
            let port = try #require(Int(run.firstLine().split(separator: ":").last ?? ""))
            let session = URLSession(configuration: .ephemeral)
            let (body, _) = try await session.data(from: try #require(URL(string: "http://127.0.0.1:\(port)/__admin/backends")))
            session.invalidateAndCancel()
            run.signal(SIGTERM)
            #expect(run.finish().status == 0)
            let listed = try #require(try JSONSerialization.jsonObject(with: body) as? [String: Any])["backends"] as? [[String: Any]] ?? []
            let emulators = listed.filter { $0["kind"] as? String == "emulator" }.compactMap { $0["name"] as? String }
            #expect(emulators.sorted() == (replayOnly ? [] : names.sorted()))
        }
    }

    @Test func checkChecksEveryRegisteredEmulatorsFolderAndHostsMayNameEach() throws {
        let names = try names()
        var files = Dictionary(uniqueKeysWithValues: names.map { ("\($0)/config.json", "{\n") })
        files["hosts.json"] = "{" + names.map { "\"\($0).test\": \"\($0)\"" }.joined(separator: ", ") + "}"
        let stubs = try makeTemporaryDirectory(files)
        defer { try? FileManager.default.removeItem(at: stubs) }
        let run = try UnderstudyProcess(["check", "--stubs", stubs.path])
        let (status, errors) = run.finish()
        #expect(status == 1)
        for name in names {
            #expect(errors.contains("\(name)/config.json:"), "\(name)'s folder is checked")
        }
        #expect(!errors.contains("hosts.json"), "hosts.json may name every emulator whose folder is there")
    }

    @Test func helpNamesEveryRegisteredEmulator() throws {
        let names = try names()
        for command in ["serve", "check"] {
            let run = try UnderstudyProcess([command, "--help"])
            let help = run.allOutput()
            #expect(run.finish().status == 0)
            for name in names {
                #expect(help.contains("\(name)/"), "\(command) --help names \(name)/")
            }
        }
    }
}
