import ContractValidation
import Foundation
import JSON
import Testing
import UnderstudyTesting

@testable import OpenAPIContracts

/// Reading a document: YAML or JSON, the files its `$ref`s name carried in, and every refusal
/// naming the file, the line and the pointer.
@Suite struct SpecDocumentTests {
    func read(_ files: [String: String], _ main: String = "openapi.yaml") throws -> Result<SpecDocument, SpecError> {
        let root = try makeTemporaryDirectory(files)
        defer { try? FileManager.default.removeItem(at: root) }
        return Result { () throws(SpecError) in try SpecDocument.read(root.appendingPathComponent(main).path) }
    }

    func failure(_ files: [String: String], _ main: String = "openapi.yaml") throws -> SpecError {
        guard case .failure(let error) = try read(files, main) else {
            Issue.record("the document was read")
            return SpecError(file: "", line: nil, pointer: "", message: "")
        }
        return error
    }

    static let head = "openapi: 3.0.3\ninfo: {title: t, version: '1'}\n"

    @Test func referencedFilesAreCarriedInAndTheirReferencesRewritten() throws {
        let document = try read([
            "openapi.yaml": Self.head + "paths:\n  /a:\n    $ref: 'parts/a.yaml#/item'\n",
            "parts/a.yaml":
                "item:\n  get:\n    responses:\n      '200':\n        description: ok\n        content:\n          application/json:\n            schema: {$ref: '#/Thing'}\nThing: {type: string}\n",
        ]).get()
        #expect(document.json["paths"]?["/a"]?["$ref"] == "#/x-understudy-files/1/item")
        let carried = document.json["x-understudy-files"]?["1"]
        #expect(carried?["item"]?["get"]?["responses"]?["200"]?["content"]?["application/json"]?["schema"]?["$ref"] == "#/x-understudy-files/1/Thing")
        let operations = try SpecOperation.all(in: document)
        #expect(operations.map(\.name) == ["GET /a"])
    }

    @Test func aBrokenReferenceIsRefusedWithItsLine() throws {
        let error = try failure([
            "openapi.yaml": Self.head + "paths:\n  /a:\n    get:\n      responses:\n        '200':\n          $ref: '#/components/responses/Gone'\n"
        ])
        #expect(error.message == "'#/components/responses/Gone' points at nothing in the document")
        #expect(error.line == 8)
        #expect(error.pointer == "#/paths/~1a/get/responses/200/$ref")
        #expect(error.file.hasSuffix("openapi.yaml"))
    }

    @Test func remoteReferencesAreRefused() throws {
        let error = try failure([
            "openapi.yaml": Self.head + "paths:\n  /a:\n    $ref: 'https://example.com/a.yaml#/item'\n"
        ])
        #expect(error.message.contains("is remote"))
        #expect(error.pointer == "#/paths/~1a/$ref")
        let missing = try failure(["openapi.yaml": Self.head + "paths:\n  /a:\n    $ref: 'nowhere.yaml#/item'\n"])
        #expect(missing.message.contains("does not exist"))
    }

    @Test func whatIsNotYAMLOrNotOpenAPIIsRefusedWhereItIsWrong() throws {
        let syntax = try failure(["openapi.yaml": Self.head + "paths:\n  /a: [unclosed\n"])
        #expect(syntax.message.hasPrefix("not YAML or JSON"))
        #expect(syntax.line != nil)
        // OpenAPIKit reads the model: a response without its description is no OpenAPI 3.0.
        let model = try failure(["openapi.yaml": Self.head + "paths:\n  /a:\n    get:\n      responses:\n        '200':\n          content: {}\n"])
        #expect(model.message.hasPrefix("not a valid OpenAPI 3.0.3 document"))
        #expect(model.pointer.hasPrefix("#/paths/~1a/get/responses"))
        #expect(model.line != nil)
        let swagger = try failure(["swagger.json": #"{"swagger": "2.0", "info": {"title": "t", "version": "1"}, "paths": {}}"#], "swagger.json")
        #expect(swagger.message.contains("Swagger 2.0 is not read"))
        let none = try failure(["openapi.yaml": "just: text\n"])
        #expect(none.message.contains("no `openapi` field"))
    }

    @Test func aDocumentThatMultipliesItselfIsRefused() throws {
        // YAML aliases nested nine deep: 10^9 nodes once expanded (here against a limit of 10,000).
        var yaml = Self.head + "paths: {}\nx-bomb:\n  a0: &a0 [1, 1, 1, 1, 1, 1, 1, 1, 1, 1]\n"
        for level in 1...9 { yaml += "  a\(level): &a\(level) [" + Array(repeating: "*a\(level - 1)", count: 10).joined(separator: ", ") + "]\n" }
        #expect(throws: SpecError.self) { try YAMLTree.parse(yaml, file: "bomb.yaml", base: "#", nodeLimit: 10_000) }
        do {
            _ = try YAMLTree.parse(yaml, file: "bomb.yaml", base: "#", nodeLimit: 10_000)
        } catch {
            #expect(error.message == "the document is too large or too deep to read")
            #expect(error.file == "bomb.yaml")
        }
    }

    @Test func quotedScalarsStayStringsAndPlainOnesAreTyped() throws {
        let (json, _) = try YAMLTree.parse("a: '1'\nb: 1\nc: 1.5\nd: true\ne: ~\nf: \"true\"\n", file: "x", base: "#")
        #expect(json == .object([("a", "1"), ("b", 1), ("c", .double(1.5)), ("d", true), ("e", .null), ("f", "true")]))
    }
}
