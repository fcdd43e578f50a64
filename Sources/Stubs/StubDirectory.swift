import Foundation
import Templating

/// Where a set of mappings comes from and how they are read: `mappings/`, the `__files/` their
/// bodies name, and the templating in force.
public struct StubDirectory: Sendable {
    /// The pack's folder (or `stubs/` itself): fixtures are read relative to it.
    public let root: URL
    public let mappings: URL
    public let files: BodyFiles
    /// Every response is a template, not only those naming `response-template`.
    public let globalTemplating: Bool
    let helpers: TemplateHelpers

    /// `root/mappings` and `root/__files`. `shownAs` is `root` as messages that clients may see
    /// name it, relative to the stubs folder (`""` for the stubs folder itself, else a pack's
    /// folder name): a client never learns where the server's files are.
    public init(root: URL, globalTemplating: Bool = false, shownAs: String = "") {
        self.root = root
        mappings = root.appendingPathComponent("mappings")
        files = BodyFiles(root: root.appendingPathComponent("__files"), shownAs: shownAs.isEmpty ? "__files" : shownAs + "/__files")
        self.globalTemplating = globalTemplating
        helpers = ResponseTemplating.helpers(fixtures: BodyFiles(root: root, shownAs: shownAs.isEmpty ? "the stubs folder" : shownAs))
    }

    /// `stubs/` itself and each folder under it that has a `mappings/` folder (a stub pack).
    public static func all(in stubs: URL, globalTemplating: Bool = false) throws(StubError) -> [StubDirectory] {
        [StubDirectory(root: stubs, globalTemplating: globalTemplating)]
            + (try packRoots(in: stubs)).map { StubDirectory(root: $0, globalTemplating: globalTemplating, shownAs: $0.lastPathComponent) }
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
        return children
            .filter { !["mappings", "__files", "recorded"].contains($0.lastPathComponent) }
            .filter { FileManager.default.fileExists(atPath: $0.appendingPathComponent("mappings").path) }
            .sorted { $0.path < $1.path }
    }
}
