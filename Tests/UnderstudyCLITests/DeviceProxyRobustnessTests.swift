import Foundation
import HTTPServer
import Testing
import UnderstudyTesting

/// The device proxy against clients that misbehave: bytes that are not TLS inside a tunnel,
/// tunnels dropped at every stage, a flood of CONNECTs. Each gets a close (and a log line that says
/// which host and why); the server goes on serving everyone else.
@Suite struct DeviceProxyRobustnessTests {
    @Test func badTunnelsAreClosedLoggedAndForgotten() throws {
        let stubs = try makeTemporaryDirectory([
            "hosts.json": #"{"www.ibm.com": "stubs"}"#,
            "mappings/ok.json": #"{"request": {"urlPath": "/ok"}, "response": {"body": "ok"}}"#,
        ])
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

    /// A client chooses the host names, SNI and targets the log shows, and how often: escaped,
    /// they cannot forge a line; throttled, they cannot flood the log.
    @Test func clientsCanNeitherForgeNorFloodTheLog() throws {
        let stubs = try makeTemporaryDirectory(["hosts.json": #"{"www.ibm.com": "stubs"}"#])
        defer { try? FileManager.default.removeItem(at: stubs) }
        let server = try UnderstudyProcess(["serve", "--port", "0", "--threads", "2", "--stubs", stubs.path])
        let port = try #require(Int(server.firstLine().split(separator: ":").last ?? ""))

        // A handshake the client fails (it refuses the certificate) with an SNI holding CR LF.
        let client = ChildProcess()
        client.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        client.arguments = [
            "openssl", "s_client", "-verify_return_error", "-proxy", "127.0.0.1:\(port)", "-connect", "www.ibm.com:443",
            "-servername", "x\r\nunderstudy: forged line",
        ]
        client.standardInput = FileHandle.nullDevice
        client.standardOutput = FileHandle.nullDevice
        client.standardError = FileHandle.nullDevice
        try ProcessEnvironment.run(client)
        client.waitUntilExit(within: childProcessPatience)
        let handshake = server.errorLine(containing: "TLS handshake")
        #expect(handshake.contains(#"for x\r\nunderstudy: forged line failed"#), "\(handshake)")

        // A thousand CONNECTs refused, each with a target of its own (no port).
        for index in 0..<1000 {
            let connection = try RawHTTPConnection(host: "127.0.0.1", port: port)
            try connection.send("CONNECT unmapped-\(index).invalid HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try connection.readResponse().status == 400)
        }
        server.signal(SIGTERM)
        let log = server.finish().stderr
        let lines = log.split(separator: "\n")
        #expect(!lines.contains { $0.hasPrefix("understudy: forged") })
        #expect(!log.contains("\u{1B}"), "no escape sequence reaches the terminal")
        let refusals = lines.filter { $0.contains("CONNECT") }
        #expect(refusals.count <= 30, "\(refusals.count) lines for 1,000 refused CONNECTs")
        #expect(refusals.first?.contains("CONNECT unmapped-0.invalid from 127.0.0.1 refused (400)") == true, "\(refusals.first ?? "")")
    }

    @Test func anIdleTunnelIsClosedAfterTheIdleTimeout() throws {
        // The real host: a server that keeps an idle connection open for a minute.
        let upstream = try TestServer.start(handler: ClosureHandler { _, responder in responder.send(.text("up")) }) {
            $0.idleTimeout = .seconds(60)
        }
        defer { upstream.stop() }
        let stubs = try makeTemporaryDirectory([:])
        defer { try? FileManager.default.removeItem(at: stubs) }
        let server = try UnderstudyProcess(["serve", "--port", "0", "--threads", "1", "--stubs", stubs.path, "--pass-through", "--idle-timeout", "1"])
        let port = try #require(Int(server.firstLine().split(separator: ":").last ?? ""))
        defer {
            server.signal(SIGTERM)
            _ = server.finish()
        }
        let tunnel = try RawHTTPConnection(host: "127.0.0.1", port: port)
        try tunnel.send("CONNECT localhost:\(upstream.port) HTTP/1.1\r\nHost: localhost:\(upstream.port)\r\n\r\n")
        #expect(try tunnel.readResponse(expectBody: false).status == 200)
        // Through to the real host, then silence: the tunnel goes after --idle-timeout, not the upstream's minute.
        try tunnel.send("GET / HTTP/1.1\r\nHost: localhost\r\n\r\n")
        #expect(try tunnel.readResponse().bodyText == "up")
        #expect(tunnel.isClosedByPeer(within: 5))
    }
}
