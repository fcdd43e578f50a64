import Foundation
import Testing
import UnderstudyClient
import UnderstudyTesting

/// A scope's contract violations through the client, against the built server with a stubs
/// folder that holds an OpenAPI document (soft validation).
@Suite struct ContractClientTests {
    static let files = [
        "openapi.json": """
        {"openapi": "3.1.0", "info": {"title": "t", "version": "1"}, "paths": {"/carts/{id}": {"get": {
          "parameters": [{"name": "id", "in": "path", "required": true, "schema": {"type": "integer"}}],
          "responses": {"200": {"description": "a cart", "content": {"application/json": {"schema": {
            "type": "object", "required": ["items"], "properties": {"items": {"type": "array", "items": {"type": "object", "required": ["sku"]}}}}}}}}}}}}
        """,
        "mappings/cart.json":
            #"{"request": {"urlPathPattern": "/carts/.*"}, "response": {"status": 200, "headers": {"Content-Type": "application/json"}, "jsonBody": {"items": [{"code": "A"}]}}}"#,
    ]

    @Test func violationsAreListedAndAFailedAssertionNamesThePointer() async throws {
        try await withUnderstudy(files: Self.files) { understudy in
            let scope = try await understudy.makeScope()
            let other = try await understudy.makeScope()
            _ = try await get(scope.url("/carts/x"))
            _ = try await get(other.url("/shared"))
            let violations = try await scope.contractViolations()
            #expect(violations.map(\.pointer) == ["path.id", "/items/0"])
            #expect(violations.map(\.part) == [.request, .response])
            #expect(violations.last?.operation == "GET /carts/{id}" && violations.last?.rule == "'sku' is missing")
            #expect(violations.last?.url == "/carts/x")
            // Another scope's exchanges are its own (and a path outside the contract is not checked).
            try await other.assertNoContractViolations()
            let line = #line + 2
            try await withKnownIssue {
                try await scope.assertNoContractViolations()
            } matching: { issue in
                let text = issue.comments.map(\.rawValue).joined()
                return issue.sourceLocation?.line == line && text.contains("response /items/0: 'sku' is missing")
                    && text.contains("request path.id: expected integer, found string")
            }
        }
    }
}
