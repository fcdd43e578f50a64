import Foundation
import HTTPServer
import Testing
import UnderstudyTesting

/// The descriptor-table count behind the open-connections metric, over real sockets.
@Suite struct OpenConnectionsTests {
    @Test func countsTheClientsConnectedToEachListeningPort() throws {
        let server = try TestServer.start(handler: echo, configure: { $0.threads = 1 })
        defer { server.stop() }
        let port = UInt16(server.port)
        #expect(OpenConnections.byListeningPort()[port] == 0, "listening, no client yet")
        var clients: [RawHTTPConnection] = []
        for _ in 0..<3 {
            let client = try server.connect()
            try client.send("GET / HTTP/1.1\r\nHost: t\r\n\r\n")
            #expect(try client.readResponse().status == 200)  // accepted: the server holds its end
            clients.append(client)
        }
        #expect(OpenConnections.byListeningPort()[port] == 3, "the clients' own ends have ephemeral ports")
        clients.removeLast(2)
        // The server closes its end when its loop reads the hang-up: wait for that, within reason.
        for _ in 0..<600 where OpenConnections.byListeningPort()[port] != 1 { Thread.sleep(forTimeInterval: 0.05) }
        #expect(OpenConnections.byListeningPort()[port] == 1)
        server.stop()
        #expect(OpenConnections.byListeningPort()[port] == nil, "a closed listener is no longer reported")
    }
}
