import Templating
import Testing

/// A template that is one value (`{{message.body}}`) renders without a renderer: it gives what the
/// renderer gives for the same value inside other text, for every kind of value and escaping.
@Suite struct TemplateSingleValueTests {
    let context = TemplateValue.object(
        TemplateObject([
            ("text", .string("<a href=\"x\">Tom & 'Jerry'</a>")), ("number", .number(2.5)), ("whole", .number(3)),
            ("flag", .bool(true)), ("nothing", .null), ("list", .array([.string("a"), .number(1)])),
            ("query", .object(TemplateObject.listOrSingle(["first", "second"]))),
            ("message", .object(TemplateObject([("body", .string("hi <b>"))]))),
            ("nested", .object(TemplateObject((0..<10).map { (key: "k\($0)", value: TemplateValue.string("v\($0)")) }))),
        ]))

    @Test(arguments: [
        "text", "number", "whole", "flag", "nothing", "missing", "list", "query", "query.[1]", "message.body", "message",
        "nested.k7", "nested", "this", ".", "list.[0]", "missing.deeper",
    ])
    func oneValueRendersAsTheRendererWouldInsideText(path: String) throws {
        for (open, close) in [("{{", "}}"), ("{{{", "}}}")] {
            let alone = try Template(open + path + close).render(context)
            let inside = try Template("[" + open + path + close + "]").render(context)
            #expect("[" + alone + "]" == inside, "\(open)\(path)\(close)")
        }
    }

    @Test func aCallerMayAnswerTheValueWithNoContext() throws {
        let body: ([String]) -> TemplateValue? = { $0 == ["message", "body"] ? .string("a<b") : nil }
        #expect(try Template("{{message.body}}").renderedValue(body) == "a&lt;b")
        #expect(try Template("{{{message.body}}}").renderedValue(body) == "a<b")
        #expect(try Template("{{message.other}}").renderedValue(body) == nil, "a value the caller does not know")
        #expect(try Template("echo: {{message.body}}").renderedValue(body) == nil, "more than one value")
        #expect(try Template("{{upper message.body}}").renderedValue(body) == nil, "a helper call")
    }
}
