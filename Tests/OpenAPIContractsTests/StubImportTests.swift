import ContractValidation
import Foundation
import JSON
import MockCore
import Stubs
import Testing
import UnderstudyTesting

@testable import OpenAPIContracts

/// `import-openapi`: mappings from a document, served by the stub engine, whose answers keep the
/// document's contract.
@Suite struct StubImportTests {
    static func imported(_ name: String) throws -> (URL, StubImport.Result) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("import-\(UUID().uuidString)")
        let document = try SpecDocument.read(try ContractTests.spec(name))
        let (result, _) = try StubImport.write(document, to: directory)
        return (directory, result)
    }

    @Test func everyOperationAnswersItsFirstSuccessAndTheAnswersKeepTheContract() async throws {
        let (directory, result) = try Self.imported("orders.yaml")
        defer { try? FileManager.default.removeItem(at: directory) }
        #expect(
            result.files.map(\.name) == [
                "listOrders.json", "createOrder.json", "getOrder.json", "get-orders-orderId-tree.json", "get-orders-orderId-receipt.json",
            ])
        #expect(result.warnings.isEmpty, "\(result.warnings)")
        // The spec is kept beside the mappings, as one JSON tree: it refers to another file.
        #expect(FileManager.default.fileExists(atPath: directory.appendingPathComponent("openapi.json").path))
        let contract = try OpenAPIContract.load(directory.appendingPathComponent("openapi.json").path, enforcement: .hard)
        let journal = RequestJournal()
        let engine = StubEngine(stubsDirectory: directory)
        let server = try TestServer.start(backends: [engine], journal: journal, contract: contract)
        defer { server.stop() }

        let (list, listResponse) = try await server.send("GET", "/orders?limit=5", headers: ["X-Tenant": "acme"])
        #expect(listResponse.statusCode == 200)
        #expect(listResponse.value(forHTTPHeaderField: "X-Total") == "1")
        let orders = try JSONValue.parse(Array(list))
        #expect(orders.arrayValue?.first?["lines"]?.arrayValue?.first?["quantity"] == 1)
        // Under the server's base path too; a named example with Prefer; another status by code.
        let (_, based) = try await server.send("GET", "/api/v2/orders/4", headers: [:])
        #expect(based.statusCode == 200)
        let body = #"{"lines": [{"sku": "A", "quantity": 2}]}"#
        let (large, _) = try await server.send(
            "POST", "/orders", headers: ["Content-Type": "application/json", "Prefer": "example=large"], body: Data(body.utf8))
        #expect(try JSONValue.parse(Array(large))["note"] == "gift")
        let (conflict, conflictResponse) = try await server.send(
            "POST", "/orders", headers: ["Content-Type": "application/json", "Prefer": "code=409"], body: Data(body.utf8))
        #expect(conflictResponse.statusCode == 409)
        #expect(conflictResponse.value(forHTTPHeaderField: "Content-Type") == "application/problem+json")
        #expect(try JSONValue.parse(Array(conflict))["title"] == "string")
        // Nothing any of them answered broke the contract (hard enforcement would have made it a 502).
        #expect(journal.entries.allSatisfy { $0.violations.isEmpty && $0.status < 500 }, "\(journal.entries.map(\.violations))")
    }

    @Test func requestsMatchByRequiredParametersAndContentType() async throws {
        let (directory, _) = try Self.imported("orders.yaml")
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = try TestServer.start(backends: [StubEngine(stubsDirectory: directory)])
        defer { server.stop() }
        let (_, noLimit) = try await server.send("GET", "/orders", headers: ["X-Tenant": "acme"])
        #expect(noLimit.statusCode == 404)
        let (_, xml) = try await server.send("POST", "/orders", headers: ["Content-Type": "application/xml"], body: Data("<o/>".utf8))
        #expect(xml.statusCode == 404)
        let (_, charset) = try await server.send(
            "POST", "/orders", headers: ["Content-Type": "application/json; charset=utf-8"], body: Data("{}".utf8))
        #expect(charset.statusCode == 201)
    }

    @Test func madeUpBodiesFollowTheirSchemas() throws {
        let document = try SpecDocument.read(try ContractTests.spec("tasks.json"))
        let result = try StubImport(document).mappings()
        #expect(result.warnings.isEmpty, "\(result.warnings)")
        let mapping = try #require(result.files.first?.json["mappings"]?.arrayValue?.first)
        #expect(mapping["request"]?["urlPathTemplate"] == "/tasks/{id}")
        // 2XX answers as 200, with a body its schema accepts (the contract checks it).
        #expect(mapping["response"]?["status"] == 200)
        let contract = try OpenAPIContract(document: document, enforcement: .soft)
        let body = try #require(mapping["response"]?["jsonBody"])
        let schema = try #require(contract.operations.first?.answers.first?.content.first?.schema)
        #expect(contract.schemaViolation(of: body, against: schema) == nil, "\(body.serialized)")
    }

    @Test func aPatternTheSampleCannotMeetIsAWarning() throws {
        let root = try makeTemporaryDirectory([
            "openapi.yaml": """
            openapi: 3.1.0
            info: {title: t, version: '1'}
            paths:
              /codes:
                get:
                  responses:
                    '200':
                      description: ok
                      content:
                        application/json:
                          schema: {type: string, pattern: '^[A-Z]{3}$'}
            """
        ])
        defer { try? FileManager.default.removeItem(at: root) }
        let result = try StubImport(SpecDocument.read(root.appendingPathComponent("openapi.yaml").path)).mappings()
        #expect(
            result.warnings == [
                "GET /codes 200: the body made from the schema breaks it at / (does not match ^[A-Z]{3}$); edit the mapping or add an example"
            ])
    }
}
