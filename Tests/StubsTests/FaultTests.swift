import Foundation
import MockCore
import Stubs
import Testing
import UnderstudyTesting

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// WireMock's faults and chunked dribble, observed on a raw socket as a client would see them.
@Suite struct FaultTests {
    func serve() throws -> (TestServer, URL) {
        func fault(_ name: String) -> String {
            #"{"request": {"urlPath": "/\#(name)"}, "response": {"fault": "\#(name)"}}"#
        }
        let root = try makeTemporaryDirectory([
            "mappings/empty.json": fault("EMPTY_RESPONSE"),
            "mappings/reset.json": fault("CONNECTION_RESET_BY_PEER"),
            "mappings/random.json": fault("RANDOM_DATA_THEN_CLOSE"),
            "mappings/malformed.json": fault("MALFORMED_RESPONSE_CHUNK"),
            "mappings/delayed.json":
                #"{"request": {"urlPath": "/delayed-reset"}, "response": {"fault": "CONNECTION_RESET_BY_PEER", "fixedDelayMilliseconds": 50}}"#,
            "mappings/dribble.json":
                #"{"request": {"urlPath": "/dribble"}, "response": {"body": "0123456789abcdefghij", "chunkedDribbleDelay": {"numberOfChunks": 4, "totalDuration": 200}}}"#,
            "mappings/ok.json": #"{"request": {"urlPath": "/ok"}, "response": {"body": "ok"}}"#,
        ])
        return (try TestServer.start(backends: [StubEngine(stubsDirectory: root)]), root)
    }

    func exchange(_ server: TestServer, _ path: String) throws -> (bytes: [UInt8], ending: RawHTTPConnection.Ending) {
        let connection = try server.connect()
        try connection.send("GET \(path) HTTP/1.1\r\nHost: test\r\n\r\n")
        return connection.readUntilClosed(within: 10)
    }

    @Test func eachFaultBreaksTheConnectionItsOwnWay() throws {
        let (server, root) = try serve()
        defer {
            server.stop()
            try? FileManager.default.removeItem(at: root)
        }

        let empty = try exchange(server, "/EMPTY_RESPONSE")
        #expect(empty.bytes.isEmpty && empty.ending == .closed)

        let reset = try exchange(server, "/CONNECTION_RESET_BY_PEER")
        #expect(reset.bytes.isEmpty && reset.ending == .reset)
        #expect(try exchange(server, "/delayed-reset").ending == .reset)

        let random = try exchange(server, "/RANDOM_DATA_THEN_CLOSE")
        #expect(random.bytes.count == 64 && random.ending == .closed)

        let malformed = try exchange(server, "/MALFORMED_RESPONSE_CHUNK")
        let text = String(decoding: malformed.bytes, as: UTF8.self)
        #expect(text.hasPrefix("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n") && text.contains("not a chunk size"))
        #expect(malformed.ending == .closed)

        // The server goes on serving, and URLSession reports the faults as network errors.
        let connection = try server.connect()
        try connection.send("GET /ok HTTP/1.1\r\nHost: test\r\n\r\n")
        #expect(try connection.readResponse().bodyText == "ok")
        #expect(server.router?.journal.entries.filter { $0.status == 0 }.count == 5, "faults are journaled with status 0")
    }

    @Test func urlSessionSeesFaultsAsErrors() async throws {
        let (server, root) = try serve()
        defer {
            server.stop()
            try? FileManager.default.removeItem(at: root)
        }
        for path in ["/EMPTY_RESPONSE", "/CONNECTION_RESET_BY_PEER", "/RANDOM_DATA_THEN_CLOSE"] {
            await #expect(throws: (any Error).self, "\(path)") { _ = try await server.send("GET", path) }
        }
    }

    @Test func dribbleSendsTheBodyInChunks() async throws {
        let (server, root) = try serve()
        defer {
            server.stop()
            try? FileManager.default.removeItem(at: root)
        }
        let connection = try server.connect()
        try connection.send("GET /dribble HTTP/1.1\r\nHost: test\r\nConnection: close\r\n\r\n")
        let raw = String(decoding: connection.readUntilClosed(within: 10).bytes, as: UTF8.self)
        #expect(raw.contains("Transfer-Encoding: chunked"))
        #expect(!raw.contains("Content-Length"))
        #expect(raw.hasSuffix("\r\n\r\n5\r\n01234\r\n5\r\n56789\r\n5\r\nabcde\r\n5\r\nfghij\r\n0\r\n\r\n"))
        let started = ContinuousClock.now
        let (body, response) = try await server.send("GET", "/dribble")
        #expect(response.statusCode == 200 && String(decoding: body, as: UTF8.self) == "0123456789abcdefghij")
        // Each of the 4 chunks waits its 50 ms, the first too, as WireMock's: the whole takes the total duration.
        #expect(ContinuousClock.now - started >= .milliseconds(200))
    }

    @Test func anUnknownFaultIsALoadError() throws {
        let root = try makeTemporaryDirectory(["mappings/f.json": #"{"request": {"url": "/f"}, "response": {"fault": "EXPLODE"}}"#])
        defer { try? FileManager.default.removeItem(at: root) }
        let errors = StubEngine(stubsDirectory: root).reloadFiles().map(\.description)
        #expect(errors.count == 1 && errors[0].contains("response.fault: expected one of EMPTY_RESPONSE, CONNECTION_RESET_BY_PEER"))
    }
}
