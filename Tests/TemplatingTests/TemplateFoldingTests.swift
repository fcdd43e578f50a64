import Templating
import Testing

/// `Template.folding`: what a context always holds under some names, written into the template
/// as text, and member names found as Swift compares them.
@Suite struct TemplateFoldingTests {
    let constants = TemplateObject([("site", .string("A&B")), ("labels", .object(TemplateObject([("hi", .string("Hello"))])))])

    func context(_ members: [(key: String, value: TemplateValue)]) -> TemplateValue {
        .object(TemplateObject(constants.members + members))
    }

    @Test func aFoldedTemplateRendersWhatTheOriginalRenders() throws {
        let template = try Template(
            """
            {{site}}|{{{site}}}|{{labels.hi}}|{{labels.missing}}|{{#if on}}{{site}}{{else}}-{{/if}}|\
            {{#each items}}[{{site}} {{@root.site}} {{labels.hi}}]{{/each}}|{{#with item}}{{site}}{{/with}}|{{user}}
            """)
        let items: TemplateValue = .array([.object(TemplateObject([("site", .string("inner"))])), .object(TemplateObject([]))])
        let value = context([
            ("on", .bool(true)), ("items", items), ("item", .object(TemplateObject([("site", .string("w"))]))),
            ("user", .string("<u>")),
        ])
        let folded = template.folding(constants).render(value)
        #expect(folded == template.render(value))
        #expect(folded == "A&amp;B|A&B|Hello||A&amp;B|[inner A&amp;B Hello][A&amp;B A&amp;B Hello]|w|&lt;u&gt;")
    }

    @Test func onlyPathsReadFromTheRootAreFolded() throws {
        // Rendered over a context without the constants: what was folded still shows; a name
        // inside `#each` is left to the item, which may have its own.
        let template = try Template("{{site}}{{#if on}}+{{labels.hi}}{{/if}}{{#each items}}/{{site}}{{@root.labels.hi}}{{/each}}").folding(constants)
        let items: TemplateValue = .array([.object(TemplateObject([("site", .string("own"))])), .object(TemplateObject([]))])
        #expect(template.render(.object(TemplateObject([("on", .bool(true)), ("items", items)]))) == "A&amp;B+Hello/ownHello/Hello")
    }

    @Test func memberNamesAreComparedAsSwiftComparesThem() throws {
        // U+212A (Kelvin sign) is canonically equivalent to "K": found both ways, in small objects
        // and in large ones, as `==` finds it.
        for size in [0, 20, 70] {
            let filler = (0..<size).map { (key: "field\($0)", value: TemplateValue.number(Double($0))) }
            let kelvin = TemplateValue.object(TemplateObject(filler + [("\u{212A}", .string("kelvin"))]))
            #expect(try Template("{{K}}").render(kelvin) == "kelvin")
            let ascii = TemplateValue.object(TemplateObject(filler + [("K", .string("ascii"))]))
            #expect(try Template("{{[\u{212A}]}}").render(ascii) == "ascii")
            #expect(try Template("{{field3}}{{missing}}").render(ascii) == (size > 3 ? "3" : ""))
        }
    }
}
