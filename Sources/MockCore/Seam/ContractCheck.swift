import HTTPServer
import JSON

/// An API contract (an OpenAPI document) the server checks traffic against: each request on a
/// path it covers, and each answer to one. Made off the hot path when the server starts; its
/// checks run on the request's loop, within the request's CPU budget. Class-bound: the router
/// holds it as one reference, which a request copies without the value witnesses an opaque
/// existential needs (what the feature may cost a server that has no contract).
public protocol ContractCheck: AnyObject, Sendable {
    var enforcement: ContractEnforcement { get }
    /// What `request` breaks; `covered` false when the contract has no operation for its path
    /// (which hard enforcement refuses, soft lets by unchecked). The violation that says so is
    /// made only when `explainingUncovered`: the router asks under soft enforcement without it,
    /// so that requests the contract does not cover cost the least.
    func check(request: Request, explainingUncovered: Bool) -> (covered: Bool, violations: [ContractViolation])
    /// What `response`, the answer to `request`, breaks (nothing when the request's path is not covered).
    func check(response: Response, to request: Request) -> [ContractViolation]
}

extension ContractCheck {
    /// What `request` breaks, with the violation of a path the contract does not cover.
    public func check(request: Request) -> (covered: Bool, violations: [ContractViolation]) {
        check(request: request, explainingUncovered: true)
    }
}

/// What happens to traffic that breaks the contract.
public enum ContractEnforcement: String, Sendable, CaseIterable {
    /// Answered as usual; the violation is kept on the journal entry and counted.
    case soft
    /// A request that breaks it gets 400, an answer that breaks it is replaced by 502.
    case hard
}
