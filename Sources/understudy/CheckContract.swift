import ArgumentParser
import ContractValidation
import Foundation
import HTTPServer
import MockCore
import OpenAPIContracts
import Recording

/// `understudy check-contract`: the exchanges of a HAR file checked against an OpenAPI document.
struct CheckContract: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check-contract",
        abstract: "Check the exchanges of a HAR file (a recording, a browser's export) against an OpenAPI document.",
        discussion: "Prints each operation, pointer and rule broken; exits 1 when anything is.")

    @Option(help: "The OpenAPI 3.0/3.1 document.")
    var openapi: String

    @Argument(help: "The HAR 1.2 file.")
    var file: String

    func run() throws {
        let contract: OpenAPIContract
        let exchanges: [RecordedExchange]
        do {
            contract = try OpenAPIContract.load(openapi, enforcement: .soft)
            guard let data = FileManager.default.contents(atPath: file) else { throw ValidationError("\(file): cannot read the file") }
            exchanges = try HARImport.exchanges(Array(data)).exchanges
        } catch {
            FileHandle.standardError.write(Data("\(error)\n".utf8))
            throw ExitCode(1)
        }
        var violations: [ContractViolation] = []
        var checked = 0
        for exchange in exchanges {
            let (request, response) = exchange.asServed
            let (covered, broken) = contract.check(request: request)
            guard covered else { continue }
            checked += 1
            violations += broken + contract.check(response: response, to: request)
        }
        for line in ContractViolation.summary(of: violations) { print(line) }
        print("checked \(checked) of \(exchanges.count) exchanges against \(openapi): \(violations.count) violation(s)")
        if !violations.isEmpty { throw ExitCode(1) }
    }
}
