import Foundation

/// One way an exchange broke the API contract the server checks it against (`serve --openapi`,
/// docs/contracts.md): where in the request or answer, where in the document, and the rule.
public struct ContractViolation: Sendable, Hashable, CustomStringConvertible {
    public enum Part: String, Sendable {
        case request, response
    }

    /// The exchange's request.
    public let method: String
    public let url: String
    public let part: Part
    /// `GET /carts/{id}`; nil when no path of the document matched.
    public let operation: String?
    /// A JSON Pointer into the body (`/items/0/sku`, "" for all of it), or `query.limit`,
    /// `header.X-Id`, `path.id`, `path`, `method`, `status`, `content-type`.
    public let pointer: String
    /// The failing keyword's place in the document (`#/components/schemas/Cart/…/required`).
    public let specLocation: String
    public let rule: String

    init(_ violation: JSONValue, method: String, url: String) {
        self.method = method
        self.url = url
        part = Part(rawValue: violation["in"]?.stringValue ?? "") ?? .request
        operation = violation["operation"]?.stringValue
        pointer = violation["pointer"]?.stringValue ?? ""
        specLocation = violation["specLocation"]?.stringValue ?? ""
        rule = violation["rule"]?.stringValue ?? ""
    }

    /// `GET /carts/2 (GET /carts/{id}): response /items/0: 'sku' is missing [#/components/…]`
    public var description: String {
        "\(method) \(url)\(operation.map { " (\($0))" } ?? ""): \(part.rawValue) \(pointer.isEmpty ? "body" : pointer): \(rule) [\(specLocation)]"
    }
}

/// What `assertNoContractViolations()` throws: every violation of the scope, one per line.
public struct ContractViolationFailure: Error, Sendable, CustomStringConvertible, LocalizedError {
    public let scope: String
    public let violations: [ContractViolation]

    public var description: String {
        (["\(violations.count) violation(s) of the API contract in scope \"\(scope)\":"] + violations.map { "  - \($0)" })
            .joined(separator: "\n")
    }

    public var errorDescription: String? { description }
}

extension UnderstudyScope {
    /// What the scope's requests and answers broke of the API contract, oldest first.
    public func contractViolations() async throws -> [ContractViolation] {
        let answer = try await server.json("GET", "/__admin/requests", scope: name, query: [URLQueryItem(name: "violations", value: "true")])
        return (answer["requests"]?.arrayValue ?? []).reversed().flatMap { event -> [ContractViolation] in
            let method = event["request"]?["method"]?.stringValue ?? ""
            let url = event["request"]?["url"]?.stringValue ?? ""
            return (event["violations"]?.arrayValue ?? []).map { ContractViolation($0, method: method, url: url) }
        }
    }

    /// Fails the test at this line (as `verify` does) with a `ContractViolationFailure`, naming
    /// each operation, pointer and rule, when anything in the scope broke the API contract.
    public func assertNoContractViolations(
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column
    ) async throws {
        let violations = try await contractViolations()
        guard !violations.isEmpty else { return }
        try report(
            ContractViolationFailure(scope: name, violations: violations),
            at: CallSite(fileID: fileID, filePath: filePath, line: line, column: column))
    }
}
