import Foundation
import HTTPServer
import Testing
import UnderstudyTesting

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Relays each request to `upstream` through the loop's outbound client.
func relay(to upstream: String, timeout: Duration = .seconds(2)) -> ClosureHandler {
    ClosureHandler { request, responder in
        let outbound = OutboundRequest(
            method: request.method, url: upstream + request.target,
            headers: ["X-Relayed": "yes"], body: request.body, timeout: timeout)
        responder.loop.send(outbound) { result in
            switch result {
            case .success(let response): responder.send(response)
            case .failure(let error): responder.send(.text("upstream failed: \(error)", status: 502))
            }
        }
    }
}

@Suite struct OutboundRequestTests {
    @Test func anOutboundAnswerBecomesTheReply() async throws {
        let upstream = try TestServer.start(
            handler: ClosureHandler { request, responder in
                responder.send(
                    Response(
                        status: 201, headers: ["X-Upstream": "1", "Content-Type": "text/plain"],
                        body: ResponseBody(
                            "upstream got \(request.method.rawValue) \(request.target) "
                                + "relayed=\(request.headers["X-Relayed"] ?? "no") body=\(request.bodyText)")))
            })
        defer { upstream.stop() }
        let proxy = try TestServer.start(handler: relay(to: upstream.server.baseURL), configure: { $0.threads = 1 })
        defer { proxy.stop() }

        let (body, response) = try await proxy.send("POST", "/a/b?c=d", body: Data("hello".utf8))
        #expect(response.statusCode == 201)
        #expect(response.value(forHTTPHeaderField: "X-Upstream") == "1")
        #expect(String(decoding: body, as: UTF8.self) == "upstream got POST /a/b?c=d relayed=yes body=hello")
    }

    @Test func aRefusedConnectionIsReportedNotHung() async throws {
        let closed = try TestServer.start(handler: echo)
        let deadURL = closed.server.baseURL
        closed.stop()
        let proxy = try TestServer.start(handler: relay(to: deadURL))
        defer { proxy.stop() }
        let (body, response) = try await proxy.send("GET", "/x")
        #expect(response.statusCode == 502)
        #expect(String(decoding: body, as: UTF8.self).contains("failed"))
    }

    @Test func aSilentUpstreamTimesOut() async throws {
        let silent = try TestServer.start(
            handler: ClosureHandler { _, responder in
                responder.loop.schedule(after: .seconds(30)) { responder.send(.text("late")) }
            })
        defer { silent.stop(gracePeriod: .milliseconds(10)) }
        let proxy = try TestServer.start(handler: relay(to: silent.server.baseURL))
        defer { proxy.stop() }
        let (body, response) = try await proxy.send("GET", "/x")
        #expect(response.statusCode == 502)
        #expect(String(decoding: body, as: UTF8.self).contains("no answer"))
    }

