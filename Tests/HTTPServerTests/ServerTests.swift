import Foundation
import HTTPServer
import Testing
import UnderstudyTesting

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Echoes what the server decoded, one `name: value` line per fact.
let echo = ClosureHandler { request, responder in
    var lines = [
        "method: \(request.method.rawValue)", "path: \(request.path)", "remotePort: \(request.remotePort)",
        "localPort: \(request.localPort)", "remoteAddress: \(request.remoteAddress)",
    ]
    lines += request.queryItems.map { "query \($0.name): \($0.value ?? "<none>")" }
    lines += request.headers.map { "header \($0.name.lowercased()): \($0.value)" }
    lines.append("body: \(request.bodyText)")
    responder.send(.text(lines.joined(separator: "\n") + "\n"))
}

func lines(_ data: Data) -> [String] {
    String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
}

@Suite struct ServerTests {
    @Test func decodesWhatURLSessionSends() async throws {
        let server = try TestServer.start(handler: echo)
        defer { server.stop() }
        let (data, response) = try await server.send(
            "POST", "/orders/42?b=2&a=1&b=3", headers: ["X-Trace": "abc", "Content-Type": "text/plain"],
            body: Data("sql_stmt=select".utf8))
        #expect(response.statusCode == 200)
        #expect(response.value(forHTTPHeaderField: "Content-Type") == "text/plain; charset=utf-8")
        #expect(response.value(forHTTPHeaderField: "Date")?.hasSuffix(" GMT") == true)
        let echoed = lines(data)
        #expect(echoed.contains("method: POST"))
        #expect(echoed.contains("path: /orders/42"))
        #expect(echoed.filter { $0.hasPrefix("query ") } == ["query b: 2", "query a: 1", "query b: 3"])
        #expect(echoed.contains("header x-trace: abc"))
        #expect(echoed.contains("body: sql_stmt=select"))
        #expect(echoed.contains("remoteAddress: 127.0.0.1"))
        #expect(echoed.contains("localPort: \(server.port)"))
    }

    @Test func keepAliveReusesTheConnection() async throws {
        let server = try TestServer.start(handler: echo)
        defer { server.stop() }
        let first = lines(try await server.send("GET", "/one").body).first { $0.hasPrefix("remotePort") }
        let second = lines(try await server.send("GET", "/two").body).first { $0.hasPrefix("remotePort") }
        #expect(first != nil)
        #expect(first == second, "the second request should come over the first one's connection")
    }

    @Test func headIsAnsweredWithTheLengthButNoBody() throws {
        let server = try TestServer.start(
            handler: ClosureHandler { _, responder in
                responder.send(.text("twelve bytes"))
            })
        defer { server.stop() }
        let connection = try server.connect()
        try connection.send("HEAD /x HTTP/1.1\r\nHost: t\r\n\r\nGET /x HTTP/1.1\r\nHost: t\r\n\r\n")
        let head = try connection.readResponse(expectBody: false)
        #expect(head.status == 200)
        #expect(head.header("Content-Length") == "12")
        #expect(head.header("Date") != nil)
        // Had HEAD carried a body, these bytes would be read as the next status line.
        let get = try connection.readResponse()
        #expect(get.statusLine == "HTTP/1.1 200 OK")
        #expect(get.bodyText == "twelve bytes")
    }

    @Test func noBodyFor204And304() throws {
        let server = try TestServer.start(
            handler: ClosureHandler { request, responder in
                responder.send(Response(status: request.path == "/204" ? 204 : 304, body: ResponseBody("stray")))
            })
        defer { server.stop() }
        let connection = try server.connect()
        try connection.send("GET /204 HTTP/1.1\r\nHost: t\r\n\r\nGET /304 HTTP/1.1\r\nHost: t\r\n\r\n")
        #expect(try connection.readResponse(expectBody: false).status == 204)
        #expect(try connection.readResponse(expectBody: false).status == 304)
        #expect(connection.pendingBytes(waiting: 0.3).isEmpty)
    }

    @Test func pipelinedRequestsAreAnsweredInOrder() throws {
        let server = try TestServer.start(handler: echo)
        defer { server.stop() }
        let connection = try server.connect()
        try connection.send((1...3).map { "GET /\($0) HTTP/1.1\r\nHost: t\r\n\r\n" }.joined())
        for number in 1...3 {
            #expect(try connection.readResponse().bodyText.contains("path: /\(number)\n"))
        }
    }

    @Test func serverOwnsFraming() throws {
        let server = try TestServer.start(
            handler: ClosureHandler { _, responder in
                responder.send(
                    Response(
                        headers: ["Content-Length": "999", "Transfer-Encoding": "chunked", "X-Kept": "yes"],
                        body: ResponseBody("abc")))
            })
        defer { server.stop() }
        let connection = try server.connect()
        try connection.send("GET / HTTP/1.1\r\nHost: t\r\n\r\n")
        let response = try connection.readResponse()
        #expect(response.header("Content-Length") == "3")
        #expect(response.header("Transfer-Encoding") == nil)
        #expect(response.header("X-Kept") == "yes")
        #expect(response.bodyText == "abc")
    }

    @Test func customReasonPhraseAndExplicitDate() throws {
        let server = try TestServer.start(
            handler: ClosureHandler { _, responder in
                responder.send(Response(status: 418, reason: "Short And Stout", headers: ["Date": "Mon, 01 Jan 2001 00:00:00 GMT"]))
            })
        defer { server.stop() }
        let connection = try server.connect()
        try connection.send("GET / HTTP/1.1\r\nHost: t\r\n\r\n")
        let response = try connection.readResponse()
        #expect(response.statusLine == "HTTP/1.1 418 Short And Stout")
        #expect(response.headers.filter { $0.name == "Date" }.map(\.value) == ["Mon, 01 Jan 2001 00:00:00 GMT"])
    }

