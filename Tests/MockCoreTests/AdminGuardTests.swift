import Foundation
import HTTPServer
import MockCore
import Testing
import UnderstudyTesting

/// The admin API's guard over a socket: browsers on other origins and rebinding names are refused,
/// bodies come as JSON, and a token when one is set; ordinary clients pass.
@Suite struct AdminGuardTests {
    func send(_ server: TestServer, _ method: String, _ path: String, _ headers: [(String, String)], body: String = "") throws
        -> RawHTTPConnection.Response
    {
        let connection = try server.connect()
        var request = "\(method) \(path) HTTP/1.1\r\nConnection: close\r\n"
        for (name, value) in headers { request += "\(name): \(value)\r\n" }
        request += "Content-Length: \(body.utf8.count)\r\n\r\n\(body)"
        try connection.send(request)
        return try connection.readResponse()
    }

    @Test func browsersOnOtherOriginsAndRebindingNamesAreRefused() throws {
        let server = try TestServer.start(backends: [])
        defer { server.stop() }
        let host = ("Host", "127.0.0.1:\(server.port)")
        #expect(try send(server, "POST", "/__admin/reset", [host]).status == 200)
        #expect(try send(server, "POST", "/__admin/reset", [("Host", "localhost:\(server.port)")]).status == 200)
        #expect(try send(server, "POST", "/__admin/reset", [("Host", "[::1]:\(server.port)")]).status == 200)
        #expect(
            try send(server, "POST", "/__admin/reset", [("Host", "192.168.1.20:\(server.port)")]).status == 200, "an IP address cannot be rebound")
        #expect(
            try send(server, "POST", "/__admin/reset", [host, ("Origin", "http://127.0.0.1:\(server.port)")]).status == 200,
            "the server's own pages")

        let crossOrigin = try send(server, "POST", "/__admin/reset", [host, ("Origin", "http://evil.example")], body: "{}")
        #expect(crossOrigin.status == 403)
        #expect(crossOrigin.bodyText.contains("cross-origin request (Origin: http://evil.example)"))
        #expect(try send(server, "POST", "/__admin/reset", [host, ("Origin", "null")]).status == 403)
        #expect(
            try send(server, "POST", "/__admin/reset", [host, ("Origin", "http://localhost:\(server.port)")]).status == 403,
            "another origin on the same machine")
        #expect(try send(server, "GET", "/__admin/requests", [host, ("Sec-Fetch-Site", "cross-site")]).status == 403)

        let rebound = try send(
            server, "GET", "/__admin/requests", [("Host", "attacker.example:\(server.port)"), ("Origin", "http://attacker.example:\(server.port)")])
        #expect(rebound.status == 403)
        #expect(rebound.bodyText.contains("--admin-host attacker.example"))
        // What is not the admin API is not guarded.
        #expect(try send(server, "GET", "/elsewhere", [("Host", "attacker.example"), ("Origin", "http://other.example")]).status == 404)
    }

    @Test func anAllowedOriginMayCallIt() throws {
        let server = try TestServer.start(backends: [], adminGuard: AdminGuard(allowedOrigins: ["http://localhost:3000/"]))
        defer { server.stop() }
        let headers = [("Host", "127.0.0.1"), ("Origin", "http://localhost:3000"), ("Sec-Fetch-Site", "cross-site")]
        #expect(try send(server, "POST", "/__admin/reset", headers).status == 200)
        let other = try send(server, "POST", "/__admin/reset", [("Host", "127.0.0.1"), ("Origin", "http://localhost:3001")])
        #expect(other.status == 403)
        #expect(other.bodyText.contains("--admin-origin http://localhost:3001"))
    }

    @Test func crossSiteBrowserBodiesComeAsJSON() throws {
        let server = try TestServer.start(backends: [], adminGuard: AdminGuard(allowedOrigins: ["http://localhost:3000"]))
        defer { server.stop() }
        let host = ("Host", "127.0.0.1")
        let harness = ("Origin", "http://localhost:3000")
        let plain = try send(server, "POST", "/__admin/reset", [host, harness, ("Content-Type", "text/plain")], body: "{}")
        #expect(plain.status == 415, "a simple request no preflight asked about")
        #expect(plain.bodyText.contains("not 'text/plain'"))
        #expect(
            try send(server, "POST", "/__admin/reset", [host, harness, ("Content-Type", "multipart/form-data; boundary=x")], body: "{}").status == 415
        )
        #expect(
            try send(server, "POST", "/__admin/reset", [host, ("Sec-Fetch-Site", "same-site"), ("Content-Type", "text/plain")], body: "{}").status
                == 415)
        #expect(
            try send(server, "POST", "/__admin/reset", [host, harness, ("Content-Type", "application/json; charset=utf-8")], body: "{}").status == 200
        )
        #expect(
            try send(server, "POST", "/__admin/reset", [host, harness, ("Content-Type", "application/x-www-form-urlencoded")], body: "{}").status
                == 200,
            "curl -d")
        #expect(try send(server, "POST", "/__admin/reset", [host, harness], body: "{}").status == 200)
    }

    @Test func clientsThatAreNotBrowsersMaySendAnyContentType() throws {
        let server = try TestServer.start(backends: [])
        defer { server.stop() }
        let host = ("Host", "127.0.0.1")
        // WireMock's Java client sends its JSON as text/plain, with no Origin.
        #expect(try send(server, "POST", "/__admin/reset", [host, ("Content-Type", "text/plain; charset=UTF-8")], body: "{}").status == 200)
        #expect(
            try send(server, "POST", "/__admin/reset", [host, ("Content-Type", "text/plain"), ("Origin", "http://127.0.0.1")], body: "{}").status
                == 200,
            "the server's own pages")
        #expect(
            try send(server, "POST", "/__admin/reset", [host, ("Content-Type", "text/plain"), ("Sec-Fetch-Site", "same-origin")], body: "{}").status
                == 200)
    }

    @Test func aTokenIsNeededWhenOneIsSet() throws {
        let server = try TestServer.start(backends: [], adminGuard: AdminGuard(token: "s3cret-token", allowedHosts: ["mock.test"]))
        defer { server.stop() }
        let missing = try send(server, "POST", "/__admin/reset", [("Host", "127.0.0.1")])
        #expect(missing.status == 401)
        #expect(missing.bodyText.contains("Authorization: Bearer TOKEN"))
        #expect(try send(server, "POST", "/__admin/reset", [("Authorization", "Bearer wrong-token")]).status == 401)
        #expect(try send(server, "POST", "/__admin/reset", [("Authorization", "Bearer s3cret-token")]).status == 200)
        #expect(try send(server, "POST", "/__admin/reset", [("Authorization", "Token s3cret-token"), ("Host", "mock.test:80")]).status == 200)
        #expect(try send(server, "GET", "/__admin/health", []).status == 200, "health is for readiness probes")
        #expect(
            try send(server, "POST", "/__admin/reset", [("Authorization", "Bearer s3cret-token"), ("Origin", "http://evil.example")]).status == 403)
    }
}
