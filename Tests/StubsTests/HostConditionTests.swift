import DeviceProxy
import Foundation
import HTTPServer
import JSON
import MockCore
import Testing
import UnderstudyTesting

@testable import Stubs

/// WireMock 3's `host`, `scheme` and `port` request fields, and what answers a device's request
/// for a host hosts.json does not map: only mappings that name that host.
@Suite struct HostConditionTests {
    @Test func mappingsForOneHostAnswerThatHostOnly() throws {
        let root = try makeTemporaryDirectory([
            "hosts.json": #"{"maps.googleapis.com": "stubs"}"#,
            "mappings/any.json": #"{"request": {"urlPath": "/x"}, "response": {"body": "any host"}}"#,
            "mappings/rally.json":
                #"{"priority": 1, "request": {"host": {"equalTo": "rally1.rallydev.com"}, "urlPath": "/x"}, "response": {"body": "rally"}}"#,
            "mappings/secure.json": #"{"priority": 1, "request": {"scheme": "https", "urlPath": "/only-secure"}, "response": {"body": "secure"}}"#,
            "mappings/port.json":
                #"{"priority": 1, "request": {"host": "Maps.GoogleAPIs.com", "port": 8080, "urlPath": "/x"}, "response": {"body": "maps on 8080"}}"#,
        ])
        defer { try? FileManager.default.removeItem(at: root) }
        let engine = StubEngine(stubsDirectory: root)
        let deviceMode = DeviceMode(hostsFile: root.appendingPathComponent("hosts.json"), backends: ["stubs"])
        let server = try TestServer.start(backends: [engine], deviceMode: deviceMode)
        defer { server.stop() }
        func get(_ target: String, host: String) throws -> (Int, String) {
            let connection = try server.connect()
            try connection.send("GET \(target) HTTP/1.1\r\nHost: \(host)\r\n\r\n")
            let answer = try connection.readResponse()
            return (answer.status, answer.bodyText)
        }
        // Through the proxy: the host's own mapping; a host hosts.json does not map gets only
        // mappings that name it, so the catch-all does not answer it.
        #expect(try get("http://rally1.rallydev.com/x", host: "rally1.rallydev.com") == (200, "rally"))
        #expect(try get("http://other.example/x", host: "other.example").0 == 502)
        // A mapped host: every mapping answers it; the port one only on its port (a string is equalTo, any case).
        #expect(try get("http://maps.googleapis.com/x", host: "maps.googleapis.com") == (200, "any host"))
        #expect(try get("http://maps.googleapis.com:8080/x", host: "maps.googleapis.com:8080") == (200, "maps on 8080"))
        // Direct: the catch-all; the https-only mapping does not answer plain HTTP.
        #expect(try get("/x", host: "127.0.0.1:\(server.port)") == (200, "any host"))
        #expect(try get("/only-secure", host: "127.0.0.1").0 == 404)
    }

    @Test func badHostConditionsAreRefusedWithTheField() throws {
        for (json, problem) in [
            (#"{"request": {"scheme": "ftp"}, "response": {}}"#, "request.scheme: expected \"http\" or \"https\""),
            (#"{"request": {"port": 70000}, "response": {}}"#, "request.port: expected a port number"),
            (#"{"request": {"host": {"nonsense": 1}}, "response": {}}"#, "request.host"),
        ] {
            let root = try makeTemporaryDirectory([:])
            defer { try? FileManager.default.removeItem(at: root) }
            #expect(throws: StubError.self, "\(json)") {
                _ = try StubMapping.parse(try JSONValue.parse(Array(json.utf8)), in: StubDirectory(root: root))
            }
            do {
                _ = try StubMapping.parse(try JSONValue.parse(Array(json.utf8)), in: StubDirectory(root: root))
            } catch {
                #expect("\(error)".contains(problem), "\(error)")
            }
        }
    }
}
