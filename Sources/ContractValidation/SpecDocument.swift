import Foundation
import JSON

/// An OpenAPI document read from a file, YAML or JSON, as one JSON tree in the document's own
/// order: the files its `$ref`s name (relative paths, never URLs) are carried inside it under
/// `x-understudy-files`, and those references rewritten to point there, so every reference is
/// a `#/…` pointer into this one tree.
public struct SpecDocument: Sendable {
    public init(path: String, json: JSONValue, version: String, lines: SourceLines = SourceLines()) {
        self.path = path
        self.json = json
        self.version = version
        self.lines = lines
    }

    /// The file as given.
    public let path: String
    public let json: JSONValue
    /// `3.0.3`, `3.1.0`, …
    public let version: String
    /// What the document's parts are numbered by in errors: each file's lines by pointer.
    public let lines: SourceLines

    /// Where referenced files go in the tree.
    public static let filesKey = "x-understudy-files"
    /// Nodes one document may have (YAML aliases can multiply a small file): past it, refused.
    public static let nodeLimit = 2_000_000

    /// The line of `pointer` (a `#/…` pointer into the tree) in its file, for an error.
    public func error(at pointer: String, _ message: String) -> SpecError {
        let (file, line) = lines.locate(pointer, mainPath: path)
        return SpecError(file: file, line: line, pointer: pointer, message: message)
    }

    /// Every `$ref` in the tree points at something.
    public func checkReferences() throws(SpecError) {
        var failure: SpecError?
        SpecWalk.visitObjects(json, at: "#") { node, pointer in
            guard failure == nil, let ref = node["$ref"]?.stringValue, ref.hasPrefix("#") else { return }
            if SpecPointer.node(at: ref, in: json) == nil {
                failure = error(at: pointer + "/$ref", "'\(ref)' points at nothing in the document")
            }
        }
        if let failure { throw failure }
    }
}

/// What is wrong with a document, and where.
public struct SpecError: Error, CustomStringConvertible, Sendable {
    public let file: String
    public let line: Int?
    /// A `#/…` pointer into the document (its `x-understudy-files/…` part for a referenced file).
    public let pointer: String
    public let message: String

    public init(file: String, line: Int?, pointer: String, message: String) {
        self.file = file
        self.line = line
        self.pointer = pointer
        self.message = message
    }

    public var description: String {
        "\(file)\(line.map { ":\($0)" } ?? "")\(pointer.isEmpty ? "" : " (\(pointer))"): \(message)"
    }
}

/// Each file's lines by the pointer of its nodes, kept from the YAML parse.
public struct SourceLines: Sendable {
    /// Per file: the pointer (as in the tree) of each node to its line.
    public var byFile: [(file: String, prefix: String, lines: [String: Int])] = []

    public init() {}

    func locate(_ pointer: String, mainPath: String) -> (String, Int?) {
        // The longest prefix names the file; the longest known node above the pointer its line.
        let owner = byFile.filter { pointer.hasPrefix($0.prefix) }.max { $0.prefix.count < $1.prefix.count }
        guard let owner else { return (mainPath, nil) }
        var probe = pointer
        while true {
            if let line = owner.lines[probe] { return (owner.file, line) }
            guard let slash = probe.lastIndex(of: "/") else { return (owner.file, nil) }
            probe = String(probe[..<slash])
        }
    }
}
