import HTTPServer
import JSON

/// An API contract (an OpenAPI document) the server checks traffic against: each request on a
/// path it covers, and each answer to one. Made off the hot path when the server starts; its
/// checks run on the request's loop, within the request's CPU budget. Class-bound: the router
/// holds it as one reference, which a request copies without the value witnesses an opaque
/// existential needs (what the feature may cost a server that has no contract).
public protocol ContractCheck: AnyObject, Sendable {
    var enforcement: ContractEnforcement { get }
    /// What `request` breaks, and the operation it is for. The violation that says the contract
    /// has no path for it is made only when `explainingUncovered`: the router asks under soft
    /// enforcement without it, so that requests the contract does not cover cost the least.
    func check(request: Request, explainingUncovered: Bool) -> ContractFinding
    /// What `response` breaks as an answer of `operation` (as checking its request found it: the
    /// router matches a request's path once).
    func check(response: Response, to request: Request, operation: Int) -> [ContractViolation]
    /// The operation `request` is for (its path's and method's); nil when the contract has none.
    func operation(for request: Request) -> Int?
}

/// What checking a request against the contract found.
public struct ContractFinding: Sendable {
    /// False when no path of the contract matches the request's (hard enforcement refuses it, soft
    /// lets it by unchecked).
    public var covered: Bool
    /// The contract's operation for the request, whose answers its answer is checked against; nil
    /// when it has none (an uncovered path, or a method its path lacks).
    public var operation: Int?
    public var violations: [ContractViolation]

    public init(covered: Bool, operation: Int?, violations: [ContractViolation]) {
        self.covered = covered
        self.operation = operation
        self.violations = violations
    }
}

extension ContractCheck {
    /// What `request` breaks, with the violation of a path the contract does not cover.
    public func check(request: Request) -> (covered: Bool, violations: [ContractViolation]) {
        let found = check(request: request, explainingUncovered: true)
        return (found.covered, found.violations)
    }

    /// What `response`, the answer to `request`, breaks (nothing when the contract has no
    /// operation for the request).
    public func check(response: Response, to request: Request) -> [ContractViolation] {
        guard let operation = operation(for: request) else { return [] }
        return check(response: response, to: request, operation: operation)
    }
}

/// What happens to traffic that breaks the contract.
public enum ContractEnforcement: String, Sendable, CaseIterable {
    /// Answered as usual; the violation is kept on the journal entry and counted.
    case soft
    /// A request that breaks it gets 400, an answer that breaks it is replaced by 502.
    case hard
}
