import Foundation
import JSON
import MockCore

/// Reads `mappings/**/*.json`: each file one mapping or `{"mappings": [...]}`. A bad file is
/// reported (path, line, what is wrong) and skipped; the others still load.
public enum MappingFiles {
    /// What one file gave.
    public struct Loaded: Sendable {
        public var file: String
        public var mappings: [StubMapping] = []
        public var errors: [StubError] = []
        /// The loaded mappings' warnings, with file and line.
        public var warnings: [StubError] { mappings.flatMap(\.warnings) }
    }

    /// Every `*.json` under the directory's `mappings/`, in path order. Throws when a folder cannot
    /// be listed (out of descriptors, no permission): a partial list would drop live mappings.
    public static func load(_ directory: StubDirectory) throws(StubError) -> [Loaded] {
        try jsonFiles(under: directory.mappings).map { load(file: $0, in: directory) }
    }

    /// Every `*.json` file below `directory` (none when it does not exist), in path order.
    static func jsonFiles(under directory: URL) throws(StubError) -> [URL] {
        var found: [URL] = []
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory.path, isDirectory: &isFolder), isFolder.boolValue else { return [] }
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        } catch {
            throw StubError(file: directory.path, field: "", message: "cannot list the folder: \(Self.reason(error))")
        }
        for name in names {
            let item = directory.appendingPathComponent(name)
            if FileManager.default.fileExists(atPath: item.path, isDirectory: &isFolder), isFolder.boolValue {
                found += try jsonFiles(under: item)
            } else if item.pathExtension.lowercased() == "json" {
                found.append(item)
            }
        }
        return found.sorted { $0.path < $1.path }
    }

    /// The system's words for a file error ("Too many open files"), not Foundation's wrapper text.
    static func reason(_ error: any Error) -> String {
        let underlying = (error as NSError).userInfo[NSUnderlyingErrorKey] as? NSError
        if let underlying, underlying.domain == NSPOSIXErrorDomain, let code = POSIXErrorCode(rawValue: Int32(underlying.code)) {
            return String(cString: strerror(code.rawValue))
        }
        return error.localizedDescription
    }

    public static func load(file: URL, in directory: StubDirectory) -> Loaded {
        var loaded = Loaded(file: file.path)
        let data: Data
        do {
            data = try Data(contentsOf: file)
        } catch {
            loaded.errors.append(StubError(file: file.path, field: "", message: "cannot read the file: \(reason(error))"))
            return loaded
        }
        let json: JSONValue
        do {
            json = try JSONValue.parseLenient(Array(data))
        } catch {
            loaded.errors.append(StubError(file: file.path, line: error.line, field: "", message: "column \(error.column): \(error.message)"))
            return loaded
        }
        // A file of many: WireMock's StubMappingCollection, which refuses what it does not know
        // (`importOptions` belongs to POST /__admin/mappings/import, not to a file).
        if json["mappings"] != nil, let unknown = json.objectValue?.first(where: { !["mappings", "meta", "$schema"].contains($0.0) }) {
            loaded.errors.append(
                StubError(
                    file: file.path, line: JSONLocator.line(of: unknown.0, in: Array(data)), field: unknown.0,
                    message: "unknown field '\(unknown.0)' beside `mappings` (a file holds `mappings`, `meta` and `$schema`)"))
            return loaded
        }
        let items =
            json["mappings"]?.arrayValue.map { items in items.enumerated().map { (Optional($0.offset), $0.element) } }
            ?? [(nil, json)]
        for (index, item) in items {
            do {
                var mapping = try StubMapping.parse(item, in: directory, file: file.path)
                mapping.warnings = mapping.warnings.map { locate($0, index: index, file: file.path, in: data) }
                loaded.mappings.append(mapping)
            } catch {
                loaded.errors.append(locate(error, index: index, file: file.path, in: data))
            }
        }
        return loaded
    }

    /// The error with its file, its field under `mappings[index]` (multi-mapping files) and line.
    private static func locate(_ error: StubError, index: Int?, file: String, in data: Data) -> StubError {
        var located = error
        located.file = file
        if let index { located.field = "mappings[\(index)]" + (error.field.isEmpty ? "" : ".\(error.field)") }
        located.line = located.line ?? JSONLocator.line(of: located.field, in: Array(data))
        return located
    }
}
