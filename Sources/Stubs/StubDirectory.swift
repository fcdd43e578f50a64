import Foundation
import HTTPServer
import JSON
import Templating

/// Where a set of mappings comes from and how they are read: `mappings/`, the `__files/` their
/// bodies name, and the templating in force.
public struct StubDirectory: Sendable {
    /// The pack's folder (or `stubs/` itself): fixtures are read relative to it.
    public let root: URL
    public let mappings: URL
    public private(set) var files: BodyFiles
    /// Every response is a template, not only those naming `response-template`.
    public let globalTemplating: Bool
    /// Whose behaviour templates follow where WireMock 2.35 and 3.13 differ.
    public let wireMockVersion: WireMockVersion
    let helpers: TemplateHelpers

    /// This directory with a scope's own body files read first (mappings added in that scope).
    func with(scopeFiles: [String: SharedBytes]) -> StubDirectory {
        var directory = self
        directory.files.scopeFiles = scopeFiles
        return directory
    }

    /// `root/mappings` and `root/__files`. `shownAs` is `root` as messages that clients may see
    /// name it, relative to the stubs folder (`""` for the stubs folder itself, else a pack's
    /// folder name): a client never learns where the server's files are.
    public init(root: URL, globalTemplating: Bool = false, wireMockVersion: WireMockVersion = .v3, shownAs: String = "") {
        self.root = root
        mappings = root.appendingPathComponent("mappings")
        files = BodyFiles(root: root.appendingPathComponent("__files"), shownAs: shownAs.isEmpty ? "__files" : shownAs + "/__files")
        self.globalTemplating = globalTemplating
        self.wireMockVersion = wireMockVersion
        helpers = ResponseTemplating.helpers(fixtures: BodyFiles(root: root, shownAs: shownAs.isEmpty ? "the stubs folder" : shownAs))
            .escapingHTML(wireMockVersion == .v2)
    }

    /// The same way of reading, for the stub pack at `root`; the pack's own `understudy.json` may
    /// choose another WireMock version (a pack of HTML pages that relies on 2.x's escaping).
    func pack(at root: URL) throws(StubError) -> StubDirectory {
        var version = wireMockVersion
        do throws(StubError) {
            version = try Self.wireMockVersion(in: root) ?? version
        } catch {
            var located = error
            located.file = root.lastPathComponent + "/" + Self.settingsFileName
            throw located
        }
        return StubDirectory(root: root, globalTemplating: globalTemplating, wireMockVersion: version, shownAs: root.lastPathComponent)
    }

    /// `stubs/` itself and each folder under it that has a `mappings/` folder (a stub pack).
    public static func all(in stubs: URL, globalTemplating: Bool = false, wireMockVersion: WireMockVersion = .v3) throws(StubError) -> [StubDirectory]
    {
        let top = StubDirectory(root: stubs, globalTemplating: globalTemplating, wireMockVersion: wireMockVersion)
        var all = [top]
        for root in try packRoots(in: stubs) { all.append(try top.pack(at: root)) }
        return all
    }

    /// The stub packs' folders, in path order. `recorded` holds recordings, replayed by an engine
    /// of their own below the user's stubs, so it is never a pack of the user's.
    static func packRoots(in stubs: URL) throws(StubError) -> [URL] {
        guard FileManager.default.fileExists(atPath: stubs.path) else { return [] }
        let children: [URL]
        do {
            children = try FileManager.default.contentsOfDirectory(at: stubs, includingPropertiesForKeys: nil)
        } catch {
            throw StubError(file: stubs.path, field: "", message: "cannot list the folder: \(MappingFiles.reason(error))")
        }
        return
            children
            .filter { !["mappings", "__files", "recorded"].contains($0.lastPathComponent) }
            .filter { FileManager.default.fileExists(atPath: $0.appendingPathComponent("mappings").path) }
            .sorted { $0.path < $1.path }
    }
}

extension StubDirectory {
    /// The stubs folder's own settings file, beside `mappings/`.
    public static let settingsFileName = "understudy.json"

    /// The `wiremockVersion` (2 or 3) of `stubs/understudy.json`; nil when the file or the key is not there.
    public static func wireMockVersion(in stubs: URL) throws(StubError) -> WireMockVersion? {
        let file = stubs.appendingPathComponent(settingsFileName)
        guard FileManager.default.fileExists(atPath: file.path) else { return nil }
        let settings: JSONValue
        do {
            settings = try JSONValue.parse(Array(try Data(contentsOf: file)))
        } catch let error as JSONParseError {
            throw StubError(file: settingsFileName, line: error.line, field: "", message: "column \(error.column): \(error.message)")
        } catch {
            throw StubError(file: settingsFileName, field: "", message: "cannot read it: \(MappingFiles.reason(error))")
        }
        guard let value = settings["wiremockVersion"] else { return nil }
        guard let number = value.intValue, let version = WireMockVersion(rawValue: number) else {
            throw StubError(file: settingsFileName, field: "wiremockVersion", message: "expected 2 or 3")
        }
        return version
    }
}

/// Where WireMock 2.35 and 3.13 behave differently, which one Understudy follows (`serve
/// --wiremock-version`, or `wiremockVersion` in the stubs folder's `understudy.json`; a stub
/// pack's own `understudy.json` chooses for that pack). Two differences (docs/stubs.md): 3.x
/// prints `{{x}}` in templates as it is, 2.x HTML-escapes it; an `equalToXml` naming no
/// `namespaceAwareness` compares as 3.x's STRICT or as 2.x's LEGACY.
public enum WireMockVersion: Int, Sendable, CaseIterable {
    case v2 = 2
    case v3 = 3
}
