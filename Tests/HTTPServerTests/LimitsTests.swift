import Foundation
import HTTPServer
import Testing
import UnderstudyTesting

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Serialized: the unread answers are counted across the process, as one server would count them.
@Suite(.serialized) struct LimitsTests {
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

    @Test func unknownMethodGets501AndConnectReachesTheHandler() throws {
        let server = try TestServer.start(handler: echo)
        defer { server.stop() }
        let unknown = try server.connect()
        try unknown.send("PROPFIND / HTTP/1.1\r\nHost: t\r\n\r\n")
        #expect(try unknown.readResponse().status == 501)
        // CONNECT reaches the handler, which answers it as a proxy would or refuses it.
        let authority = try server.connect()
        try authority.send("CONNECT www.ibm.com:443 HTTP/1.1\r\nHost: www.ibm.com:443\r\n\r\n")
        let answer = try authority.readResponse()
        #expect(answer.status == 200 && answer.bodyText.contains("method: CONNECT"))
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

    /// RFC 9112 §5.1 and §6.3: framing a server and a proxy in front of it could read differently
    /// is refused, and the connection closed (its remaining bytes cannot be trusted).
    @Test(arguments: [
        ("POST /a HTTP/1.1\r\nHost: t\r\nContent-Length: 3\r\nContent-Length: 5\r\n\r\nabcde", "Content-Length given twice"),
        ("POST /a HTTP/1.1\r\nHost: t\r\nTransfer-Encoding : chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n", "'Transfer-Encoding '"),
        ("POST /a HTTP/1.1\r\nHost: t\r\nContent-Length\t: 3\r\n\r\nabc", "whitespace between the header field name"),
        ("POST /a HTTP/1.1\r\nHost: t\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n", ""),
    ])
    func ambiguousFramingGets400AndTheConnectionCloses(request: String, reason: String) throws {
        let server = try TestServer.start(handler: echo)
        defer { server.stop() }
        let connection = try server.connect()
        try connection.send(request)
        let response = try connection.readResponse()
        #expect(response.status == 400)
        #expect(reason.isEmpty || response.bodyText.contains(reason), "libevent refuses both lengths itself")
        #expect(connection.isClosedByPeer(within: 5))
        // Agreeing duplicates are one length.
        let agreeing = try server.connect()
        try agreeing.send("POST /a HTTP/1.1\r\nHost: t\r\nContent-Length: 3\r\nContent-Length: 3\r\n\r\nabc")
        #expect(try agreeing.readResponse().bodyText.contains("body: abc\n"))
    }

    /// Clients that never read: the large answers waiting for them are capped across the server;
    /// past the cap a large answer is 503, and the room comes back when those clients go.
    @Test func unreadAnswersAreCappedAndReleased() throws {
        let big = [UInt8](repeating: 0x61, count: 16 << 20)
        let server = try TestServer.start(
            handler: ClosureHandler { _, responder in responder.send(Response(body: ResponseBody(big))) },
            configure: {
                $0.maxUnsentBytes = 40 << 20
                $0.threads = 1
            })
        defer { server.stop() }
        var stalled: [RawHTTPConnection] = []
        for _ in 0..<4 {
            let connection = try RawHTTPConnection(host: "127.0.0.1", port: server.port, receiveBuffer: 4096)
            try connection.send("GET /big HTTP/1.1\r\nHost: t\r\n\r\n")
            stalled.append(connection)
        }
        let reader = try server.connect()
        var status = 0
        for _ in 0..<50 where status != 503 {
            try reader.send("GET /big HTTP/1.1\r\nHost: t\r\n\r\n")
            let response = try reader.readResponse()
            status = response.status
            if status == 503 { #expect(response.header("Retry-After") == "1") }
        }
        #expect(status == 503, "with gigabytes' worth of clients that do not read")
        stalled.removeAll()
        var recovered = false
        for _ in 0..<100 where !recovered {
            Thread.sleep(forTimeInterval: 0.05)
            try reader.send("GET /big HTTP/1.1\r\nHost: t\r\n\r\n")
            let response = try reader.readResponse()
            recovered = response.status == 200 && response.body.count == big.count
        }
        #expect(recovered, "closed connections give their room back")
    }

    /// An emulator's answer is a shared buffer made for its request: each counts. One buffer that
    /// every client is sent (a stub's body) costs its size once, however many do not read it.
    @Test func sharedAnswersCountOnceAndAnswersMadePerRequestEachTime() throws {
        let size = 8 << 20
        let fixture = SharedBytes([UInt8](repeating: 0x62, count: size))
        let server = try TestServer.start(
            handler: ClosureHandler { request, responder in
                let body = request.path == "/fixture" ? fixture : SharedBytes([UInt8](repeating: 0x61, count: size))
                responder.send(Response(body: ResponseBody(shared: body)))
            },
            configure: {
                $0.maxUnsentBytes = 20 << 20
                $0.threads = 1
            })
        defer { server.stop() }
        func stall(_ path: String, _ count: Int) throws -> [RawHTTPConnection] {
            try (0..<count).map { _ in
                let connection = try RawHTTPConnection(host: "127.0.0.1", port: server.port, receiveBuffer: 4096)
                try connection.send("GET \(path) HTTP/1.1\r\nHost: t\r\n\r\n")
                return connection
            }
        }
        func status(_ path: String) throws -> Int {
            let reader = try server.connect()
            try reader.send("GET \(path) HTTP/1.1\r\nHost: t\r\n\r\n")
            return try reader.readResponse().status
        }
        var stalled = try stall("/fixture", 6)
        #expect(try status("/fixture") == 200, "one buffer held by six clients costs 8 MiB")
        stalled += try stall("/made", 3)
        #expect(try status("/made") == 503, "three answers of 8 MiB made for their requests pass 20 MiB")
        stalled.removeAll()
        var recovered = false
        for _ in 0..<100 where !recovered {
            Thread.sleep(forTimeInterval: 0.05)
            recovered = try status("/made") == 200
        }
        #expect(recovered, "every hold is given back when the clients go")
    }
}
