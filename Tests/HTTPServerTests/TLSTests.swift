import Foundation
import Testing
@testable import HTTPServer
import UnderstudyTesting

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
        let proxy = try TestServer.start(handler: ClosureHandler { _, responder in
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
}
