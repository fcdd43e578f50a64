import DeviceProxy
import Foundation
import Testing
import UnderstudyTesting

@testable import HTTPServer

@Suite struct TLSTests {
    @Test func aMissingCertificateIsAClearErrorAtStart() throws {
        let missing = "/nonexistent/understudy-cert.pem"
        #expect {
            try TestServer.start(handler: echo) { $0.tls = TLSServerSettings(certificateFile: missing, privateKeyFile: missing) }
        } throws: { error in
            "\(error)".hasPrefix("TLS: cannot read the certificate \(missing)")
        }
    }

    @Test func anUnreadableTrustFileFailsTheRequestWithItsName() async throws {
        let proxy = try TestServer.start(
            handler: ClosureHandler { _, responder in
                var outbound = OutboundRequest(url: "https://127.0.0.1:9/")
                outbound.tls = TLSClientSettings(trustedCertificates: "/nonexistent/ca.pem")
                responder.loop.send(outbound) { result in
                    if case .failure(let error) = result { responder.send(.text("\(error)", status: 502)) }
                }
            })
        defer { proxy.stop() }
        let body = String(decoding: try await proxy.send("GET", "/").body, as: UTF8.self)
        #expect(body == "TLS with https://127.0.0.1:9/ failed: cannot read the trusted certificates /nonexistent/ca.pem")
    }

    /// Which hosts are checked against the certificate's IP entries rather than its names.
    @Test func onlyAddressLiteralsAreVerifiedAsAddresses() {
        #expect(SocketAddress.ipLiteral("127.0.0.1") == "127.0.0.1")
        #expect(SocketAddress.ipLiteral("[::1]") == "::1")
        #expect(SocketAddress.ipLiteral("::1") == "::1")
        for name in ["cafe.de", "feed.be", "localhost", "10.0.0", "ad.ad.ad.ad"] { #expect(SocketAddress.ipLiteral(name) == nil, "\(name)") }
    }

    /// A client that dribbles its handshake a byte at a time restarts the idle timer with each
    /// byte: the handshake's own deadline ends it. One whose handshake finished is not touched.
    @Test func aDribbledHandshakeIsEndedByItsDeadline() async throws {
        let root = try makeTemporaryDirectory([:])
        defer { try? FileManager.default.removeItem(at: root) }
        let authority = try LocalCA.loadOrCreate(directory: root.appendingPathComponent("ca"))
        let server = try TestServer.start(handler: ClosureHandler { _, responder in responder.send(.text("secure")) }) {
            $0.tls = TLSServerSettings(authority: authority)
            $0.tlsHandshakeTimeout = .seconds(1)
            $0.idleTimeout = .seconds(60)
        }
        defer { server.stop() }
        let dribbler = try RawHTTPConnection(host: "127.0.0.1", port: server.port)
        let hello: [UInt8] = [0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00, 0x01, 0xFC, 0x03, 0x03] + [UInt8](repeating: 7, count: 40)
        var closed = false
        for byte in hello where !closed {
            try? dribbler.send([byte])
            closed = dribbler.isClosedByPeer(within: 0.2)
        }
        #expect(closed, "still open after dribbling the whole hello (10 s), with an idle timeout of 60 s")

        // A finished handshake, then a pause past the deadline: the connection is still served.
        let client = ChildProcess()
        client.executableURL = URL(fileURLWithPath: "/bin/sh")
        client.arguments = [
            "-c",
            "(sleep 2; printf 'GET / HTTP/1.1\\r\\nHost: t\\r\\nConnection: close\\r\\n\\r\\n'; sleep 1) | openssl s_client -quiet -connect 127.0.0.1:\(server.port)",
        ]
        let output = childPipe()
        client.standardOutput = output
        client.standardError = FileHandle.nullDevice
        try ProcessEnvironment.run(client)
        let answer = String(decoding: output.fileHandleForReading.readToEndOfStream(), as: UTF8.self)
        client.waitUntilExit(within: childProcessPatience)
        #expect(answer.contains("HTTP/1.1 200") && answer.hasSuffix("secure"), "\(answer)")
    }
}
