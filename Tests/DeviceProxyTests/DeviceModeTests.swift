import Foundation
import HTTPServer
import Testing
import UnderstudyTesting

@testable import DeviceProxy
@testable import MockCore

/// Device mode without TLS: which real hosts are answered and by what (hosts.json), what happens
/// to hosts it does not name, and CONNECT requests that are refused, over real sockets.
@Suite struct DeviceModeTests {
    static let hosts = #"""
        {
          "maps.googleapis.com": "geo",
          "www.ibm.com": {"/developerworks/mydeveloperworks": "lotus"},
          "*.example.com": "stubs"
        }
        """#

    /// Two emulators that say who they are, a catch-all "stub" tier, and device mode over `hosts`.
    func serve(_ hosts: String = Self.hosts, passThrough: Bool = false) throws -> (TestServer, DeviceMode, URL) {
        let root = try makeTemporaryDirectory(["hosts.json": hosts])
        let backends: [any Backend] = [
            ClosureBackend(name: "geo", mounts: ["/"]) { _ in .response(.text("geo")) },
            ClosureBackend(name: "lotus", mounts: ["/developerworks/mydeveloperworks", "/news"]) { _ in .response(.text("lotus")) },
            ClosureBackend(name: "stubs", mounts: ["/only-stubbed"], tier: .userStubs) { _ in .response(.text("stub")) },
        ]
        let deviceMode = DeviceMode(
            hostsFile: root.appendingPathComponent("hosts.json"), backends: ["geo", "lotus", "stubs"], passThrough: passThrough)
        return (try TestServer.start(backends: backends, deviceMode: deviceMode), deviceMode, root)
    }

    /// An absolute-form request, as a client sends to its proxy.
    func proxied(_ server: TestServer, _ url: String) throws -> RawHTTPConnection.Response {
        let connection = try server.connect()
        let host = URL(string: url)?.host ?? ""
        try connection.send("GET \(url) HTTP/1.1\r\nHost: \(host)\r\nProxy-Connection: keep-alive\r\n\r\n")
        return try connection.readResponse()
    }

    @Test func mappedHostsReachOnlyWhatTheyAreMappedTo() throws {
        let (server, _, root) = try serve()
        defer {
            server.stop()
            try? FileManager.default.removeItem(at: root)
        }
        #expect(try proxied(server, "http://maps.googleapis.com/maps/api/geocode/xml?address=94086").bodyText == "geo")
        // A path prefix: under it the named emulator, elsewhere none (the geo catch-all is not this host's).
        #expect(try proxied(server, "http://www.ibm.com/developerworks/mydeveloperworks/news/atom").bodyText == "lotus")
        let outside = try proxied(server, "http://www.ibm.com/news/atom")
        #expect(outside.status == 404)
        // Wildcards; stubs answer every mapped host.
        #expect(try proxied(server, "http://api.example.com/only-stubbed").bodyText == "stub")
        #expect(try proxied(server, "http://www.ibm.com/only-stubbed").bodyText == "stub")
        // *.example.com is for names under example.com: example.com itself is not mapped, so no
        // emulator answers it (HostConditionTests has what stubs do for such a host).
        #expect(try proxied(server, "http://example.com/anything").status == 502)
        // Host names are compared without case; direct requests route by path as always.
        #expect(try proxied(server, "http://MAPS.googleapis.com/x").bodyText == "geo")
        #expect(try server.connect().request("GET /news HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n").bodyText == "lotus")
    }

    @Test func hostsThatAreNotMappedGetAPageThatSaysHowToMapThem() throws {
        let (server, _, root) = try serve()
        defer {
            server.stop()
            try? FileManager.default.removeItem(at: root)
        }
        let offline = try proxied(server, "http://rally1.rallydev.com/slm/webservice/v2.0/defect")
        #expect(offline.status == 502)
        #expect(offline.bodyText.contains("does not answer for rally1.rallydev.com"))
        #expect(offline.bodyText.contains(#""rally1.rallydev.com": "stubs""#) && offline.bodyText.contains("--pass-through"))
        #expect(offline.bodyText.contains(#"(or "geo", "lotus", path prefixes"#), "the other backends this server runs, by name")
        #expect(
            offline.bodyText.contains("hosts.json of its stubs folder") && !offline.bodyText.contains(root.path),
            "the machine's paths are not shown to a device")
        #expect(server.router?.journal.entries.last?.backend == "proxy", "journaled as the proxy's answer")
    }

    @Test func connectIsRefusedWithTheReason() throws {
        let (server, _, root) = try serve()
        defer {
            server.stop()
            try? FileManager.default.removeItem(at: root)
        }
        for (target, status, reason) in [
            ("www.ibm.com", 400, "CONNECT needs host:port"),
            ("bad_host.com:443", 400, "CONNECT needs host:port"),
            (String(repeating: "a", count: 300) + ".com:443", 400, "CONNECT needs host:port"),
            ("www.ibm.com:0", 400, "CONNECT needs host:port"),
            ("10.1.2.3:443", 403, "names the address 10.1.2.3"),
            ("www.ibm.com:443", 501, "does not end TLS for tunnels"),
        ] {
            let connection = try server.connect()
            try connection.send("CONNECT \(target) HTTP/1.1\r\nHost: \(target)\r\n\r\n")
            let answer = try connection.readResponse()
            #expect(answer.status == status, "\(target)")
            #expect(answer.bodyText.contains(reason), "\(target): \(answer.bodyText)")
        }
        // Still serving.
        #expect(try proxied(server, "http://maps.googleapis.com/x").bodyText == "geo")
    }

    @Test func withoutDeviceModeConnectIsNotImplemented() throws {
        let server = try TestServer.start(backends: [])
        defer { server.stop() }
        let connection = try server.connect()
        try connection.send("CONNECT www.ibm.com:443 HTTP/1.1\r\nHost: www.ibm.com:443\r\n\r\n")
        #expect(try connection.readResponse().status == 501)
    }

    @Test func thePACFileSendsOnlyMappedHostsToTheProxy() throws {
        let (server, _, root) = try serve()
        defer {
            server.stop()
            try? FileManager.default.removeItem(at: root)
        }
        let router = try #require(server.router)
        let backends: [any Backend] = [DeviceModeAPI(deviceMode: try #require(router.deviceMode as? DeviceMode), scopes: router.scopes)]
        let pacServer = try TestServer.start(backends: backends)
        defer { pacServer.stop() }
        let pac = try pacServer.connect().request("GET /proxy.pac HTTP/1.1\r\nHost: 192.168.1.20:8080\r\n\r\n")
        #expect(pac.header("Content-Type") == "application/x-ns-proxy-autoconfig")
        #expect(pac.bodyText.contains(#"if (host == "maps.googleapis.com") return "PROXY 192.168.1.20:8080";"#))
        #expect(pac.bodyText.contains(#"if (dnsDomainIs(host, ".example.com")) return "PROXY 192.168.1.20:8080";"#))
        #expect(pac.bodyText.contains(#"return "DIRECT";"#))
        // A Host that is no host[:port] is not pasted into the script: the listener's own address is.
        let hostile = try pacServer.connect().request("GET /proxy.pac HTTP/1.1\r\nHost: 127.0.0.1:8080\"; alert(1); \"\r\n\r\n")
        #expect(!hostile.bodyText.contains("alert"))
        #expect(hostile.bodyText.contains(#"return "PROXY 127.0.0.1:\#(pacServer.port)";"#))
        // Without a CA, the certificate is not there, and says why.
        let ca = try pacServer.connect().request("GET /__admin/ca.pem HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        #expect(ca.status == 404 && ca.bodyText.contains("no local CA"))
    }

    @Test func aBadHostsFileIsReportedAndTheMapInUseStays() throws {
        let (server, deviceMode, root) = try serve()
        defer {
            server.stop()
            try? FileManager.default.removeItem(at: root)
        }
        let file = root.appendingPathComponent("hosts.json")
        for (text, problem) in [
            (#"{"maps.googleapis.com": "nope"}"#, "maps.googleapis.com: no backend 'nope' (there are: geo, lotus, stubs)"),
            (#"{"bad host": "geo"}"#, "bad host: not a host name"),
            (#"{"www.ibm.com": {"api": "geo"}}"#, "a path prefix starts with /"),
            (#"{"www.ibm.com": 3}"#, "must name a backend or map path prefixes"),
            ("{\n  \"a.com\": \"geo\",\n}", ":3:"),
        ] {
            try Data(text.utf8).write(to: file)
            let error = try #require(deviceMode.reload(), "\(text)")
            #expect(error.description.contains(problem), "\(error)")
        }
        #expect(try proxied(server, "http://maps.googleapis.com/x").bodyText == "geo", "the last good map stays")
        try Data(#"{"rally1.rallydev.com": "stubs"}"#.utf8).write(to: file)
        #expect(deviceMode.reload() == nil)
        #expect(try proxied(server, "http://maps.googleapis.com/x").status == 502)
    }

    /// A server makes device mode before its backends: hosts.json is read once their names are
    /// given, against them, and a reload before then reads nothing.
    @Test func hostsAreReadOnceTheBackendsAreNamed() throws {
        let root = try makeTemporaryDirectory(["hosts.json": Self.hosts])
        defer { try? FileManager.default.removeItem(at: root) }
        let deviceMode = DeviceMode(hostsFile: root.appendingPathComponent("hosts.json"), backends: nil)
        #expect(deviceMode.hostMap.isEmpty)
        #expect(deviceMode.reload() == nil)
        #expect(deviceMode.hostMap.isEmpty)
        deviceMode.readHosts(naming: ["geo", "lotus", "stubs"])
        #expect(deviceMode.hostMap.target(for: "maps.googleapis.com") != nil)
        #expect(deviceMode.hostMap.target(for: "api.example.com") != nil)
        // Read against the names given: a name no backend has is the file's problem.
        deviceMode.readHosts(naming: ["geo", "stubs"])
        let error = try #require(deviceMode.reload())
        #expect(error.description.contains("no backend 'lotus'"), "\(error)")
        #expect(deviceMode.hostMap.target(for: "maps.googleapis.com") != nil, "the last good map stays")
    }

    @Test func authoritiesAndHostNamesAreCheckedBeforeTheyAreTrusted() {
        #expect(HostName.of(authority: "WWW.IBM.com:443")! == ("www.ibm.com", 443))
        #expect(HostName.of(authority: "[::1]:8443")! == ("::1", 8443))
        #expect(HostName.of(authority: "127.0.0.1")! == ("127.0.0.1", nil))
        #expect(HostName.of(authority: "[FE80::1]")! == ("fe80::1", nil))
        #expect(HostName.of(authority: "a-b.example:1")! == ("a-b.example", 1))
        #expect(HostName.of(authority: "Example.COM:65535")! == ("example.com", 65535))
        for bad in [
            "", ":443", "a..b", "-a.com", "a-.com", "a_b.com", "[::1", "[nothost]:1", "a.com:70000", "a.com:x", "a b",
            "a.com:", "a.com:0", "a.com:+80", "a.com:123456", "[::1]x", "[::1]:", "éxample.com", "a.com.", ".a.com", "a.-b.com",
        ] {
            #expect(HostName.of(authority: Substring(bad)) == nil, "\(bad)")
        }
        for loopback in ["localhost", "LocalHost", "127.0.0.1", "127.1.2.3", "::1", "::ffff:127.0.0.1"] {
            #expect(HostName.isLoopback(loopback), "\(loopback)")
        }
        // Names are not judged by their spelling: DNS may point any of them anywhere.
        let spelt = ["app.localhost", "127.evil.test", "127.0.0.1.nip.io", "127.example"]
        for other in ["0.0.0.0", "10.0.0.1", "localhost.example", "::", "::ffff:10.0.0.1", "example.com"] + spelt {
            #expect(!HostName.isLoopback(other), "\(other)")
        }
        #expect(HostName.isValid(String(repeating: "a", count: 63) + ".com"))
        #expect(!HostName.isValid(String(repeating: "a", count: 64) + ".com"))
    }
}

extension RawHTTPConnection {
    /// Sends `text` and reads one response.
    func request(_ text: String) throws -> Response {
        try send(text)
        return try readResponse()
    }
}
