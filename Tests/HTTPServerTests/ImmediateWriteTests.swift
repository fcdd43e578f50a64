import Foundation
import HTTPServer
import Testing
import UnderstudyTesting

/// A reply given during its request's callback is written by the loop in the same turn, without
/// asking the poller for writability (`EventLoop.writeQueuedReplies`); what does not fit is written
/// by evhttp's writer as before.
@Suite struct ImmediateWriteTests {
    /// `/count` answers how many replies its loop has written at once so far; `/big` answers
    /// `bigSize` bytes; anything else a short text. One loop, so the count is the connection's.
    private static func start(bigSize: Int = 0) throws -> TestServer {
        try TestServer.start(
            handler: ClosureHandler { request, responder in
                switch request.path {
                case "/count": responder.send(.text("\(responder.loop.repliesWrittenAtOnce)"))
                case "/big": responder.send(Response(body: ResponseBody(String(repeating: "b", count: bigSize))))
                default: responder.send(.text("short"))
                }
            }, configure: { $0.threads = 1 })
    }

    @Test func aShortReplyIsWrittenAtOnceAndTheConnectionReadsOn() throws {
        let server = try Self.start()
        defer { server.stop() }
        let connection = try server.connect()
        for _ in 1...3 {
            try connection.send("GET /a HTTP/1.1\r\nHost: t\r\n\r\n")
            #expect(try connection.readResponse().bodyText == "short")
        }
        // Pipelined: each is answered in order, the next read after its predecessor's write.
        try connection.send("GET /b HTTP/1.1\r\nHost: t\r\n\r\nGET /count HTTP/1.1\r\nHost: t\r\n\r\n")
        #expect(try connection.readResponse().bodyText == "short")
        #expect(try connection.readResponse().bodyText == "4")
    }

    @Test func aReplyTooBigForTheSocketIsFinishedByTheLoop() throws {
        let size = 8 << 20
        let server = try Self.start(bigSize: size)
        defer { server.stop() }
        // A small receive buffer: the reply cannot all go in one write.
        let connection = try RawHTTPConnection(host: "127.0.0.1", port: server.port, timeout: 30, receiveBuffer: 4096)
        try connection.send("GET /big HTTP/1.1\r\nHost: t\r\n\r\nGET /count HTTP/1.1\r\nHost: t\r\n\r\n")
        let big = try connection.readResponse()
        #expect(big.body.count == size)
        #expect(try connection.readResponse().bodyText == "0", "the big reply was finished by evhttp's writer")
    }

    @Test func aConnectionThatClosesAfterItsReplyGetsAllOfIt() throws {
        let server = try Self.start()
        defer { server.stop() }
        for request in ["GET /a HTTP/1.0\r\n\r\n", "GET /a HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n"] {
            let connection = try server.connect()
            try connection.send(request)
            let (bytes, ending) = connection.readUntilClosed(within: 10)
            let text = String(decoding: bytes, as: UTF8.self)
            #expect(text.hasPrefix("HTTP/1.") && text.hasSuffix("\r\n\r\nshort"), "\(request): \(text)")
            #expect(ending == .closed, "\(request)")
        }
        let counter = try server.connect()
        try counter.send("GET /count HTTP/1.1\r\nHost: t\r\n\r\n")
        #expect(try counter.readResponse().bodyText == "2")
    }
}
