import Foundation
import Testing
import UnderstudyTesting

@testable import HTTPServer

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A large proxied answer whose temporary file cannot be made or written (TMPDIR unwritable or
/// full) still reaches the client whole, from memory (hostile-client audit: it was a 502).
@Suite struct SpillFailureTests {
    /// What `onSpillFailure` was told.
    final class Reasons: Sendable {
        private let list = Locked<[String]>([])
        func add(_ reason: String) { list.withLock { $0.append(reason) } }
        var all: [String] { list.withLock { $0 } }
    }

    static let large = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 11) }

    /// Relays to `upstream` with a 64 KB threshold, spilling as `configure` says; says in
    /// `X-In-File` whether the body came from a file.
    static func relay(to upstream: TestServer, reasons: Reasons, _ configure: @escaping @Sendable (inout OutboundRequest) -> Void) throws
        -> TestServer
    {
        try TestServer.start(
            handler: ClosureHandler { request, responder in
                var outbound = OutboundRequest(url: upstream.server.baseURL + request.target)
                outbound.largeBodyThreshold = 64 * 1024
                outbound.onSpillFailure = { reason in reasons.add(reason) }
                configure(&outbound)
                responder.loop.send(outbound) { result in
                    switch result {
                    case .success(var response):
                        response.headers.set("X-In-File", response.body.file == nil ? "no" : "yes")
                        responder.send(response)
                    case .failure(let error):
                        responder.send(.text("upstream failed: \(error)", status: 502))
                    }
                }
            })
    }

    static func upstream() throws -> TestServer {
        try TestServer.start(
            handler: ClosureHandler { request, responder in
                let response = Response(status: 200, headers: ["Content-Type": "application/octet-stream"], body: ResponseBody(large))
                if request.path == "/chunked" {
                    responder.sendDribbled(response, chunks: 6, over: .milliseconds(30))
                } else {
                    responder.send(response)
                }
            })
    }

    @Test func aFullDiskMidwayKeepsTheAnswerInMemory() async throws {
        let upstream = try Self.upstream()
        defer { upstream.stop() }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("spill-full-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let reasons = Reasons()
        // The file takes 100 KB, then every write fails as with ENOSPC.
        let proxy = try Self.relay(to: upstream, reasons: reasons) { outbound in
            outbound.spillDirectory = directory.path
            outbound.spillCapacity = 100_000
        }
        defer { proxy.stop() }
        for path in ["/big", "/chunked"] {
            let (body, response) = try await proxy.send("GET", path)
            #expect(response.statusCode == 200, "\(path)")
            // Compared as a Bool: a failure must not print 300 000 bytes twice.
            let whole = Array(body) == Self.large
            #expect(whole, "\(path): \(body.count) bytes")
            #expect(response.value(forHTTPHeaderField: "X-In-File") == "no", "\(path)")
        }
        #expect(reasons.all.count == 2)
        #expect(reasons.all.first?.contains("writing to \(directory.path) failed") == true)
    }

    @Test func aSpillDirectoryThatCannotHoldFilesKeepsTheAnswerInMemory() async throws {
        let upstream = try Self.upstream()
        defer { upstream.stop() }
        // A path that is a file, and one that does not exist: no temporary file can be made.
        let notADirectory = FileManager.default.temporaryDirectory.appendingPathComponent("spill-file-\(UUID().uuidString)")
        try Data("x".utf8).write(to: notADirectory)
        defer { try? FileManager.default.removeItem(at: notADirectory) }
        for directory in [notADirectory.path, notADirectory.path + "-missing/deeper"] {
            let reasons = Reasons()
            let proxy = try Self.relay(to: upstream, reasons: reasons) { $0.spillDirectory = directory }
            defer { proxy.stop() }
            for path in ["/big", "/chunked"] {
                let (body, response) = try await proxy.send("GET", path)
                #expect(response.statusCode == 200, "\(directory) \(path)")
                let whole = Array(body) == Self.large
                #expect(whole, "\(directory) \(path): \(body.count) bytes")
            }
            #expect(reasons.all.count == 2)
        }
    }
}