    @Test func aDelayedReplyDoesNotBlockItsLoop() async throws {
        // One worker, so both requests are on the same event loop. /slow waits on timers until the
        // client has received /fast: were waiting to block the loop, /fast could never be served.
        // (The client says so itself, so the order does not hang on how its tasks are scheduled.)
        let slowArrived = Locked(false)
        let fastReceived = Locked(false)
        let server = try TestServer.start(
            handler: ClosureHandler { request, responder in
                if request.path == "/slow" {
                    slowArrived.withLock { $0 = true }
                    func replyAfterFast() {
                        if fastReceived.withLock({ $0 }) {
                            responder.send(.text("slow"))
                        } else {
                            responder.loop.schedule(after: .milliseconds(10)) { replyAfterFast() }
                        }
                    }
                    replyAfterFast()
                } else {
                    responder.send(.text("fast"))
                }
            }, configure: { $0.threads = 1 })
        defer { server.stop() }
        // /slow is written on a connection of its own at once: a client task could wait for a
        // thread of its own for longer than the poll while a parallel suite keeps them busy.
        let slow = try server.connect()
        try slow.send("GET /slow HTTP/1.1\r\nHost: t\r\n\r\n")
        try #require(await poll(until: { slowArrived.withLock { $0 } }))
        let fast = try await server.send("GET", "/fast").body
        #expect(String(decoding: fast, as: UTF8.self) == "fast")
        fastReceived.withLock { $0 = true }
        #expect(try slow.readResponse().bodyText == "slow")
    }

    @Test func cancelledTimerNeverFires() async throws {
        let fired = Locked(false)
        let server = try TestServer.start(
            handler: ClosureHandler { _, responder in
                let timer = responder.loop.schedule(after: .milliseconds(50)) { fired.withLock { $0 = true } }
                timer.cancel()
                responder.loop.schedule(after: .milliseconds(150)) { responder.send(.text("done")) }
            }, configure: { $0.threads = 1 })
        defer { server.stop() }
        #expect(try await server.send("GET", "/").body == Data("done".utf8))
        #expect(fired.withLock { $0 } == false)
    }

    @Test func workCanBeHandedToALoopFromAnyThread() async throws {
        let server = try TestServer.start(handler: echo, configure: { $0.threads = 1 })
        defer { server.stop() }
        let loop = server.server.loops[0]
        let ran = await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            Thread.detachNewThread {
                if !loop.execute({ continuation.resume(returning: true) }) { continuation.resume(returning: false) }
            }
        }
        #expect(ran)
    }

    @Test func aResponderDroppedWithoutReplyingAnswers500() async throws {
        let server = try TestServer.start(handler: ClosureHandler { _, _ in })
        defer { server.stop() }
        let (body, response) = try await server.send("GET", "/")
        #expect(response.statusCode == 500)
        #expect(String(decoding: body, as: UTF8.self).contains("without replying"))
    }

    @Test func bothSocketLayoutsServeOnEveryWorker() async throws {
        for layout in [ServerConfiguration.SocketLayout.reusePort, .shared] {
            let server = try TestServer.start(
                handler: echo,
                configure: {
                    $0.socketLayout = layout
                    $0.threads = 3
                })
            defer { server.stop() }
            #expect(server.server.loops.count == 3)
            #expect(server.server.sharesOneSocket == (layout == .shared))
            for _ in 0..<4 {
                #expect(try await server.send("GET", "/layout").response.statusCode == 200)
            }
        }
    }

    @Test func listensOnIPv6Loopback() async throws {
        guard let server = try? TestServer.start(handler: echo, configure: { $0.host = "::1" }) else {
            return  // no IPv6 on this machine
        }
        defer { server.stop() }
        #expect(server.server.baseURL == "http://[::1]:\(server.port)")
        let connection = try server.connect()
        try connection.send("GET /six HTTP/1.1\r\nHost: t\r\n\r\n")
        let body = try connection.readResponse().bodyText
        #expect(body.contains("remoteAddress: ::1"))
    }

    @Test(arguments: [ServerConfiguration.SocketLayout.reusePort, .shared])
    func aTakenPortIsAClearError(layout: ServerConfiguration.SocketLayout) throws {
        // Another server (of this same user, with SO_REUSEPORT too) must not silently share the port.
        let first = try TestServer.start(handler: echo)
        defer { first.stop() }
        #expect {
            try HTTPServer.start(
                configuration: {
                    var configuration = ServerConfiguration()
                    configuration.port = first.port
                    configuration.socketLayout = layout
                    return configuration
                }(), handler: echo)
        } throws: { error in
            "\(error)".contains("cannot listen on 127.0.0.1 port \(first.port)")
        }
    }

    @Test func aLoopKnowsWhereThisMachineReachesTheServer() async throws {
        for (host, expected) in [("0.0.0.0", "127.0.0.1"), ("127.0.0.1", "127.0.0.1")] {
            let server = try TestServer.start(
                handler: ClosureHandler { _, responder in
                    responder.send(.text(responder.loop.localAuthority))
                }, configure: { $0.host = host })
            defer { server.stop() }
            let body = try await URLSession.shared.data(from: URL(string: "http://127.0.0.1:\(server.port)/")!).0
            #expect(String(decoding: body, as: UTF8.self) == "\(expected):\(server.port)", "\(host)")
        }
    }
}
