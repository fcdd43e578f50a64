import ContractValidation
import Foundation
import HTTPServer
import JSON
import MockCore
import Testing

@testable import OpenAPIContracts

/// Traffic checked against a document: what each request and answer breaks, named by pointer,
/// place in the document and rule (docs/contracts.md).
@Suite struct ContractTests {
    static func spec(_ name: String) throws -> String {
        try #require(Bundle.module.url(forResource: "Specs/\(name)", withExtension: nil)).path
    }

    static let orders = Result { try OpenAPIContract.load(spec("orders.yaml"), enforcement: .soft) }
    static let tasks = Result { try OpenAPIContract.load(spec("tasks.json"), enforcement: .hard) }

    func request(_ method: HTTPMethod, _ target: String, headers: HTTPHeaders = [:], body: String = "") -> Request {
        Request(method: method, target: target, headers: headers, body: Array(body.utf8))
    }

    func json(_ text: String, status: Int = 200, type: String = "application/json", headers: [(String, String)] = []) -> Response {
        var response = Response.json(text, status: status)
        response.headers.set("Content-Type", type)
        for (name, value) in headers { response.headers.set(name, value) }
        return response
    }

    @Test func aValidRequestAndAnswerBreakNothing() throws {
        let contract = try Self.orders.get()
        let list = request(.get, "/orders?limit=10&status=open,shipped", headers: ["X-Tenant": "acme"])
        #expect(contract.check(request: list) == (true, []))
        let answer = json(#"[{"id": 1, "total": 2.5, "note": null, "lines": [{"sku": "A", "quantity": 1}]}]"#, headers: [("X-Total", "1")])
        #expect(contract.check(response: answer, to: list).isEmpty)
        // Under the first server's path too, its variable at its default.
        #expect(contract.check(request: request(.get, "/api/v2/orders?limit=1", headers: ["X-Tenant": "a"])).violations.isEmpty)
    }

    @Test func parametersAreReadAsTheirSchemasSay() throws {
        let contract = try Self.orders.get()
        let (covered, violations) = contract.check(request: request(.get, "/orders?limit=abc&status=open,lost", headers: ["X-Tenant": "ACME"]))
        #expect(covered)
        let summary = violations.map { "\($0.pointer) \($0.rule) \($0.specLocation)" }
        #expect(
            summary == [
                "query.limit expected integer, found string #/paths/~1orders/get/parameters/0/schema/type",
                #"query.status/1 "lost" is not one of ["open","shipped"] #/paths/~1orders/get/parameters/1/schema/items/enum"#,
                "header.X-Tenant does not match ^[a-z]+$ #/components/parameters/Tenant/schema/pattern",
            ])
        let missing = contract.check(request: request(.get, "/orders")).violations
        #expect(missing.map(\.pointer) == ["query.limit", "header.X-Tenant"])
        #expect(missing.allSatisfy { $0.rule.contains("required") && $0.operation == "GET /orders" })
        let tooMany = contract.check(request: request(.get, "/orders?limit=101", headers: ["X-Tenant": "a"])).violations
        #expect(tooMany.map(\.rule) == ["101 is above the maximum 100"])
    }

