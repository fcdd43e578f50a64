import ArgumentParser
import ContractValidation
import Foundation
import OpenAPIContracts

/// `understudy import-openapi`: a stubs folder from an OpenAPI document.
struct ImportOpenAPI: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import-openapi",
        abstract: "Make stub mappings from an OpenAPI 3.0/3.1 document (its examples, else bodies made from its schemas).",
        discussion: "Writes OUT/mappings/ (one file per operation) and keeps the document as OUT/openapi.yaml|json, so that `serve --stubs OUT` "
            + "also checks traffic against it. Prefer: code=404 or Prefer: example=NAME picks another documented answer (docs/contracts.md).")

    @Argument(help: "The OpenAPI document (YAML or JSON); relative $refs to other files are followed, remote ones refused.")
    var spec: String

    @Option(help: "The stubs folder to write (created if need be).")
    var out: String

    func run() throws {
        let document: SpecDocument
        do throws(SpecError) {
            document = try SpecDocument.read(spec)
        } catch {
            FileHandle.standardError.write(Data("\(error)\n".utf8))
            throw ExitCode(1)
        }
        let (result, specFile) = try StubImport.write(document, to: URL(fileURLWithPath: out))
        for warning in result.warnings { FileHandle.standardError.write(Data("warning: \(warning)\n".utf8)) }
        print("imported \(result.files.count) operations as \(result.mappingCount) mappings into \(out)/mappings; the contract is \(specFile)")
    }
}
