import ArgumentParser
import ContractValidation
import Foundation
import JSON
import MockCore
import OpenAPIContracts
import Stubs

extension ContractEnforcement: ExpressibleByArgument {}

/// `--openapi SPEC --validation soft|hard`: the API contract traffic is checked against
/// (docs/contracts.md). Without `--openapi`, a stubs folder's own `openapi.yaml|yml|json` is
/// the contract, enforced as its `understudy.json` says (`{"openapi": {"validation": "hard"}}`).
struct ContractOptions: ParsableArguments {
    @Option(help: ArgumentHelp("An OpenAPI 3.0/3.1 document (YAML or JSON) requests and answers are checked against.", valueName: "spec"))
    var openapi: String?

    @Option(
        help: ArgumentHelp(
            "soft: keep what breaks the contract on the journal (violations); hard: answer 400 to such a request, 502 instead of such an answer.",
            valueName: "soft|hard"))
    var validation: ContractEnforcement?

    /// The contract for a server of `stubs` (nil: none), read now: a document that does not read
    /// stops the start with where it is wrong.
    func load(stubs: URL?) throws -> OpenAPIContract? {
        var spec = openapi
        var enforcement = validation
        if spec == nil, let stubs {
            spec = ["openapi.yaml", "openapi.yml", "openapi.json"].map { stubs.appendingPathComponent($0).path }
                .first { FileManager.default.fileExists(atPath: $0) }
            if spec != nil, enforcement == nil { enforcement = try Self.enforcement(in: stubs) }
        }
        guard let spec else {
            if validation != nil { throw ValidationError("--validation needs --openapi (or an openapi.yaml in the stubs folder)") }
            return nil
        }
        do throws(SpecError) {
            return try OpenAPIContract.load(spec, enforcement: enforcement ?? .soft)
        } catch {
            throw ValidationError("\(error)")
        }
    }

    /// `openapi.validation` of the stubs folder's `understudy.json`.
    private static func enforcement(in stubs: URL) throws -> ContractEnforcement? {
        let file = stubs.appendingPathComponent(StubDirectory.settingsFileName)
        guard let data = FileManager.default.contents(atPath: file.path), let settings = try? JSONValue.parse(Array(data)) else { return nil }
        guard let value = settings["openapi"]?["validation"] else { return nil }
        guard let mode = value.stringValue.flatMap(ContractEnforcement.init(rawValue:)) else {
            throw ValidationError("\(file.path): openapi.validation is \"soft\" or \"hard\", not \(value.serialized)")
        }
        return mode
    }
}
