import Foundation
import Testing
import UnderstudyTesting

@testable import HTTPServer

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite struct ShutdownTests {
    @Test func inFlightRequestsFinishAndNewConnectionsAreRefused() async throws {
        let received = Locked(false)
        // Replies only once the shutdown has begun, so the reply is certainly in flight during it.
        let server = try TestServer.start(
            handler: ClosureHandler { _, responder in
                received.withLock { $0 = true }
                func replyWhenDraining() {
                    if responder.loop.isDraining {
                        responder.send(.text("finished"))
                    } else {
                        responder.loop.schedule(after: .milliseconds(10)) { replyWhenDraining() }
                    }
                }
                replyWhenDraining()
            }, configure: { $0.threads = 1 })
        let port = server.port
        let connection = try server.connect()
        try connection.send("GET /slow HTTP/1.1\r\nHost: t\r\n\r\n")
        try #require(await poll(until: { received.withLock { $0 } }))

        server.server.shutdown(gracePeriod: .seconds(5))
        let response = try connection.readResponse()
        #expect(response.bodyText == "finished")
        #expect(response.header("Connection") == "close")
        server.server.wait()
        #expect(throws: RawHTTPConnection.Failure.self) { try RawHTTPConnection(host: "127.0.0.1", port: port) }
    }

    @Test func theGracePeriodBoundsTheWait() async throws {
        let server = try TestServer.start(
            handler: ClosureHandler { _, responder in
                responder.loop.schedule(after: .seconds(60)) { responder.send(.text("too late")) }
            }, configure: { $0.threads = 1 })
        let connection = try server.connect()
        try connection.send("GET /never HTTP/1.1\r\nHost: t\r\n\r\n")
        try await Task.sleep(for: .milliseconds(100))
        let started = ContinuousClock.now
        server.server.shutdown(gracePeriod: .milliseconds(300))
        server.server.wait()
        #expect(ContinuousClock.now - started < .seconds(30))
    }
}
