import ContractValidation
import Foundation
import JSON
import Stubs

/// `understudy import-openapi`: WireMock mappings from an OpenAPI document, one file per
/// operation. Each operation answers its first documented 2xx (else its first answer) with the
/// document's example or, without one, a body made from the schema; `Prefer: code=404` picks
/// another documented answer and `Prefer: example=NAME` a named example (Prism's convention).
/// Requests match by method, path (`urlPathTemplate`, also under the first server's path), the
/// required query and header parameters, and the body's content type when a body is required.
public struct StubImport {
    public struct Result {
        /// File name (under `mappings/`) to its JSON.
        public var files: [(name: String, json: JSONValue)] = []
        public var mappingCount = 0
        /// What the user should know: made-up bodies that break their own schema, answers with
        /// no body that could be made.
        public var warnings: [String] = []
    }

    let document: SpecDocument
    let operations: [SpecOperation]
    /// The document in 2020-12 terms (3.0's `nullable` read), for checking made-up bodies.
    let schemas: JSONSchema?

    public init(_ document: SpecDocument) throws(SpecError) {
        self.document = document
        operations = try SpecOperation.all(in: document)
        let json = document.version.hasPrefix("3.0.") ? Dialect30.normalized(document.json) : document.json
        let pointers = operations.flatMap { $0.answers.flatMap { $0.content.compactMap(\.schema) } }
        schemas = try? JSONSchema(document: json, schemasAt: pointers)
    }

    /// Priorities: a named example and code together first, then either, then the default answer.
    static let priorities = (codeAndExample: 2, example: 3, code: 4, standard: 6)

    public func mappings() -> Result {
        var result = Result()
        var usedNames = Set<String>()
        let basePath = OpenAPIContract.basePath(of: document.json)
        for operation in operations {
            var mappings: [JSONValue] = []
            let standard = operation.answers.first { $0.code.hasPrefix("2") } ?? operation.answers.first
            // An operation that documents no answer (3.1 allows it) answers 200, empty.
            let answers =
                operation.answers.isEmpty
                ? [SpecOperation.Answer(code: "200", pointer: operation.pointer, content: [], requiredHeaders: [])] : operation.answers
            for answer in answers {
                let media = Self.preferredMedia(answer.content)
                let examples = media?.examples ?? []
                let body = body(for: answer, media: media, example: examples.first?.value, operation: operation, warnings: &result.warnings)
                for path in basePath.isEmpty ? [operation.path] : [operation.path, basePath + operation.path] {
                    func add(prefer: [String], priority: Int, body: JSONValue?) {
                        mappings.append(mapping(operation, answer, media: media, body: body, path: path, prefer: prefer, priority: priority))
                    }
                    if answer.code == (standard?.code ?? "200") { add(prefer: [], priority: Self.priorities.standard, body: body) }
                    // `default` and `4XX` are no status a client can ask for by number.
                    if Int(answer.code) != nil { add(prefer: ["code=\(answer.code)"], priority: Self.priorities.code, body: body) }
                    for (name, value) in examples where name != "example" {
                        add(prefer: ["example=\(name)"], priority: Self.priorities.example, body: .some(value))
                        if Int(answer.code) != nil {
                            add(prefer: ["code=\(answer.code)", "example=\(name)"], priority: Self.priorities.codeAndExample, body: .some(value))
                        }
                    }
                }
            }
            var name = Self.fileName(operation.operationID ?? "\(operation.method.lowercased())\(operation.path)")
            while !usedNames.insert(name.lowercased()).inserted { name += "-\(operation.method.lowercased())" }
            result.mappingCount += mappings.count
            result.files.append((name + ".json", .object([("mappings", .array(mappings))])))
        }
        return result
    }

    /// JSON first (`application/json`, `…+json`), else the first the answer lists.
    static func preferredMedia(_ content: [SpecOperation.MediaType]) -> SpecOperation.MediaType? {
        content.first { OpenAPIContract.isJSON($0.name) } ?? content.first
    }

    /// The example, else a body made from the schema (checked against it).
    private func body(
        for answer: SpecOperation.Answer, media: SpecOperation.MediaType?, example: JSONValue?, operation: SpecOperation, warnings: inout [String]
    ) -> JSONValue? {
        if let example { return example }
        guard let media, let pointer = media.schema, let node = SpecPointer.node(at: pointer, in: document.json) else { return nil }
        var sample = SchemaSample(document: document.json)
        let made = sample.value(for: node)
        if let schemas, let broken = schemas.firstViolation(of: made, against: pointer) {
            warnings.append(
                "\(operation.name) \(answer.code): the body made from the schema breaks it at \(broken.instancePointer.isEmpty ? "/" : broken.instancePointer) (\(broken.rule)); edit the mapping or add an example"
            )
        }
        return made
    }

