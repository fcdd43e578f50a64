import Foundation
import MockCore
import Testing
import UnderstudyTesting

@testable import Commerce

/// A command's `URL` parameter never sends the browser to another site, however it is spelled
/// (hostile-client audit: Logoff?URL=http://evil.example redirected anywhere).
@Suite struct RedirectTargetTests {
    static let servlet = CommerceTests.servlet
    static let base = CommerceTests.base

    /// The Location a request gets (the query as written).
    static func location(_ server: BackendTester, _ target: String, method: String = "GET", form: String? = nil) -> (Int, String?) {
        let headers = form == nil ? [] : [("Content-Type", "application/x-www-form-urlencoded")]
        let response = server.rawAndWait(method, target, headers: headers, body: form ?? "")
        return (response.status, response.header("Location"))
    }

    /// Each spelling of another site, as it appears in the query string.
    static let offSite = [
        "http://evil.example", "https://evil.example/path", "HTTP://evil.example", "//evil.example", "//evil.example/x?y=1",
        "/%5Cevil.example", "%5C/evil.example", "%5C%5Cevil.example", "http:evil.example", "http:/evil.example",
        "%2F%2Fevil.example", "http%3A%2F%2Fevil.example",
        "/%09/evil.example", "/%0A/evil.example", "/%0D%0A/evil.example", "%09//evil.example", "%20//evil.example",
        "%0D%0A//evil.example", "ht%09tp://evil.example", "h%0Attp://evil.example", "%00//evil.example",
        "javascript:alert(1)", "data:text/html,hi", "evil.example:80/x",
    ]

    @Test func logoffNeverRedirectsToAnotherSite() throws {
        let (server, _) = try CommerceTests.start()
        let home = Self.servlet + "StoreView?" + Self.base
        for spelling in Self.offSite + ["http://127.0.0.1:\(server.port)@evil.example/", "http://evil.example%23127.0.0.1:\(server.port)"] {
            let (status, location) = Self.location(server, Self.servlet + "Logoff?" + Self.base + "&URL=" + spelling)
            #expect(status == 302, "\(spelling)")
            #expect(location == home, "\(spelling)")
        }
    }

    @Test func otherCommandsFallBackToTheirOwnView() throws {
        let (server, _) = try CommerceTests.start()
        for spelling in ["//evil.example", "/%5Cevil.example", "http:evil.example", "/%09/evil.example"] {
            let (_, added) = Self.location(
                server, Self.servlet + "OrderChangeServiceItemAdd", method: "POST",
                form: "storeId=10152&catEntryId=12601&quantity=1&URL=" + spelling)
            #expect(added == Self.servlet + "mOrderItemDisplay?" + Self.base, "\(spelling)")
            let (_, signedIn) = Self.location(
                server, Self.servlet + "Logon", method: "POST",
                form: "storeId=10152&logonId=jane.doe%40example.com&logonPassword=passw0rd&URL=" + spelling)
            #expect(signedIn == Self.servlet + "mMyAccountDisplay?" + Self.base, "\(spelling)")
        }
    }

    @Test func targetsOnThisServerAreKept() throws {
        let (server, _) = try CommerceTests.start()
        let own = "http://127.0.0.1:\(server.port)/webapp/wcs/stores/servlet/mIndex?storeId=10152"
        for (spelling, expected) in [
            ("mOrderItemDisplay", Self.servlet + "mOrderItemDisplay?" + Self.base),
            ("/wcsstore/Madisons/x.html", "/wcsstore/Madisons/x.html"),
            (own.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? own, own),
            (own, own),
        ] {
            let (_, location) = Self.location(server, Self.servlet + "Logoff?" + Self.base + "&URL=" + spelling)
            #expect(location == expected, "\(spelling)")
        }
    }

    @Test func theCheckWithoutASocket() {
        let host = "shop.example:8080"
        #expect(RedirectTarget.allowed("https://SHOP.example:8080/x", host: host) == "https://SHOP.example:8080/x")
        #expect(RedirectTarget.allowed("https://shop.example/x", host: host) == nil)
        #expect(RedirectTarget.allowed("https://shop.example:8080.evil.example/", host: host) == nil)
        #expect(RedirectTarget.allowed("http://shop.example:8080/x", host: nil) == nil)
        #expect(RedirectTarget.allowed(" mIndex ", host: host) == "mIndex")
        #expect(RedirectTarget.allowed("mIndex?next=http://evil.example", host: host) == "mIndex?next=http://evil.example")
        #expect(RedirectTarget.allowed("\u{7F}//evil.example", host: host) == nil)
        #expect(RedirectTarget.allowed("", host: host) == nil)
    }
}
