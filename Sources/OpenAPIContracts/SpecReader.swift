import ContractValidation
import Foundation
import JSON
import Yams

extension SpecDocument {
    /// Reads `path` and the files it references; throws a `SpecError` naming the file, the line
    /// and the pointer of what is wrong.
    public static func read(_ path: String) throws(SpecError) -> SpecDocument {
        var files = FileBundle(mainPath: path)
        let main = try files.load(path)
        var json = try files.rewriteReferences(in: main.json, of: main, pointer: "")
        let carried = try files.carryAll()
        if !carried.isEmpty, case .object(var members) = json {
            members.append((filesKey, .object(carried)))
            json = .object(members)
        }
        guard let version = (json["openapi"] ?? json["swagger"])?.stringValue else {
            throw SpecError(file: path, line: 1, pointer: "", message: "not an OpenAPI document: no `openapi` field")
        }
        let document = SpecDocument(path: path, json: json, version: version, lines: files.lines)
        try OpenAPIModel.check(document)
        try document.checkReferences()
        return document
    }
}

/// The main file and those its references name, loaded once each.
private struct FileBundle {
    struct Loaded {
        let path: String
        let json: JSONValue
        /// `#/x-understudy-files/N` for a referenced file, `#` for the main one.
        let base: String
    }

    let mainPath: String
    var loaded: [String: Loaded] = [:]
    var order: [String] = []
    var carried: [String: JSONValue] = [:]
    var lines = SourceLines()
    var pending: [String] = []

    init(mainPath: String) { self.mainPath = mainPath }

    /// Reads the file at `path` (once) and gives it a place in the tree.
    mutating func load(_ path: String) throws(SpecError) -> Loaded {
        let key = URL(fileURLWithPath: path).standardizedFileURL.path
        if let known = loaded[key] { return known }
        let base = loaded.isEmpty ? "#" : "#/\(SpecDocument.filesKey)/\(order.count)"
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw SpecError(file: path, line: nil, pointer: "", message: "cannot read it: \((error as NSError).localizedDescription)")
        }
        let (json, nodeLines) = try YAMLTree.parse(text, file: path, base: base)
        let file = Loaded(path: path, json: json, base: base)
        loaded[key] = file
        if base != "#" {
            order.append(key)
            pending.append(key)
        } else {
            order.insert(key, at: 0)
        }
        lines.byFile.append((path, base, nodeLines))
        return file
    }

    /// `node` with every `$ref` made a pointer into the one tree: `#/…` of `file` under its
    /// base, `other.yaml#/…` under that file's, loaded on the way.
    mutating func rewriteReferences(in node: JSONValue, of file: Loaded, pointer: String) throws(SpecError) -> JSONValue {
        switch node {
        case .object(let members):
            var rewritten: [(String, JSONValue)] = []
            rewritten.reserveCapacity(members.count)
            for (key, value) in members {
                if key == "$ref", case .string(let ref) = value {
                    rewritten.append((key, .string(try target(of: ref, in: file, at: "\(file.base)\(pointer)/$ref"))))
                } else {
                    rewritten.append((key, try rewriteReferences(in: value, of: file, pointer: pointer + "/" + JSONPointer.escaped(key))))
                }
            }
            return .object(rewritten)
        case .array(let items):
            var rewritten: [JSONValue] = []
            for (index, item) in items.enumerated() { rewritten.append(try rewriteReferences(in: item, of: file, pointer: "\(pointer)/\(index)")) }
            return .array(rewritten)
        default:
            return node
        }
    }

    private mutating func target(of ref: String, in file: Loaded, at pointer: String) throws(SpecError) -> String {
        let parts = ref.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)
        let location = String(parts[0])
        let fragment = parts.count > 1 ? String(parts[1]) : ""
        if location.isEmpty { return file.base + fragment }
        if location.contains("://") || location.hasPrefix("//") {
            throw SpecError(
                file: file.path, line: nil, pointer: pointer,
                message: "'\(ref)' is remote: documents are read offline, so save it beside the spec and refer to it by a relative path")
        }
        let directory = URL(fileURLWithPath: file.path).deletingLastPathComponent()
        let referenced = location.hasPrefix("/") ? location : directory.appendingPathComponent(location.removingPercentEncoding ?? location).path
        guard FileManager.default.fileExists(atPath: referenced) else {
            throw SpecError(file: file.path, line: nil, pointer: pointer, message: "'\(ref)' names \(referenced), which does not exist")
        }
        return try load(referenced).base + fragment
    }

    /// Every referenced file, its references rewritten (which may load more), by number.
    mutating func carryAll() throws(SpecError) -> [(String, JSONValue)] {
        while let key = pending.first {
            pending.removeFirst()
            guard let file = loaded[key] else { continue }
            carried[key] = try rewriteReferences(in: file.json, of: file, pointer: "")
        }
        return order.dropFirst().enumerated().map { index, key in (String(index + 1), carried[key] ?? .null) }
    }
}