    private func mapping(
        _ operation: SpecOperation, _ answer: SpecOperation.Answer, media: SpecOperation.MediaType?, body: JSONValue?, path: String,
        prefer: [String], priority: Int
    ) -> JSONValue {
        var request: [(String, JSONValue)] = [("method", .string(operation.method)), ("urlPathTemplate", .string(path))]
        let query = operation.parameters.filter { $0.location == .query && $0.required }
        if !query.isEmpty { request.append(("queryParameters", .object(query.map { ($0.name, .object([("absent", false)])) }))) }
        var headers: [(String, JSONValue)] = operation.parameters.filter { $0.location == .header && $0.required }.map {
            ($0.name, .object([("absent", false)]))
        }
        if operation.bodyRequired, !operation.body.isEmpty {
            let types = operation.body.map {
                NSRegularExpression.escapedPattern(for: OpenAPIContract.mediaType($0.name)).replacingOccurrences(of: "\\*", with: "[^;]+")
            }
            headers.append(("Content-Type", .object([("matches", .string("(?i)(\(types.joined(separator: "|")))\\s*(;.*)?"))])))
        }
        for wanted in prefer {
            headers.append(("Prefer", .object([("matches", .string("(?i).*\\b\(NSRegularExpression.escapedPattern(for: wanted))\\b.*"))])))
        }
        if !headers.isEmpty {
            // Two conditions on Prefer: WireMock's `and`.
            var merged: [(String, JSONValue)] = []
            for (name, pattern) in headers {
                if let index = merged.firstIndex(where: { $0.0 == name }) {
                    let earlier = merged[index].1["and"]?.arrayValue ?? [merged[index].1]
                    merged[index].1 = .object([("and", .array(earlier + [pattern]))])
                } else {
                    merged.append((name, pattern))
                }
            }
            request.append(("headers", .object(merged)))
        }
        var response: [(String, JSONValue)] = [("status", .int(Self.status(of: answer.code)))]
        var responseHeaders: [(String, JSONValue)] = []
        if let media, !media.name.contains("*") { responseHeaders.append(("Content-Type", .string(media.name))) }
        for name in answer.requiredHeaders { responseHeaders.append((name, .string(headerValue(answer, name)))) }
        if !responseHeaders.isEmpty { response.append(("headers", .object(responseHeaders))) }
        if let body, let media {
            if OpenAPIContract.isJSON(media.name) {
                response.append(("jsonBody", body))
            } else if case .string(let text) = body {
                response.append(("body", .string(text)))
            }
        }
        let label = ([answer.code] + prefer).joined(separator: ", ")
        return .object([
            ("name", .string("\(operation.method) \(path) (\(label))")),
            ("priority", .int(priority)),
            ("request", .object(request)),
            ("response", .object(response)),
            (
                "metadata",
                .object([
                    (
                        "openapi",
                        .object([("operation", .string(operation.name)), ("response", .string(answer.code)), ("from", .string(operation.pointer))])
                    )
                ])
            ),
        ])
    }

    /// A documented answer's status: `2XX` → 200, `default` → 200 (any status is documented by it).
    static func status(of code: String) -> Int {
        if let status = Int(code) { return status }
        if code.count == 3, code.uppercased().hasSuffix("XX"), let first = Int(code.prefix(1)) { return first * 100 }
        return 200
    }

    private func headerValue(_ answer: SpecOperation.Answer, _ name: String) -> String {
        guard let response = SpecPointer.node(at: answer.pointer, in: document.json),
            let header = response["headers"]?[name].flatMap({ SpecPointer.resolved($0, at: "", in: document.json)?.0 })
        else { return "value" }
        if let example = header["example"] { return example.stringValue ?? example.serialized }
        guard let schema = header["schema"] else { return "value" }
        var sample = SchemaSample(document: document.json)
        let made = sample.value(for: schema)
        return made.stringValue ?? made.serialized
    }

    /// A file name from an operation id or path: letters, digits, `-` and `_`.
    static func fileName(_ text: String) -> String {
        let kept = text.unicodeScalars.map { CharacterSet.alphanumerics.contains($0) || $0 == "-" || $0 == "_" ? Character($0) : "-" }
        let name = String(kept).split(separator: "-", omittingEmptySubsequences: true).joined(separator: "-")
        return name.isEmpty ? "operation" : String(name.prefix(100))
    }

    /// Writes the mappings under `directory/mappings/` and the document as `directory/openapi.…`
    /// (the file itself, or, when it refers to other files, the one tree that carries them, as
    /// JSON). Returns what was made.
    public static func write(_ document: SpecDocument, to directory: URL) throws -> (Result, specFile: String) {
        let result = try StubImport(document).mappings()
        let mappings = directory.appendingPathComponent("mappings")
        try FileManager.default.createDirectory(at: mappings, withIntermediateDirectories: true)
        for (name, json) in result.files {
            try Data((json.prettyPrinted(arraysOnOneLine: false) + "\n").utf8).write(to: mappings.appendingPathComponent(name))
        }
        let carriesFiles = document.json[SpecDocument.filesKey] != nil
        let ext = URL(fileURLWithPath: document.path).pathExtension.lowercased()
        let specName = !carriesFiles && (ext == "yaml" || ext == "yml") ? "openapi.yaml" : "openapi.json"
        for stale in ["openapi.yaml", "openapi.yml", "openapi.json"] where stale != specName {
            try? FileManager.default.removeItem(at: directory.appendingPathComponent(stale))
        }
        let specURL = directory.appendingPathComponent(specName)
        if carriesFiles {
            try Data((document.json.prettyPrinted(arraysOnOneLine: false) + "\n").utf8).write(to: specURL)
        } else {
            try Data(contentsOf: URL(fileURLWithPath: document.path)).write(to: specURL)
        }
        return (result, specURL.path)
    }
}
