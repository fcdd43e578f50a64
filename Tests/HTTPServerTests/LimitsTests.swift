import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
import HTTPServer
import UnderstudyTesting

@Suite struct LimitsTests {
    @Test func bodyOverTheLimitGets413AndTheServerGoesOn() async throws {
        let server = try TestServer.start(handler: echo, configure: { $0.maxBodySize = 1024 })
        defer { server.stop() }
        let (_, tooLarge) = try await server.send("POST", "/upload", body: Data(repeating: 65, count: 4096))
        #expect(tooLarge.statusCode == 413)
        let (body, fits) = try await server.send("POST", "/upload", body: Data(repeating: 66, count: 1024))
        #expect(fits.statusCode == 200)
        #expect(lines(body).last == "body: " + String(repeating: "B", count: 1024))
    }

    @Test func malformedRequestLineGets400AndTheServerGoesOn() async throws {
        let server = try TestServer.start(handler: echo)
        defer { server.stop() }
        let connection = try server.connect()
        try connection.send("THIS IS NOT HTTP\r\n\r\n")
        #expect(try connection.readResponse().status == 400)
        #expect(try await server.send("GET", "/after").response.statusCode == 200)
    }

    @Test func oversizedHeadersGet400() throws {
        let server = try TestServer.start(handler: echo, configure: { $0.maxHeaderSize = 4096 })
        defer { server.stop() }
        let connection = try server.connect()
        try connection.send("GET / HTTP/1.1\r\nHost: t\r\nX-Big: \(String(repeating: "x", count: 8000))\r\n\r\n")
        #expect(try connection.readResponse().status == 400)
    }

    @Test func unknownMethodGets501AndConnectIsRefused() throws {
        let server = try TestServer.start(handler: echo)
        defer { server.stop() }
        for method in ["PROPFIND", "CONNECT"] {
            let connection = try server.connect()
            try connection.send("\(method) / HTTP/1.1\r\nHost: t\r\n\r\n")
            #expect(try connection.readResponse().status == 501, "\(method)")
        }
    }

    @Test func everyOrdinaryMethodReachesTheHandler() throws {
        let server = try TestServer.start(handler: echo)
        defer { server.stop() }
        let connection = try server.connect()
        for method in ["GET", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "TRACE"] {
            try connection.send("\(method) /m HTTP/1.1\r\nHost: t\r\nContent-Length: 0\r\n\r\n")
            #expect(try connection.readResponse().bodyText.hasPrefix("method: \(method)\n"))
        }
    }

    @Test func idleConnectionsAreClosed() throws {
        let server = try TestServer.start(handler: echo, configure: { $0.idleTimeout = .seconds(1) })
        defer { server.stop() }
        let connection = try server.connect()
        try connection.send("GET / HTTP/1.1\r\nHost: t\r\n\r\n")
        #expect(try connection.readResponse().status == 200)
        #expect(connection.isClosedByPeer(within: 5))
    }
}
