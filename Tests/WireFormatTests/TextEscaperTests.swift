import Testing
import WireFormat

@Suite struct TextEscaperTests {
    /// Every ASCII character the conventions treat differently, and text outside ASCII.
    static let sample = "a&b<c>d\"e'f`g=h\\i\r\n\t\u{01}\u{7F} é 日本"

    @Test func eachConventionWritesItsSystemsBytes() {
        let sample = Self.sample
        #expect(TextEscaper.xmlText.escaped(sample) == "a&amp;b&lt;c&gt;d\"e'f`g=h\\i&#13;\n\t\u{01}\u{7F} é 日本")
        #expect(TextEscaper.xmlAttribute.escaped(sample) == "a&amp;b&lt;c&gt;d&quot;e'f`g=h\\i&#13;\n\t\u{01}\u{7F} é 日本")
        #expect(TextEscaper.xmlMarkup.escaped(sample) == "a&amp;b&lt;c&gt;d\"e'f`g=h\\i\r\n\t\u{01}\u{7F} é 日本")
        #expect(TextEscaper.svgText.escaped(sample) == "a&amp;b&lt;c>d\"e'f`g=h\\i\r\n\t\u{01}\u{7F} é 日本")
        #expect(TextEscaper.html.escaped(sample) == "a&amp;b&lt;c&gt;d&quot;e&#39;f`g=h\\i\r\n\t\u{01}\u{7F} é 日本")
        #expect(TextEscaper.phpSpecialChars.escaped(sample) == "a&amp;b&lt;c&gt;d&quot;e'f`g=h\\i\r\n\t\u{01}\u{7F} é 日本")
        #expect(
            TextEscaper.handlebars.escaped(sample)
                == "a&amp;b&lt;c&gt;d&quot;e&#x27;f&#x60;g&#x3D;h\\i\r\n\t\u{01}\u{7F} é 日本")
        #expect(TextEscaper.json.escaped(sample) == "a&b<c>d\\\"e'f`g=h\\\\i\\r\\n\\t\\u0001\u{7F} é 日本")
        #expect(TextEscaper.jsonUnicodeControls.escaped(sample) == "a&b<c>d\\\"e'f`g=h\\\\i\\u000d\\u000a\\u0009\\u0001\u{7F} é 日本")
    }

    @Test func jsonWritesTheShortEscapesAndEveryOtherControlCharacterInHex() {
        let controls = String(String.UnicodeScalarView((0..<0x20).map { Unicode.Scalar(UInt8($0)) }))
        #expect(
            TextEscaper.json.escaped(controls) == "\\u0000\\u0001\\u0002\\u0003\\u0004\\u0005\\u0006\\u0007\\b\\t\\n\\u000b\\f\\r"
                + "\\u000e\\u000f\\u0010\\u0011\\u0012\\u0013\\u0014\\u0015\\u0016\\u0017\\u0018\\u0019\\u001a\\u001b\\u001c\\u001d\\u001e\\u001f")
        #expect(TextEscaper.jsonUnicodeControls.escaped("\u{08}\u{0C}\u{1F}") == "\\u0008\\u000c\\u001f")
    }

    @Test func textWithoutSpecialCharactersComesBackAsItIs() {
        let long = String(repeating: "plain text é ", count: 20)
        #expect(TextEscaper.handlebars.escaped(long) == long)
        #expect(TextEscaper.xmlText.escaped("") == "")
        #expect(!TextEscaper.xmlText.needsEscaping(long))
        #expect(TextEscaper.xmlText.needsEscaping(long + "&"))
    }

    @Test func everySinkGetsTheSameBytes() {
        let text = String(repeating: "long & <text> ", count: 10)  // not a small string
        for escaper in [TextEscaper.xmlText, .xmlAttribute, .handlebars, .json] {
            let expected = escaper.escaped(text)
            var string = "["
            escaper.append(text, to: &string)
            #expect(string == "[" + expected)
            var writer = ByteWriter(capacity: 8)
            escaper.append(text, to: &writer)
            #expect(writer.bytes == Array(expected.utf8))
            var bytes: [UInt8] = []
            for byte in text.utf8 { escaper.append(byte: byte, to: &bytes) }
            #expect(bytes == Array(expected.utf8))
        }
        #expect(TextEscaper.xmlText.replacement(for: UInt8(ascii: "\r"))?.description == "&#13;")
        #expect(TextEscaper.xmlText.replacement(for: UInt8(ascii: "\"")) == nil)
        #expect(TextEscaper.xmlText.replacement(for: 0xC3) == nil)
    }
}
