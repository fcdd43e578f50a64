import ArgumentParser
import Foundation
import HTTPServer

/// `understudy export-har`: a running server's journal as a HAR 1.2 file
/// (`GET /__admin/requests?format=har`), for a bug report or any tool that reads HAR.
struct ExportHAR: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export-har", abstract: "Write a running server's journal (one scope's) as a HAR 1.2 file, secrets redacted.")

    @OptionGroup var server: RunningServerOptions

    @Option(help: "The scope whose journal to write (default: the default scope; * for every scope).")
    var scope: String?

    @Option(help: "The newest this many requests only.")
    var limit: Int?

    @Option(help: "The HAR file to write.")
    var out: String

    func validate() throws {
        if let limit, limit < 0 { throw ValidationError("--limit must not be negative") }
    }

    func run() throws {
        let loop = try EventLoop.startClient()
        var query = "format=har"
        if let scope {
            query += "&scope=" + (scope.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(["*", "-", "_", "."])) ?? scope)
        }
        if let limit { query += "&limit=\(limit)" }
        let address = server.base + "/__admin/requests?" + query
        let response: Response
        do {
            response = try loop.sendWaiting(OutboundRequest(url: address, headers: server.headers, timeout: .seconds(120))).get()
        } catch {
            return try fail("cannot reach \(address): \(error)")
        }
        guard response.status == 200 else {
            return try fail("\(address) answered \(response.status): \(String(decoding: response.body.bytes, as: UTF8.self).prefix(300))")
        }
        do {
            try Data(response.body.bytes).write(to: URL(fileURLWithPath: out), options: .atomic)
        } catch {
            return try fail("\(out): cannot write the file: \(error.localizedDescription)")
        }
        print("wrote \(out) (\(response.body.bytes.count) bytes)")
    }

    private func fail(_ message: String) throws {
        FileHandle.standardError.write(Data("export-har: \(message)\n".utf8))
        throw ExitCode(1)
    }
}
