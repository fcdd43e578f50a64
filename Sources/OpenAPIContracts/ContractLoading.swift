import ContractValidation
import MockCore

extension OpenAPIContract {
    /// The contract of the document at `path`, read (and refused, saying where, when it does not read).
    public static func load(_ path: String, enforcement: ContractEnforcement) throws(SpecError) -> OpenAPIContract {
        try OpenAPIContract(document: SpecDocument.read(path), enforcement: enforcement)
    }
}