    @Test func largeBodiesArriveInAFileAndAreSentFromIt() async throws {
        let large = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 >> 9) }
        let upstream = try TestServer.start(
            handler: ClosureHandler { request, responder in
                let response = Response(
                    status: 200, headers: ["Content-Type": "application/octet-stream"],
                    body: ResponseBody(request.path == "/small" ? Array(large.prefix(100)) : large))
                if request.path == "/chunked" {
                    responder.sendDribbled(response, chunks: 5, over: .milliseconds(20))
                } else {
                    responder.send(response)
                }
            })
        defer { upstream.stop() }
        let spillDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("spill-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: spillDirectory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: spillDirectory) }
        let proxy = try TestServer.start(
            handler: ClosureHandler { request, responder in
                var outbound = OutboundRequest(url: upstream.server.baseURL + request.target)
                outbound.largeBodyThreshold = 64 * 1024
                outbound.spillDirectory = spillDirectory.path
                responder.loop.send(outbound) { result in
                    guard case .success(var response) = result else { return responder.send(.text("failed", status: 502)) }
                    response.headers.set("X-In-File", response.body.file == nil ? "no" : "yes")
                    responder.send(response)
                }
            })
        defer { proxy.stop() }
        for (path, expected, inFile) in [("/big", large, "yes"), ("/chunked", large, "yes"), ("/small", Array(large.prefix(100)), "no")] {
            let (body, response) = try await proxy.send("GET", path)
            #expect(Array(body) == expected, "\(path)")
            #expect(response.value(forHTTPHeaderField: "X-In-File") == inFile, "\(path)")
        }
        // The files were unlinked as soon as they were made.
        #expect(try FileManager.default.contentsOfDirectory(atPath: spillDirectory.path).isEmpty)
    }

    /// The upstream names the client port each request came from: one port, one connection.
    static func portEcho(closeAfter closing: Set<String> = []) -> ClosureHandler {
        ClosureHandler { request, responder in
            var response = Response.text("\(request.remotePort)")
            if closing.contains(request.path) { response.headers.set("Connection", "close") }
            responder.send(response)
        }
    }

    @Test func connectionsAreKeptAliveAndReused() async throws {
        let upstream = try TestServer.start(handler: Self.portEcho(closeAfter: ["/close"]))
        defer { upstream.stop() }
        // A generous timeout: a slow answer on a loaded machine must not pass for a new connection.
        let proxy = try TestServer.start(handler: relay(to: upstream.server.baseURL, timeout: .seconds(60)), configure: { $0.threads = 1 })
        defer { proxy.stop() }
        var ports: [String] = []
        for path in ["/a", "/b", "/c", "/close", "/d", "/e"] {
            ports.append(String(decoding: try await proxy.send("GET", path).body, as: UTF8.self))
        }
        // One connection for the first four requests; the server closed it after /close.
        #expect(Set(ports[0..<4]).count == 1, "\(ports)")
        #expect(ports[4] != ports[3] && ports[5] == ports[4], "\(ports)")
    }

    @Test func aKeptConnectionTheUpstreamDroppedIsReplaced() async throws {
        let upstream = try TestServer.start(handler: Self.portEcho(), configure: { $0.idleTimeout = .milliseconds(200) })
        defer { upstream.stop() }
        let proxy = try TestServer.start(handler: relay(to: upstream.server.baseURL, timeout: .seconds(60)), configure: { $0.threads = 1 })
        defer { proxy.stop() }
        let first = String(decoding: try await proxy.send("GET", "/a").body, as: UTF8.self)
        // The upstream closes the idle connection after 200 ms (its accepted socket is this process's).
        let closed = await poll(until: { OpenConnections.byListeningPort()[UInt16(upstream.port)] == 0 })
        #expect(closed, "the upstream closed the kept connection")
        let (body, response) = try await proxy.send("GET", "/b")
        #expect(response.statusCode == 200)
        #expect(String(decoding: body, as: UTF8.self) != first)
    }

    @Test func badURLsFailAtOnce() async throws {
        let proxy = try TestServer.start(
            handler: ClosureHandler { request, responder in
                responder.loop.send(OutboundRequest(url: request.query("url") ?? "")) { result in
                    if case .failure(let error) = result { responder.send(.text("\(error)", status: 502)) }
                }
            })
        defer { proxy.stop() }
        let unsupported = String(decoding: try await proxy.send("GET", "/?url=ftp%3A%2F%2Fexample.com%2F").body, as: UTF8.self)
        #expect(unsupported.contains("unsupported scheme"))
        let invalid = String(decoding: try await proxy.send("GET", "/?url=not%20a%20url").body, as: UTF8.self)
        #expect(invalid.contains("invalid URL"))
    }
}

/// The loop's own resolver: what `--peers-dns` re-reads without holding a thread.
@Suite struct AddressResolutionTests {
    @Test func namesAndLiteralsResolveOnTheLoop() async throws {
        let loop = try EventLoop.startClient()
        func resolve(_ host: String) async -> [String] {
            await withCheckedContinuation { done in
                loop.execute { loop.resolveAddresses(of: host) { done.resume(returning: $0) } }
            }
        }
        #expect(await resolve("localhost").contains("127.0.0.1"))
        #expect(await resolve("127.0.0.9") == ["127.0.0.9"])
        #expect(await resolve("::1") == ["::1"])
    }

    @Test func thisMachinesAddressesIncludeLoopback() {
        #expect(SocketAddress.interfaceHosts().contains("127.0.0.1"))
    }
}
