import Foundation
import MockCore

/// Reads `mappings/**/*.json`: each file one mapping or `{"mappings": [...]}`. A bad file is
/// reported (path, line, what is wrong) and skipped; the others still load.
public enum MappingFiles {
    /// What one file gave.
    public struct Loaded: Sendable {
        public var file: String
        public var mappings: [StubMapping] = []
        public var errors: [StubError] = []
    }

    /// Every `*.json` under the directory's `mappings/`, in path order.
    public static func load(_ directory: StubDirectory) -> [Loaded] {
        jsonFiles(under: directory.mappings).map { load(file: $0, in: directory) }
    }

    static func jsonFiles(under directory: URL) -> [URL] {
        (FileManager.default.enumerator(at: directory, includingPropertiesForKeys: nil)?
            .compactMap { $0 as? URL } ?? [])
            .filter { $0.pathExtension.lowercased() == "json" }
            .sorted { $0.path < $1.path }
    }

    public static func load(file: URL, in directory: StubDirectory) -> Loaded {
        var loaded = Loaded(file: file.path)
        guard let data = FileManager.default.contents(atPath: file.path) else {
            loaded.errors.append(StubError(file: file.path, field: "", message: "cannot read the file"))
            return loaded
        }
        let json: JSONValue
        do {
            json = try JSONValue.parse(Array(data))
        } catch {
            loaded.errors.append(StubError(file: file.path, line: error.line, field: "", message: "column \(error.column): \(error.message)"))
            return loaded
        }
        let items = json["mappings"]?.arrayValue.map { items in items.enumerated().map { (Optional($0.offset), $0.element) } }
            ?? [(nil, json)]
        for (index, item) in items {
            do {
                loaded.mappings.append(try StubMapping.parse(item, in: directory, file: file.path))
            } catch {
                var located = error
                if let index { located.field = "mappings[\(index)]" + (error.field.isEmpty ? "" : ".\(error.field)") }
                located.line = located.line ?? JSONLocator.line(of: located.field, in: Array(data))
                loaded.errors.append(located)
            }
        }
        return loaded
    }
}
