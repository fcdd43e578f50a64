import ArgumentParser
import Foundation
import HTTPServer

/// `--url` and `--admin-token`: how a command that talks to a running server reaches it
/// (`tail`, `mcp`, `export-har`).
struct RunningServerOptions: ParsableArguments {
    @Option(help: "The running server.")
    var url = "http://127.0.0.1:8080"

    @Option(help: "The admin token, if the server wants one (also UNDERSTUDY_ADMIN_TOKEN).")
    var adminToken: String?

    func validate() throws {
        guard let parsed = URL(string: url), ["http", "https"].contains(parsed.scheme ?? "") else {
            throw ValidationError("--url must be an http:// or https:// URL, not \(url)")
        }
    }

    /// The server's base URL, without a trailing slash.
    var base: String { url.hasSuffix("/") ? String(url.dropLast()) : url }

    /// The token given, or the environment's.
    var token: String? { adminToken ?? ProcessInfo.processInfo.environment["UNDERSTUDY_ADMIN_TOKEN"] }

    /// `Authorization: Bearer …` when there is a token.
    var headers: HTTPHeaders {
        var headers = HTTPHeaders()
        if let token, !token.isEmpty { headers.set("Authorization", "Bearer " + token) }
        return headers
    }
}
