import ArgumentParser
import Foundation
import HTTPServer

/// `understudy health`: asks a running server's `GET /__admin/health` and exits 0 when it answers
/// 200, 1 otherwise: the container image's HEALTHCHECK, which needs no curl in the image for it.
struct Health: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Exit 0 when a running server's /__admin/health answers 200 (healthy, joined), else 1 (the image's health check).")

    @OptionGroup var server: RunningServerOptions

    @Option(help: "Seconds to wait for the answer.")
    var timeout = 3

    func validate() throws {
        guard timeout > 0 else { throw ValidationError("--timeout must be at least 1 second") }
    }

    func run() throws {
        let loop = try EventLoop.startClient()
        let address = server.base + "/__admin/health"
        let request = OutboundRequest(url: address, headers: server.headers, timeout: .seconds(timeout))
        switch loop.sendWaiting(request) {
        case .success(let response) where response.status == 200:
            return
        case .success(let response):
            let text = String(decoding: response.body.bytes.prefix(300), as: UTF8.self)
            FileHandle.standardError.write(Data("health: \(address) answered \(response.status): \(text)\n".utf8))
        case .failure(let error):
            FileHandle.standardError.write(Data("health: cannot reach \(address): \(error)\n".utf8))
        }
        throw ExitCode.failure
    }
}
