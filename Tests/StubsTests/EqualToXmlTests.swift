import Foundation
import HTTPServer
import JSON
import Testing

@testable import Stubs

/// `equalToXml` with the cases of WireMock 3.13's EqualToXmlPatternTest
/// (src/test/java/com/github/tomakehurst/wiremock/matching/EqualToXmlPatternTest.java).
@Suite struct EqualToXmlTests {
    func xml(_ expected: String, _ options: [(String, JSONValue)] = []) throws -> ContentPattern {
        try ContentPattern.parse(.object([("equalToXml", .string(expected))] + options), field: "bodyPatterns[0]")
    }

    @Test func siblingsOfDifferentNamesMatchInAnyOrder() throws {
        // returnsExactMatchWhenElementsAreInDifferentOrder
        #expect(try xml("<body><one/><two/><three/></body>").matches("<body><two/><three/><one/></body>"))
        #expect(try !xml("<body><one/><two/></body>").matches("<body><two/><two/></body>"))
        #expect(try !xml("<body><one/><two/></body>").matches("<body><one/><two/><three/></body>"))
    }

    @Test func ignoreOrderOfSameNode() throws {
        let ignoring: [(String, JSONValue)] = [("ignoreOrderOfSameNode", true)]
        // ignoreOrderOfSameNodeOnSameLevel / dontIgnoreOrderOfSameNodeOnSameLevel
        #expect(try xml("<body><entry>1</entry><entry>2</entry></body>", ignoring).matches("<body><entry>2</entry><entry>1</entry></body>"))
        #expect(try !xml("<body><entry>1</entry><entry>2</entry></body>").matches("<body><entry>2</entry><entry>1</entry></body>"))
        #expect(
            try !xml("<body><entry>1</entry><entry>2</entry></body>", [("ignoreOrderOfSameNode", false)])
                .matches("<body><entry>2</entry><entry>1</entry></body>"))
        // doesNotMatchWhenSameNodeOnSameLevelHasDifferentValues
        #expect(try !xml("<body><entry>1</entry><entry>3</entry></body>", ignoring).matches("<body><entry>2</entry><entry>1</entry></body>"))
        // matchesIfMultipleSameNodesOnSameLevelWithDifferentNodes
        #expect(
            try xml("<body><entry>1</entry><entry>2</entry><other>2</other></body>", ignoring)
                .matches("<body><entry>2</entry><entry>1</entry><other>2</other></body>"))
        // matchesIfTwoIdenticalChildNodesAreEmpty, matchesIfCommentsDiffer
        #expect(try xml("<body><entry/><entry/></body>", ignoring).matches("<body><entry/><entry/></body>"))
        #expect(
            try xml("<body><!-- Comment --><entry/><entry/></body>", ignoring).matches("<body><entry/><entry/><!-- A different comment --></body>"))
    }

    @Test func namespaceAwareness() throws {
        let unbound = "<tns:companyID>100</tns:companyID>"
        // legacyNamespaceAwarenessAllowsUnboundNamespacesOnElements, noNamespaceAwareness…, strictNamespaceAwarenessDoesNotAllow…
        #expect(try xml(unbound, [("namespaceAwareness", "LEGACY")]).matches(unbound))
        #expect(try xml(unbound, [("namespaceAwareness", "NONE")]).matches(unbound))
        #expect(throws: StubError.self) { try xml(unbound, [("namespaceAwareness", "STRICT")]) }

        // strictNamespaceAwarenessMatchesWhenElementNamespacePrefixesDiffer / noNamespaceAwarenessDoesNotMatch…
        let ns1 = #"<ns1:companyID xmlns:ns1="https://thing.com">100</ns1:companyID>"#
        let ns2 = #"<ns2:companyID xmlns:ns2="https://thing.com">100</ns2:companyID>"#
        #expect(try xml(ns1, [("namespaceAwareness", "STRICT")]).matches(ns2))
        #expect(try xml(ns1).matches(ns2), "no option: as STRICT")
        #expect(try !xml(ns1, [("namespaceAwareness", "NONE")]).matches(ns2))
        #expect(try xml(ns1, [("namespaceAwareness", "LEGACY")]).matches(ns2), "LEGACY drops element prefixes")

        // strictNamespaceAwarenessDoesNotMatchWhenElementNamespaceUrisDiffer
        let stuff = #"<ns1:companyID xmlns:ns1="https://stuff.com">100</ns1:companyID>"#
        #expect(try !xml(ns1, [("namespaceAwareness", "STRICT")]).matches(stuff))

        // defaultNamespaceUrisOfXmlnsAttributesAreCompared…
        for mode in ["STRICT", "LEGACY", "NONE"] {
            #expect(
                try !xml(#"<GetValue xmlns="http://thing.com"/>"#, [("namespaceAwareness", .string(mode))])
                    .matches(#"<GetValue xmlns="http://stuff.com"/>"#), "\(mode)")
        }

        // xmlnsNamespacedAttributesAreNotComparedWhenUsingStrict… / …AreComparedWhenUsingNoNamespaceAwareness
        let declaring = #"<GetValue xmlns:ns2="http://thing.com" xmlns:ns3="http://other.com">v</GetValue>"#
        let other = #"<GetValue xmlns:ns4="http://stuff.com">v</GetValue>"#
        #expect(try xml(declaring, [("namespaceAwareness", "STRICT")]).matches(other))
        #expect(try xml(declaring, [("namespaceAwareness", "LEGACY")]).matches(other))
        #expect(try !xml(declaring, [("namespaceAwareness", "NONE")]).matches(other))

        // LEGACY compares attributes by the names they are written with.
        #expect(
            try !xml(#"<thing xmlns:th="x" th:attr="abc">a</thing>"#, [("namespaceAwareness", "LEGACY")])
                .matches(#"<thing xmlns:st="x" st:attr="abc">a</thing>"#))
        #expect(
            try xml(#"<thing xmlns:th="x" th:attr="abc">a</thing>"#).matches(#"<thing xmlns:st="x" st:attr="abc">a</thing>"#),
            "STRICT: by namespace")
    }

    @Test func badOptionsAndOperandsAreRefusedWithTheFieldNamed() {
        for (json, field) in [
            (#"{"equalToXml": "<a/>", "namespaceAwareness": "LOOSE"}"#, "bodyPatterns[0].namespaceAwareness"),
            (#"{"equalToXml": "<a/>", "ignoreOrderOfSameNode": "yes"}"#, "bodyPatterns[0].ignoreOrderOfSameNode"),
            (#"{"equalToXml": "not xml"}"#, "bodyPatterns[0].equalToXml"),
        ] {
            do {
                _ = try ContentPattern.parse(try JSONValue.parse(json), field: "bodyPatterns[0]")
                Issue.record("\(json) was accepted")
            } catch {
                #expect((error as? StubError)?.field == field, "\(json): \(error)")
            }
        }
    }

    /// `--wiremock-version 2`: an `equalToXml` naming no awareness compares as 2.35 did (LEGACY:
    /// element prefixes dropped, so namespace URIs of prefixed elements do not count); 3 as STRICT.
    /// The mapping's JSON is left as it was sent.
    @Test func wireMock2ComparesAsLegacyWhenNoAwarenessIsNamed() throws {
        let mappingJSON: JSONValue = .object([
            (
                "request",
                .object([("bodyPatterns", .array([.object([("equalToXml", #"<ns1:companyID xmlns:ns1="https://thing.com">100</ns1:companyID>"#)])]))])
            ),
            ("response", .object([("status", 200)])),
        ])
        let other = Request(method: .post, target: "/", body: Array(#"<ns1:companyID xmlns:ns1="https://stuff.com">100</ns1:companyID>"#.utf8))
        func matches(_ version: WireMockVersion) throws -> (Bool, JSONValue) {
            let mapping = try StubMapping.parse(mappingJSON, in: StubDirectory(root: URL(fileURLWithPath: "/nonexistent"), wireMockVersion: version))
            return (mapping.request.evaluate(other).matched, mapping.json)
        }
        let (v2, v2JSON) = try matches(.v2)
        let (v3, _) = try matches(.v3)
        #expect(v2 && !v3)
        #expect(v2JSON["request"]?["bodyPatterns"]?.arrayValue?.first?["namespaceAwareness"] == nil)
    }
}
