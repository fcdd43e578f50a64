import Foundation
import JSON
import MockCore

/// `understudy check`: every problem in a stubs folder, as `path:line: field: message`, without
/// starting a server. Mappings of `stubs/` and of every stub pack, with their body files and
/// templates, and the MobileSmith rule that a plug-in configuration (`npi/<name>/config.json`)
/// is one flat object of strings.
public enum StubCheck {
    public struct Report: Sendable {
        public var files = 0
        public var mappings = 0
        public var problems: [StubError] = []
        /// What loads but may not do what was meant (e.g. a missing body file: a 500 when requested).
        public var warnings: [StubError] = []
    }

    /// `progress` is told the number of mapping files read so far, after each.
    public static func run(stubsDirectory: URL, progress: (Int) -> Void = { _ in }) -> Report {
        var report = Report()
        // The recordings (`stubs/recorded/<name>/`) are stub packs too, replayed by their own engine.
        let recorded = stubsDirectory.appendingPathComponent("recorded")
        do throws(StubError) {
            for directory in try StubDirectory.all(in: stubsDirectory) + StubDirectory.all(in: recorded) {
                for file in try MappingFiles.jsonFiles(under: directory.mappings) {
                    let loaded = MappingFiles.load(file: file, in: directory)
                    progress(report.files + 1)
                    report.files += 1
                    report.mappings += loaded.mappings.count
                    report.problems += loaded.errors
                    report.warnings += loaded.warnings
                    report.problems += inlineNPIProblems(file: loaded.file)
                }
                for file in try MappingFiles.jsonFiles(under: directory.files.root) where isNPIConfig(file.path) {
                    report.problems += npiProblems(inFile: file)
                }
            }
        } catch {
            report.problems.append(error)
        }
        return report
    }

    static func isNPIConfig(_ path: String) -> Bool {
        let parts = path.split(separator: "/")
        return parts.count >= 3 && parts[parts.count - 3] == "npi" && parts.last == "config.json"
    }

    private static func npiProblems(inFile file: URL) -> [StubError] {
        guard let data = FileManager.default.contents(atPath: file.path) else {
            return [StubError(file: file.path, field: "", message: "cannot read the file")]
        }
        do {
            return npiProblems(in: try JSONValue.parse(Array(data)), file: file.path, field: "", text: Array(data))
        } catch {
            return [StubError(file: file.path, line: error.line, field: "", message: "column \(error.column): \(error.message)")]
        }
    }

    /// Mappings that serve an NPI configuration inline (`jsonBody` for `/npi/<name>/config.json`).
    private static func inlineNPIProblems(file: String) -> [StubError] {
        guard let data = FileManager.default.contents(atPath: file), let json = try? JSONValue.parseLenient(Array(data)) else { return [] }
        let items = json["mappings"]?.arrayValue.map { $0.enumerated().map { ("mappings[\($0.offset)].", $0.element) } } ?? [("", json)]
        var problems: [StubError] = []
        for (prefix, item) in items {
            let url = item["request"].flatMap { request in
                ["url", "urlPath", "urlPathPattern", "urlPathTemplate"].lazy.compactMap { request[$0]?.stringValue }.first
            }
            guard let url, url.hasPrefix("/npi/"), url.hasSuffix("/config.json"), let body = item["response"]?["jsonBody"] else { continue }
            problems += npiProblems(in: body, file: file, field: prefix + "response.jsonBody", text: Array(data))
        }
        return problems
    }

    private static func npiProblems(in config: JSONValue, file: String, field: String, text: [UInt8]) -> [StubError] {
        let prefix = field.isEmpty ? "" : field + "."
        guard let members = config.objectValue else {
            return [
                StubError(
                    file: file, line: JSONLocator.line(of: field, in: text), field: field, message: "an NPI configuration must be one JSON object")
            ]
        }
        var problems: [StubError] = []
        for (key, value) in members where value.stringValue == nil {
            problems.append(
                StubError(
                    file: file, line: JSONLocator.line(of: prefix + key, in: text), field: prefix + key,
                    message: "NPI configuration values must be strings (the platform passes every value as a string), found \(value.serialized)"))
        }
        if !members.contains(where: { $0.0 == "ViewControllerClassName" || $0.0 == "FragmentClassName" }) {
            problems.append(
                StubError(
                    file: file, line: JSONLocator.line(of: field, in: text), field: field,
                    message: "an NPI configuration needs ViewControllerClassName (iOS) or FragmentClassName (Android)"))
        }
        return problems
    }
}
