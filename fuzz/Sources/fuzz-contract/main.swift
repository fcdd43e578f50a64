// Contract checks (serve --openapi): a request and an answer from client bytes checked against a
// fixed OpenAPI 3.0 document (parameters read as their types, JSON bodies against schemas with
// `nullable`, `allOf`, recursion), within a request's work budget as the server runs them.
// Input: the request target, NUL, the body (sent as the request's and as the answer's). The
// target's text is also a request's Content-Type, and the body's is read as a media type.
import ContractValidation
import FuzzSupport
import HTTPServer
import JSON
import WorkLimits

let documentText = """
    {"openapi": "3.0.3", "info": {"title": "fuzz", "version": "1"}, "servers": [{"url": "/api"}],
     "paths": {"/items/{id}": {
       "parameters": [{"name": "id", "in": "path", "required": true, "schema": {"type": "integer", "minimum": 1}}],
       "get": {"parameters": [{"name": "tags", "in": "query", "style": "form", "explode": false,
                               "schema": {"type": "array", "items": {"type": "string", "enum": ["a", "b"]}}},
                              {"name": "flag", "in": "query", "schema": {"type": "boolean"}}],
               "responses": {"200": {"description": "ok", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Node"}}}},
                             "default": {"description": "problem", "content": {"application/problem+json": {"schema": {"type": "object"}}}}}},
       "put": {"requestBody": {"required": true, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Node"}}}},
               "responses": {"204": {"description": "saved"}}}}},
     "components": {"schemas": {"Node": {"allOf": [{"type": "object", "required": ["name"],
        "properties": {"name": {"type": "string", "nullable": true, "pattern": "^[a-z]*$"},
                       "size": {"type": "number", "exclusiveMinimum": true, "minimum": 0},
                       "children": {"type": "array", "items": {"$ref": "#/components/schemas/Node"}}}}]}}}}
    """
// Made once: the fixed document is valid, so these cannot fail.
let contract = try! OpenAPIContract(
    document: SpecDocument(path: "fuzz.json", json: try! JSONValue.parse(Array(documentText.utf8)), version: "3.0.3"), enforcement: .hard)

/// libFuzzer's main, linked in with its runtime, wants this symbol even though it is not used.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let (targetBytes, body) = FuzzInput(data, size).halves
    let target = "/" + String(decoding: targetBytes, as: UTF8.self)
    let budget = RequestBudget.begin(limitNanoseconds: 100_000_000)
    defer { budget.end() }
    for method in [HTTPMethod.get, .put] {
        let request = Request(method: method, target: target, headers: ["Content-Type": "application/json"], body: body)
        _ = contract.check(request: request)
        var response = Response(status: body.count % 2 == 0 ? 200 : 404, body: ResponseBody(body))
        response.headers.set("Content-Type", body.count % 3 == 0 ? "application/problem+json" : "application/json")
        _ = contract.check(response: response, to: request)
    }
    // Media types from client bytes: a Content-Type the contract compares, however it is written.
    let typed = Request(method: .put, target: "/api/items/1", headers: ["Content-Type": target], body: body)
    _ = contract.check(request: typed)
    _ = OpenAPIContract.mediaType(String(decoding: body, as: UTF8.self))
    return 0
}

// Last: the driver never returns, and what it calls may read the globals above, set by then.
runFuzzer(fuzzOne)
