import HTTPServer
import JSON

/// One way a request or answer breaks the contract.
public struct ContractViolation: Sendable, Equatable {
    public enum Part: String, Sendable {
        case request, response
    }

    public let part: Part
    /// The operation, `GET /pets/{petId}` (nil when the path is not in the contract).
    public let operation: String?
    /// Where in the message: a JSON Pointer into the body (`/0/id`, "" for all of it), or
    /// `query.limit`, `header.X-Id`, `path.petId`, `path`, `method`, `status`, `content-type`.
    public let pointer: String
    /// Where in the contract: a JSON Pointer into the document (`#/paths/~1pets/get/…/type`).
    public let specLocation: String
    public let rule: String

    public init(part: Part, operation: String?, pointer: String, specLocation: String, rule: String) {
        self.part = part
        self.operation = operation
        self.pointer = pointer
        self.specLocation = specLocation
        self.rule = rule
    }

    public var json: JSONValue {
        .object([
            ("in", .string(part.rawValue)), ("operation", operation.map(JSONValue.string) ?? .null), ("pointer", .string(pointer)),
            ("specLocation", .string(specLocation)), ("rule", .string(rule)),
        ])
    }

    /// `request body /0/id: type: expected integer, found string`, for logs and summaries.
    public var summary: String {
        "\(operation.map { $0 + " " } ?? "")\(part.rawValue) \(pointer.isEmpty ? "body" : pointer): \(rule)"
    }

    /// The answer hard enforcement gives instead: `status` (400 for a request, 502 for an
    /// answer) with a JSON body naming each violation.
    public static func refusal(_ violations: [ContractViolation], status: Int) -> Response {
        let what = status == 400 ? "The request breaks the API contract" : "The answer breaks the API contract"
        let body: JSONValue = .object([
            ("message", .string("\(what): \(violations.first?.summary ?? "")")),
            ("violations", .array(violations.map(\.json))),
        ])
        var response = Response.json(body.serialized, status: status)
        response.headers.set("X-Understudy-Contract", "violated")
        return response
    }
}

extension ContractViolation {
    /// One line per distinct violation, with how often it was seen, by operation: what `record
    /// --openapi` and `check-contract` print.
    public static func summary(of violations: [ContractViolation]) -> [String] {
        var counts: [String: Int] = [:]
        var order: [String] = []
        for violation in violations {
            let line =
                "\(violation.operation ?? "(no operation)")  \(violation.part.rawValue) \(violation.pointer.isEmpty ? "body" : violation.pointer): \(violation.rule)  [\(violation.specLocation)]"
            if counts[line] == nil { order.append(line) }
            counts[line, default: 0] += 1
        }
        return order.map { line in counts[line].map { $0 > 1 ? "\(line) (×\($0))" : line } ?? line }
    }
}
