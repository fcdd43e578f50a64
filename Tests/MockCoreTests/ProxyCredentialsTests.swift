import Foundation
import HTTPServer
import Testing
import UnderstudyTesting

@testable import MockCore

/// The proxy password: checked byte for byte in full, and never kept by the journal.
@Suite struct ProxyCredentialsTests {
    /// Through the proxy (absolute form), as a device's requests come.
    func request(proxyAuthorization: String?, authorization: String? = nil) -> Request {
        var request = Request(method: .get, target: "http://shop.example/door")
        if let proxyAuthorization { request.headers.add("Proxy-Authorization", proxyAuthorization) }
        if let authorization { request.headers.add("Authorization", authorization) }
        return request
    }

    func basic(_ text: String) -> String { "Basic " + Data(text.utf8).base64EncodedString() }

    @Test func thePasswordMustBeTheOneGivenWhateverItsLength() throws {
        let password = "pw-Kestrel-4471"
        #expect(try ProxyCredentials(of: request(proxyAuthorization: basic("ci-3:\(password)")), password: password).scope == "ci-3")
        for wrong in ["", "p", "pw-Kestrel-447", "pw-Kestrel-4472", "pw-Kestrel-44710", "Pw-Kestrel-4471", "pw-Kestrel-4471\0"] {
            #expect(throws: ProxyRefusal.self, "\(wrong)") {
                try ProxyCredentials(of: request(proxyAuthorization: basic("ci-3:\(wrong)")), password: password)
            }
        }
    }

    @Test func secretsCompareEveryByte() {
        #expect(ProxyCredentials.sameSecret("abc", "abc"))
        #expect(ProxyCredentials.sameSecret("", ""))
        #expect(!ProxyCredentials.sameSecret("abd", "abc"))
        #expect(!ProxyCredentials.sameSecret("ab", "abc"))
        #expect(!ProxyCredentials.sameSecret("abcd", "abc"))
        #expect(!ProxyCredentials.sameSecret("", "abc"))
        #expect(!ProxyCredentials.sameSecret("abc", ""))
        // A byte that is the complement of the expected one past `given`'s end must not pass for it.
        #expect(!ProxyCredentials.sameSecret("a", "a\u{0}"))
        #expect(ProxyCredentials.sameSecret("é✓", "é✓"))
        #expect(!ProxyCredentials.sameSecret("é", "e\u{301}"), "bytes, not characters")
    }

    /// Through the router, as every request is journaled (a request through the proxy, answered 404).
    @Test func theJournalKeepsTheSchemeAndUserButNotThePassword() async throws {
        let journal = RequestJournal()
        let tester = try BackendTester(backends: [], journal: journal)
        for (sent, kept) in [
            (basic("ci-3:pw-Kestrel-4471"), "Basic ci-3:[redacted]"),
            ("basic   " + Data("phone-a:x:y".utf8).base64EncodedString(), "basic phone-a:[redacted]"),
            (basic("bad name:pw-Kestrel-4471"), "Basic [redacted]"),
            ("Basic %%%pw-Kestrel-4471", "Basic [redacted]"),
            ("Bearer pw-Kestrel-4471", "Bearer [redacted]"),
            ("pw-Kestrel-4471", "[redacted]"),
        ] {
            _ = await tester.send(request(proxyAuthorization: sent, authorization: "Bearer app-token"))
            guard let entry = journal.entries.last else {
                Issue.record("nothing journaled")
                return
            }
            #expect(entry.request.headers.values(for: "Proxy-Authorization") == [kept], "\(sent)")
            #expect(entry.request.headers["Authorization"] == "Bearer app-token", "the app's own credentials are kept")
            #expect(entry.request.headers.fields.map(\.name) == ["Proxy-Authorization", "Authorization"], "in place")
        }
    }
}
