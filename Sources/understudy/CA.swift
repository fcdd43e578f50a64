import ArgumentParser
import DeviceProxy
import Foundation
import HTTPServer

/// `understudy ca`: the local CA device mode issues its certificates from — made when missing,
/// described, and exported for the devices and tools that must trust it.
struct CA: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ca",
        abstract: "Show the local CA (made when missing) and export its certificate for devices, browsers and tools to trust.")

    @Option(help: ArgumentHelp("Where the CA is kept (default: UNDERSTUDY_CA_DIR, else ~/.understudy/ca).", valueName: "dir"))
    var caDir: String?

    @Option(help: ArgumentHelp("Write the CA's certificate to this file (PEM; DER with --der).", valueName: "file"))
    var export: String?

    @Flag(help: "Export DER instead of PEM.")
    var der = false

    func run() throws {
        var options = DeviceOptions()
        options.caDir = caDir
        let authority: LocalCA
        do {
            authority = try LocalCA.loadOrCreate(directory: options.caDirectory)
        } catch {
            throw ValidationError("\(error)")
        }
        if let export {
            let bytes = der ? Data(authority.certificateDER) : Data(authority.certificatePEM.utf8)
            try bytes.write(to: URL(fileURLWithPath: export))
        }
        print("\(authority.commonName)\nSHA-256 \(authority.fingerprint)\nin \(authority.directory.path)")
    }
}
