import Foundation
import Testing
import UnderstudyTesting

/// The device proxy against clients that misbehave: bytes that are not TLS inside a tunnel,
/// tunnels dropped at every stage, a flood of CONNECTs. Each gets a close (and a log line that says
/// which host and why); the server goes on serving everyone else.
@Suite struct DeviceProxyRobustnessTests {
    @Test func badTunnelsAreClosedLoggedAndForgotten() throws {
        let stubs = try makeTemporaryDirectory(["hosts.json": #"{"www.ibm.com": "stubs"}"#,
                                                "mappings/ok.json": #"{"request": {"urlPath": "/ok"}, "response": {"body": "ok"}}"#])
        defer { try? FileManager.default.removeItem(at: stubs) }
        let server = try UnderstudyProcess(["serve", "--port", "0", "--threads", "2", "--stubs", stubs.path])
        let port = try #require(Int(server.firstLine().split(separator: ":").last ?? ""))
        defer {
            server.signal(SIGTERM)
            _ = server.finish()
        }
        func openTunnel() throws -> RawHTTPConnection {
            let connection = try RawHTTPConnection(host: "127.0.0.1", port: port)
            try connection.send("CONNECT www.ibm.com:443 HTTP/1.1\r\nHost: www.ibm.com:443\r\n\r\n")
            return connection
        }

        // Plain HTTP where TLS should be: the tunnel closes, and the log says why and for whom.
        let plain = try openTunnel()
        #expect(try plain.readResponse(expectBody: false).status == 200)
        try plain.send("GET /ok HTTP/1.1\r\nHost: www.ibm.com\r\n\r\n")
        #expect(plain.isClosedByPeer(within: 5))
        let line = server.errorLine(containing: "TLS handshake")
        #expect(line.contains("through a tunnel to www.ibm.com") && line.contains("not a TLS client"), "\(line)")

        // Tunnels dropped before their 200, after it, and in the middle of a handshake; and a flood.
        for index in 0..<60 {
            let tunnel = try openTunnel()
            if index % 3 == 1 { _ = try? tunnel.readResponse(expectBody: false) }
            if index % 3 == 2 { try? tunnel.send([0x16, 0x03, 0x01, 0x02, 0x00, 0x01]) }
        }
        // Still serving, plain and through the proxy.
        let direct = try RawHTTPConnection(host: "127.0.0.1", port: port)
        try direct.send("GET /ok HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        #expect(try direct.readResponse().bodyText == "ok")
        let proxied = try RawHTTPConnection(host: "127.0.0.1", port: port)
        try proxied.send("GET http://www.ibm.com/ok HTTP/1.1\r\nHost: www.ibm.com\r\n\r\n")
        #expect(try proxied.readResponse().bodyText == "ok")
    }
}
