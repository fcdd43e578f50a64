import Templating
import Testing

/// `Template.split(around:)`: a layout's halves around `{{{body}}}`, with the body written
/// between them by the caller, render what the whole renders with the body as text.
@Suite struct TemplateSplitTests {
    @Test func theHalvesAroundTheSlotRenderWhatTheWholeRenders() throws {
        let layout = try Template(
            "<title>{{title}}</title>{{#if wide}}<div class=\"{{kind}}\">{{/if}}<main>{{{body}}}</main>{{#unless wide}}.{{/unless}}")
        let body = "<p>caf\u{E9} & co</p>"
        for wide in [true, false] {
            let members: [(key: String, value: TemplateValue)] = [("title", .string("A<B")), ("wide", .bool(wide)), ("kind", .string("k"))]
            let (head, tail) = try #require(layout.split(around: "body"))
            let halves = head.render(.object(TemplateObject(members))) + body + tail.render(.object(TemplateObject(members)))
            #expect(halves == layout.render(.object(TemplateObject(members + [("body", .string(body))]))))
        }
    }

    @Test func aTemplateThatCouldReadTheSlotOtherwiseIsNotSplit() throws {
        for source in [
            "{{{body}}}{{body}}", "{{#if body}}{{{body}}}{{/if}}", "{{#if x}}{{{body}}}{{/if}}", "{{{body}}}{{#each this}}{{/each}}",
            "{{{body}}}{{@root.body}}", "{{{body}}}{{upper title}}", "{{{body}}}{{#with x}}{{../body}}{{/with}}", "{{body}}", "no slot",
        ] {
            #expect(try Template(source).split(around: "body") == nil, "\(source)")
        }
    }
}
