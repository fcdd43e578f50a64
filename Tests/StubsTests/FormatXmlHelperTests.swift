import Foundation
import Templating
import Testing

@testable import Stubs

/// WireMock 3's `formatXml`, with the cases of its FormatXmlHelperTest.java
/// (src/test/java/com/github/tomakehurst/wiremock/extension/responsetemplating/helpers/).
@Suite struct FormatXmlHelperTests {
    let helpers = ResponseTemplating.helpers(fixtures: BodyFiles(root: URL(fileURLWithPath: "/nonexistent"))).escapingHTML(false)

    func render(_ source: String) throws -> String {
        try Template(source, helpers: helpers).render(.object(TemplateObject([])))
    }

    let ragged = "\n<foo><bar\n    >wh</bar></foo\n    >\n"
    let pretty = "<foo>\n  <bar>wh</bar>\n</foo>\n"

    @Test func prettyByDefaultInABlockOrAVariable() throws {
        #expect(try render("{{#formatXml}}\(ragged){{/formatXml}}") == pretty)
        #expect(try render("{{#formatXml format='pretty'}}\(ragged){{/formatXml}}") == pretty)
        #expect(try render("{{~#assign 'someXml'~}}\(ragged){{/assign}}\n{{~formatXml someXml format='pretty'~}}") == pretty)
    }

    @Test func compact() throws {
        #expect(try render("{{#formatXml format='compact'}}\(ragged){{/formatXml}}") == "<foo><bar>wh</bar></foo>")
        #expect(try render("{{#formatXml format='compact'}}\(pretty){{/formatXml}}") == "<foo><bar>wh</bar></foo>")
    }

    @Test func theDeclarationGoesAndAttributesCommentsAndEmptyElementsStay() throws {
        let source = "<?xml version=\"1.0\"?><order id=\"7\" note=\"a &amp; &quot;b&quot;\"><!--x--><item/><qty>2 &lt; 3</qty></order>"
        #expect(
            try render("{{#formatXml}}\(source){{/formatXml}}")
                == "<order id=\"7\" note=\"a &amp; &quot;b&quot;\">\n  <!--x-->\n  <item/>\n  <qty>2 &lt; 3</qty>\n</order>\n")
        #expect(
            try render("{{#formatXml}}<s:e xmlns:s=\"urn:s\"><s:b>1</s:b></s:e>{{/formatXml}}")
                == "<s:e xmlns:s=\"urn:s\">\n  <s:b>1</s:b>\n</s:e>\n")
    }

    @Test func errorsInWireMocksWords() throws {
        #expect(try render("{{#formatXml}}<foo>Not well formed!</bar>{{/formatXml}}") == "[ERROR: Input is not valid XML]")
        #expect(
            try render("{{#formatXml format='traditional'}}<foo/>{{/formatXml}}")
                == "[ERROR: formatXml: format [traditional] should be one of [pretty, compact]]")
        #expect(try render("{{formatXml}}") == "[ERROR: formatXml should take a block of XML to format or a single parameter of type String]")
        #expect(
            try render("{{#formatXml format=1}}<foo/>{{/formatXml}}")
                == "[ERROR: formatXml: format [1] of type [java.lang.Integer should be a Format or a String and one of [pretty, compact]]]")
        #expect(
            try render("{{#formatXml}}<!DOCTYPE a [<!ENTITY x \"y\">]><a>&x;</a>{{/formatXml}}") == "[ERROR: Input is not valid XML]",
            "entity declarations are refused, as everywhere")
    }
}
