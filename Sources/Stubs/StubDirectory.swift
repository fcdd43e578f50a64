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

    /// `root/mappings` and `root/__files`.
    public init(root: URL, globalTemplating: Bool = false) {
        self.root = root
        mappings = root.appendingPathComponent("mappings")
        files = BodyFiles(root: root.appendingPathComponent("__files"))
        self.globalTemplating = globalTemplating
        helpers = ResponseTemplating.helpers(fixtures: BodyFiles(root: root))
    }
}