    @Test func openAPI30sDialectIsRead() throws {
        let contract = try Self.orders.get()
        // exclusiveMinimum: true with minimum 0 (3.0): 0 is out, 1 is in.
        #expect(contract.check(request: request(.get, "/orders/0")).violations.map(\.rule) == ["0 is not above 0"])
        #expect(contract.check(request: request(.get, "/orders/1")).violations.isEmpty)
        // nullable: true lets null through, but nothing else of another type.
        let order = request(.get, "/orders/1")
        #expect(contract.check(response: json(#"{"id": 1, "total": 1, "note": null, "lines": []}"#), to: order).isEmpty)
        let broken = contract.check(response: json(#"{"id": 1, "total": 1, "note": 5, "lines": []}"#), to: order)
        #expect(broken.map(\.pointer) == ["/note"])
        #expect(broken.first?.rule == "expected string or null, found integer")
    }

    @Test func bodiesAreCheckedAgainstSchemasInOtherFiles() throws {
        let contract = try Self.orders.get()
        let post = request(.post, "/orders", headers: ["Content-Type": "application/json"], body: #"{"lines": [{"sku": "A", "quantity": 0}]}"#)
        let violations = contract.check(request: post).violations
        #expect(violations.map(\.pointer) == ["/lines/0/quantity"])
        #expect(violations.first?.specLocation == "#/x-understudy-files/1/Line/properties/quantity/minimum")
        let empty = contract.check(request: request(.post, "/orders", headers: ["Content-Type": "application/json"])).violations
        #expect(empty.map(\.rule) == ["the body is required but empty"])
        let xml = contract.check(request: request(.post, "/orders", headers: ["Content-Type": "application/xml"], body: "<order/>")).violations
        #expect(xml.map(\.pointer) == ["content-type"])
        let notJSON = contract.check(request: request(.post, "/orders", headers: ["Content-Type": "application/json"], body: "{lines")).violations
        #expect(notJSON.first?.rule.hasPrefix("the body is not JSON") == true)
    }

    @Test func answersAreCheckedByStatusHeadersAndBody() throws {
        let contract = try Self.orders.get()
        let list = request(.get, "/orders?limit=1", headers: ["X-Tenant": "a"])
        // No X-Total: a required header is missing; default documents any other status.
        #expect(contract.check(response: json("[]"), to: list).map(\.pointer) == ["header.X-Total"])
        #expect(contract.check(response: json(#"{"title": "down"}"#, status: 503, type: "application/problem+json"), to: list).isEmpty)
        let order = request(.get, "/orders/3")
        let undocumented = contract.check(response: json("{}", status: 500), to: order)
        #expect(undocumented.map(\.rule) == ["status 500 is not documented (200, 404)"])
        let wrongType = contract.check(response: json(#"{"title": "gone"}"#, status: 404, type: "text/plain"), to: order)
        #expect(wrongType.map(\.pointer) == ["content-type"])
        // A recursive schema is followed as deep as the answer goes.
        let tree = request(.get, "/orders/3/tree")
        #expect(contract.check(response: json(#"{"name": "a", "children": [{"name": "b", "children": [{"name": "c"}]}]}"#), to: tree).isEmpty)
        let deep = contract.check(response: json(#"{"name": "a", "children": [{"name": "b", "children": [{}]}]}"#), to: tree)
        #expect(deep.map(\.pointer) == ["/children/0/children/0"])
        #expect(deep.first?.rule == "'name' is missing")
        // XML answers are checked by content type only.
        #expect(contract.check(response: json("<receipt/>", type: "application/xml"), to: request(.get, "/orders/3/receipt")).isEmpty)
        // A Content-Type is compared by its media type: parameters, HTTP's whitespace and ASCII case aside.
        #expect(
            contract.check(response: json("{", type: " Application/JSON\t; charset=UTF-8"), to: order).map(\.rule).first?.hasPrefix(
                "the body is not JSON") == true)
        #expect(contract.check(response: json(#"{"name": "a"}"#, type: "application/JSON;q=1"), to: tree).isEmpty)
    }

    /// An answer's status is documented by its own code, else its class (`4XX`, in either case),
    /// else `default` (a code that is none of these is no valid document).
    @Test func statusesFindTheirCodeThenTheirClassThenDefault() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("codes-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: file) }
        let answers = ["201", "4xx", "404", "5XX", "default"].map { #""\#($0)": {"description": "\#($0)"}"# }
        try Data(
            #"{"openapi": "3.0.3", "info": {"title": "t", "version": "1"}, "paths": {"/c": {"get": {"responses": {\#(answers.joined(separator: ", "))}}}}}"#
                .utf8
        ).write(to: file)
        let contract = try OpenAPIContract.load(file.path, enforcement: .soft)
        let operation = try #require(contract.operations.first)
        let found = [201, 404, 418, 503, 200, 250, 302].map { operation.answer(for: $0)?.code }
        #expect(found == ["201", "404", "4xx", "5XX", "default", "default", "default"])
        #expect(contract.check(response: Response(status: 200), to: request(.get, "/c")).isEmpty)
    }

    @Test func mediaTypesAreTheirTypeTrimmedAndFolded() {
        #expect(OpenAPIContract.mediaType(" Application/Problem+JSON ; charset=utf-8") == "application/problem+json")
        #expect(OpenAPIContract.mediaType("\ttext/plain\t") == "text/plain")
        #expect(OpenAPIContract.mediaType("TEXT/Ä") == "text/Ä", "only ASCII is folded")
        #expect(["", " ", " ; charset=utf-8", ";"].allSatisfy { OpenAPIContract.mediaType($0).isEmpty })
        #expect(OpenAPIContract.isJSON("application/vnd.api+JSON; ext=x") && !OpenAPIContract.isJSON("application/jsonp"))
    }

    @Test func pathsAndMethodsTheDocumentLacksAreSaid() throws {
        let contract = try Self.orders.get()
        let unknown = contract.check(request: request(.get, "/customers"))
        #expect(!unknown.covered)
        #expect(unknown.violations.map(\.pointer) == ["path"])
        #expect(contract.check(response: json("{}"), to: request(.get, "/customers")).isEmpty)
        let method = contract.check(request: request(.delete, "/orders"))
        #expect(method.covered)
        #expect(method.violations.first?.rule == "/orders has no DELETE operation (it has GET, POST)")
        // HEAD is checked as the GET it stands for (its empty answer too); a CORS preflight passes.
        #expect(contract.check(request: request(.head, "/orders?limit=1", headers: ["X-Tenant": "a"])).violations.isEmpty)
        #expect(contract.check(request: request(.head, "/orders")).violations.map(\.pointer) == ["query.limit", "header.X-Tenant"])
        let head = request(.head, "/orders/1")
        #expect(contract.check(response: Response(status: 200), to: head).isEmpty)
        #expect(contract.check(response: Response(status: 500), to: head).map(\.pointer) == ["status"])
        let preflight = request(.options, "/orders", headers: ["Access-Control-Request-Method": "POST", "Origin": "http://app.test"])
        #expect(contract.check(request: preflight) == (true, []))
        #expect(contract.check(request: request(.options, "/orders")).violations.map(\.pointer) == ["method"])
        // A path is matched segment by segment, by its bytes: an empty or extra segment is another path.
        for uncovered in ["/orders/", "/orders//tree", "/orders/1/tree/x", "/Orders", "/api/v2", "/api/v2/", "/api/v3/orders", "", "/"] {
            #expect(contract.check(request: request(.get, uncovered)).violations.map(\.pointer) == ["path"], "\(uncovered)")
            // Soft enforcement asks without the explanation: nothing is made for a path the contract lacks.
            let quiet = contract.check(request: request(.get, uncovered), explainingUncovered: false)
            #expect(!quiet.covered && quiet.violations.isEmpty && quiet.operation == nil, "\(uncovered)")
        }
        // The request's check names its operation, which its answer is checked against (the router
        // matches the path once); a method the path lacks has none.
        for covered in ["/orders/7/tree", "/api/v2/orders/7/receipt", "/orders/%C3%A9"] {
            let found = contract.check(request: request(.get, covered), explainingUncovered: false)
            #expect(found.covered && found.operation != nil && found.operation == contract.operation(for: request(.get, covered)), "\(covered)")
        }
        #expect(contract.check(request: request(.delete, "/orders/7/tree"), explainingUncovered: false).operation == nil)
    }

    @Test func openAPI31SchemasAreJSONSchema202012() throws {
        let contract = try Self.tasks.get()
        #expect(contract.enforcement == .hard)
        let task = request(.get, "/tasks/5b1c")
        #expect(contract.check(response: json(#"{"title": "wash", "done": false, "due": null, "priority": 5}"#, status: 201), to: task).isEmpty)
        let cases: [(String, String, String)] = [
            (#"{"title": "wash", "done": false, "priority": 0}"#, "/priority", "0 is not above 0"),
            (#"{"title": "wash", "done": false, "extra": 1}"#, "", "'extra' is not allowed"),
            (#"{"title": "wa", "done": false}"#, "/title", "2 characters, fewer than 3"),
            (#"{"title": "wash", "done": false, "kind": "party"}"#, "/kind", "matches 0 of its 2 schemas, not exactly one"),
        ]
        for (body, pointer, rule) in cases {
            let broken = contract.check(response: json(body), to: task)
            #expect(broken.map(\.pointer) == [pointer], "\(body)")
            #expect(broken.map(\.rule) == [rule], "\(body)")
        }
        // A body of a media type without a schema passes; one the operation does not list does not.
        let put = request(.put, "/tasks/1", headers: ["Content-Type": "application/xml"], body: "<task/>")
        #expect(contract.check(request: put).violations.isEmpty)
        let form = request(.put, "/tasks/1", headers: ["Content-Type": "application/x-www-form-urlencoded"], body: "title=a")
        #expect(contract.check(request: form).violations.map(\.pointer) == ["content-type"])
    }

    @Test func hardEnforcementAnswersWhatTheContractBreaks() throws {
        let refusal = ContractViolation.refusal(
            [ContractViolation(part: .request, operation: "GET /a", pointer: "query.x", specLocation: "#/paths", rule: "required")], status: 400)
        #expect(refusal.status == 400)
        let body = try JSONValue.parse(refusal.body.bytes)
        #expect(body["violations"]?.arrayValue?.first?["pointer"] == "query.x")
        #expect(body["message"]?.stringValue?.contains("query.x: required") == true)
    }
}
