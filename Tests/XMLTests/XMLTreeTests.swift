import Foundation
import Testing
import XML

@Suite struct XMLTreeTests {
    @Test func readsElementsAttributesAndText() throws {
        let tree = try XMLTree.parse(#"<a xmlns="urn:x" id="1"><b>one &amp; <![CDATA[two]]></b><!-- c --><b k='v'/></a>"#)
        #expect(tree.root.localName == "a")
        #expect(tree.root.namespaceURI == "urn:x")
        #expect(tree.root.attribute("id") == "1")
        let elements = tree.root.children.compactMap { if case .element(let e) = $0 { e } else { nil } }
        #expect(elements.map(\.localName) == ["b", "b"])
        #expect(elements[0].text == "one & two")
        #expect(elements[1].attribute("k") == "v")
    }

    @Test func evaluatesXPathWithDeclaredAndGivenPrefixes() throws {
        let tree = try XMLTree.parse(#"<p:a xmlns:p="urn:p"><p:b>1</p:b><p:b>2</p:b></p:a>"#)
        #expect(try tree.evaluate(xPath: "/p:a/p:b") == ["1", "2"])
        #expect(try tree.evaluate(xPath: "/q:a/q:b[2]", namespaces: ["q": "urn:p"]) == ["2"])
        #expect(try tree.evaluate(xPath: "count(//p:b)") == ["2"])
        #expect(try tree.evaluate(xPath: "//p:b = '2'") == ["true"])
        #expect(try tree.evaluate(xPath: "//p:b = '3'") == [])
        #expect(throws: XMLReadError.self) { try tree.evaluate(xPath: "/a[") }
        #expect(throws: XMLReadError.self) { try tree.evaluate(xPath: "/missing:a") }
    }

    @Test func refusesWhatIsNotWellFormedXML() {
        for body in ["", "   ", "hello", "{\"a\":1}", "<a>", "<a></b>", "<a/><b/>", "<a b='1' b='2'/>"] {
            #expect(throws: XMLReadError.self, "\(body)") { try XMLTree.parse(body) }
        }
        do {
            _ = try XMLTree.parse("<a>\n<b></a>")
            Issue.record("a mismatched end tag was accepted")
        } catch {
            #expect(error.line == 2)
            #expect(!error.message.isEmpty)
        }
    }

    /// The crash FoundationXML had: invalid UTF-8 in an attribute name.
    @Test func invalidUTF8IsAnErrorNotATrap() {
        #expect(throws: XMLReadError.self) { try XMLTree.parse(Array("<entry a".utf8) + [0xFF] + Array("=\"1\"/>".utf8)) }
        #expect(throws: XMLReadError.self) { try XMLTree.parse([0x3C, 0x61, 0x3E, 0xC3, 0x28, 0x3C, 0x2F, 0x61, 0x3E]) }
    }

    @Test func neverReadsFilesOrExpandsEntities() throws {
        let secret = FileManager.default.temporaryDirectory.appendingPathComponent("xxe-\(UUID().uuidString).txt")
        try "TOP-SECRET".write(to: secret, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: secret) }
        let attacks = [
            #"<?xml version="1.0"?><!DOCTYPE a [<!ENTITY x SYSTEM "file://\#(secret.path)">]><a>&x;</a>"#,
            #"<!DOCTYPE a [<!ENTITY % p SYSTEM "file://\#(secret.path)"> %p;]><a/>"#,
            #"<!DOCTYPE a [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]><a>&b;</a>"#,
        ]
        for attack in attacks {
            #expect(throws: XMLReadError.self) { try XMLTree.parse(attack) }
        }
        // An external DTD is neither loaded nor an error, and nothing of the file shows.
        let tree = try XMLTree.parse(#"<!DOCTYPE a SYSTEM "file://\#(secret.path)"><a>&amp;</a>"#)
        #expect(tree.root.text == "&")
        #expect(try tree.evaluate(xPath: "string(/)") == ["&"])
        // Undeclared entities are an error, not a lookup.
        #expect(throws: XMLReadError.self) { try XMLTree.parse("<a>&x;</a>") }
    }

    @Test func limitsSizeAndAttributesInLinearTime() {
        let many = "<a " + (0..<40_000).map { "a\($0)=\"1\"" }.joined(separator: " ") + "/>"
        #expect(throws: XMLReadError.self) { try XMLTree.parse(many) }
        let fine = "<a " + (0..<200).map { "a\($0)=\"x=y\"" }.joined(separator: " ") + "/>"
        #expect((try? XMLTree.parse(fine))?.root.attributes.count == 200)
        #expect(throws: XMLReadError.self) { try XMLTree.parse("<a>" + String(repeating: "x", count: 100) + "</a>", limits: XMLLimits(maxBytes: 64)) }
        let deep = String(repeating: "<d>", count: 5_000) + String(repeating: "</d>", count: 5_000)
        #expect(throws: XMLReadError.self) { try XMLTree.parse(deep) }
    }

    /// Text is characters already (a request body WireMock's matchers read as a Java `String`):
    /// its declaration's encoding is not applied to them again. Bytes follow their declaration.
    @Test func textIsReadAsItsCharactersBytesByTheirDeclaration() throws {
        #expect(try XMLTree.parse(#"<?xml version="1.0" encoding="windows-1252"?><a>café €</a>"#).root.text == "café €")
        #expect(try XMLTree.parse(#"<?xml version="1.0" encoding="ISO-8859-1"?><a>café</a>"#).root.text == "café")
        let bytes = Array(#"<?xml version="1.0" encoding="windows-1252"?><a>caf"#.utf8) + [0xE9, 0x20, 0x80] + Array("</a>".utf8)
        #expect(try XMLTree.parse(bytes).root.text == "café €")
    }

    @Test func refusesEncodingsWhoseMarkupCannotBeScreened() {
        let utf16 = [UInt8]([0xFF, 0xFE]) + Array("<a/>".utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] })
        #expect(throws: XMLReadError.self) { try XMLTree.parse(utf16) }
        #expect((try? XMLTree.parse(Array("\u{FEFF}<a>é</a>".utf8)))?.root.text == "é")
        #expect((try? XMLTree.parse(#"<?xml version="1.0" encoding="ISO-8859-1"?><a>"#.utf8 + [0xE9] + Array("</a>".utf8)))?.root.text == "é")
    }
}
