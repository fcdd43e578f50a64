import DeviceProxy
import Foundation
import HTTPServer
import MockCore
import Testing
import UnderstudyTesting

@testable import Commerce

/// Sign-in and checkout go over TLS when the store can be reached that way, as on a real store:
/// through the device proxy (which ends TLS for the store's host), or on the https port.
@Suite struct SecurePagesTests {
    @Test func signInAndCheckoutLinkToTLSWhenThereIsAWayToIt() throws {
        let root = try makeTemporaryDirectory(["hosts.json": #"{"madisons.example.com": "commerce"}"#])
        defer { try? FileManager.default.removeItem(at: root) }
        let deviceMode = DeviceMode(hostsFile: root.appendingPathComponent("hosts.json"), backends: ["commerce"])
        let server = try TestServer.start(
            backends: [CommerceBackend(directory: CommerceTests.stubs.appendingPathComponent("commerce"))],
            deviceMode: deviceMode)
        defer { server.stop() }
        let view = "/webapp/wcs/stores/servlet/StoreView?storeId=10152&catalogId=10051&langId=-1"
        func logonLink(_ target: String, host: String) throws -> String? {
            let connection = try server.connect()
            try connection.send("GET \(target) HTTP/1.1\r\nHost: \(host)\r\n\r\n")
            let page = try connection.readResponse().bodyText
            guard let start = page.range(of: #"id="logonLink" href=""#), let end = page[start.upperBound...].firstIndex(of: "\"") else { return nil }
            return String(page[start.upperBound..<end])
        }
        // Nothing ends TLS yet: plain links.
        #expect(try logonLink(view, host: "127.0.0.1:\(server.port)")?.hasPrefix("/webapp/wcs/stores/servlet/MobileLogonForm?") == true)
        #expect(try logonLink("http://madisons.example.com" + view, host: "madisons.example.com")?.hasPrefix("/webapp/") == true)
        // Through the proxy, once it ends TLS for tunnels: the store's own host over https.
        deviceMode.intercept(onPort: 1)
        #expect(
            try logonLink("http://madisons.example.com" + view, host: "madisons.example.com")?
                .hasPrefix("https://madisons.example.com/webapp/wcs/stores/servlet/MobileLogonForm?") == true)
        #expect(try logonLink(view, host: "127.0.0.1:\(server.port)")?.hasPrefix("/webapp/") == true, "a direct request has no https port yet")
        // With an https port: direct requests link there, on the name they used.
        deviceMode.servesHTTPS(onPort: 8443)
        #expect(
            try logonLink(view, host: "127.0.0.1:\(server.port)")?.hasPrefix("https://127.0.0.1:8443/webapp/wcs/stores/servlet/MobileLogonForm?")
                == true)
        #expect(try logonLink(view, host: "localhost:\(server.port)")?.hasPrefix("https://localhost:8443/") == true)
    }
}