/// YAML (and JSON, which YAML reads) to a JSON tree in the document's order, with each node's line.
enum YAMLTree {
    static func parse(_ text: String, file: String, base: String, nodeLimit: Int = SpecDocument.nodeLimit) throws(SpecError) -> (
        JSONValue, [String: Int]
    ) {
        let root: Node?
        do {
            root = try Yams.compose(yaml: text)
        } catch let error as YamlError {
            throw SpecError(file: file, line: line(of: error), pointer: "", message: "not YAML or JSON: \(reason(of: error))")
        } catch {
            throw SpecError(file: file, line: nil, pointer: "", message: "not YAML or JSON: \(error)")
        }
        guard let root else { throw SpecError(file: file, line: 1, pointer: "", message: "the file is empty") }
        var lines: [String: Int] = [:]
        var budget = nodeLimit
        let json = try convert(root, pointer: base, lines: &lines, budget: &budget, depth: 0, file: file)
        return (json, lines)
    }

    private static func convert(
        _ node: Node, pointer: String, lines: inout [String: Int], budget: inout Int, depth: Int, file: String
    ) throws(SpecError) -> JSONValue {
        budget -= 1
        guard budget > 0, depth < 256 else {
            throw SpecError(file: file, line: node.mark?.line, pointer: pointer, message: "the document is too large or too deep to read")
        }
        if let line = node.mark?.line { lines[pointer] = line }
        switch node {
        case .mapping(let mapping):
            var members: [(String, JSONValue)] = []
            for (key, value) in mapping {
                let name = key.string ?? "\(key.any)"
                members.append(
                    (
                        name,
                        try convert(
                            value, pointer: pointer + "/" + JSONPointer.escaped(name), lines: &lines, budget: &budget, depth: depth + 1, file: file)
                    ))
            }
            return .object(members)
        case .sequence(let sequence):
            var items: [JSONValue] = []
            for (index, item) in sequence.enumerated() {
                items.append(try convert(item, pointer: "\(pointer)/\(index)", lines: &lines, budget: &budget, depth: depth + 1, file: file))
            }
            return .array(items)
        case .scalar(let scalar):
            // Quoted scalars are strings whatever they look like; plain ones as YAML resolves them.
            if scalar.style == .plain {
                if node.null != nil { return .null }
                if let flag = node.bool { return .bool(flag) }
                if let number = node.int { return .int(number) }
                if let number = node.float, number.isFinite { return .double(number) }
            }
            return .string(scalar.string)
        case .alias:
            return .null
        }
    }

    private static func line(of error: YamlError) -> Int? {
        switch error {
        case .scanner(_, _, let mark, _), .parser(_, _, let mark, _), .composer(_, _, let mark, _): mark.line
        case .duplicatedKeysInMapping(_, let context): context.mark.line
        default: nil
        }
    }

    private static func reason(of error: YamlError) -> String {
        switch error {
        case .scanner(_, let problem, _, _), .parser(_, let problem, _, _), .composer(_, let problem, _, _): problem
        case .duplicatedKeysInMapping(let duplicates, _): "duplicated keys: \(duplicates.joined(separator: ", "))"
        default: "\(error)"
        }
    }
}
