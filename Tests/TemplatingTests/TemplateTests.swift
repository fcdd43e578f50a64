import Foundation
import MockCore
import Templating
import Testing

private func render(_ source: String, _ json: String = "{}") throws -> String {
    try Template(source).render(TemplateValue(JSONValue.parse(json)))
}

@Suite struct TemplateSyntaxTests {
    @Test func pathsEscapingAndRawOutput() throws {
        #expect(try render("Hello {{name}}!", #"{"name":"Ann"}"#) == "Hello Ann!")
        #expect(try render("{{a.b.[0]}}-{{a.[b].[1]}}", #"{"a":{"b":["x","y"]}}"#) == "x-y")
        #expect(try render("{{v}}|{{{v}}}|{{& v}}", #"{"v":"<a href='x'>&=</a>"}"#)
            == "&lt;a href&#x3D;&#x27;x&#x27;&gt;&amp;&#x3D;&lt;/a&gt;|<a href='x'>&=</a>|<a href='x'>&=</a>")
        #expect(try render("[{{missing.deep}}]") == "[]")
        #expect(try render(#"\{{literal}} {{!comment}}{{!-- a }} comment --}}done"#) == "{{literal}} done")
        #expect(try render("{{n}} {{f}} {{t}}", #"{"n":3,"f":2.5,"t":true}"#) == "3 2.5 true")
    }

    @Test func conditionalsWithElseIfAndInverse() throws {
        let template = "{{#if a}}A{{else if b}}B{{else}}C{{/if}}"
        #expect(try render(template, #"{"a":1}"#) == "A")
        #expect(try render(template, #"{"b":"x"}"#) == "B")
        #expect(try render(template, #"{"a":0,"b":""}"#) == "C")
        #expect(try render("{{#unless a}}none{{/unless}}{{^a}}empty{{/a}}", #"{"a":[]}"#) == "noneempty")
        #expect(try render("{{#eq x 'on'}}yes{{else}}no{{/eq}}", #"{"x":"on"}"#) == "yes")
        #expect(try render("{{#if (gt n 2)}}big{{/if}}", #"{"n":"10"}"#) == "big")
    }

    @Test func loopsWithDataVariablesAndParentContext() throws {
        let json = #"{"title":"T","items":[{"n":"a"},{"n":"b"},{"n":"c"}]}"#
        #expect(try render("{{#each items}}{{@index}}:{{n}}{{#unless @last}},{{/unless}}{{/each}}", json) == "0:a,1:b,2:c")
        #expect(try render("{{#each items}}{{../title}}{{title}}{{this.n}}{{/each}}", json) == "TTaTTbTTc")
        #expect(try render("{{#each o}}{{@key}}={{this}};{{/each}}", #"{"o":{"x":1,"y":2}}"#) == "x=1;y=2;")
        #expect(try render("{{#each none}}x{{else}}empty{{/each}}") == "empty")
        #expect(try render("{{#with p}}{{name}} ({{@root.site}}){{/with}}", #"{"p":{"name":"N"},"site":"S"}"#) == "N (S)")
        #expect(try render("{{#each (range 1 3)}}{{this}}{{/each}}") == "123")
    }

    @Test func standaloneBlockTagsLeaveNoBlankLines() throws {
        let template = "<ul>\n  {{#each items}}\n  <li>{{this}}</li>\n  {{/each}}\n</ul>\n"
        #expect(try render(template, #"{"items":[1,2]}"#) == "<ul>\n  <li>1</li>\n  <li>2</li>\n</ul>\n")
        #expect(try render("a  {{~x~}}  \n b", #"{"x":"-"}"#) == "a-b")
    }

    @Test func errorsNameLineAndColumn() {
        #expect(throws: TemplateError(line: 2, column: 3, message: "unknown helper 'nope'")) { try Template("x\n  {{nope 1}}") }
        #expect(throws: TemplateError(line: 1, column: 1, message: "{{#if}} is never closed")) { try Template("{{#if a}}x") }
        #expect(throws: TemplateError(line: 1, column: 10, message: "{{/each}} closes {{#if}} (opened at line 1)")) {
            try Template("{{#if a}}{{/each}}")
        }
        #expect(throws: TemplateError(line: 1, column: 3, message: "'{{' is never closed")) { try Template("ab{{x") }
        #expect(throws: TemplateError.self) { try Template("{{> partial}}") }
    }

    @Test func aHelperErrorPrintsInPlace() throws {
        #expect(try render("a{{math 1 '?' 2}}b") == "a[ERROR: math: unknown operator '?' (+ - * / %)]b")
    }
}

@Suite struct StandardHelperTests {
    @Test func mathAndNumbers() throws {
        #expect(try render("{{math 1 '+' 2}} {{math 10 '/' 4}} {{math n '*' 3}} {{math 7 '%' 4}}", #"{"n":"5"}"#) == "3 2.5 15 3")
        #expect(try render("{{size (array 1 2 3)}} {{size 'abcd'}} {{join ',' (array 'a' 'b')}}") == "3 4 a,b")
    }

    @Test func textHelpers() throws {
        #expect(try render("{{upper 'ab'}}{{lower 'CD'}} {{capitalize 'hello world'}} [{{trim '  x '}}]") == "ABcd Hello World [x]")
        #expect(try render("{{replace 'a-b-c' '-' '+'}} {{substring 'abcdef' 1 3}} {{defaultIfEmpty '' 'dflt'}}") == "a+b+c bc dflt")
        #expect(try render("{{base64 'hi there'}} {{base64 'aGk=' decode=true}} {{urlEncode 'a b&c'}} {{urlEncode 'a+b%26c' decode=true}}")
            == "aGkgdGhlcmU&#x3D; hi a+b%26c a b&amp;c")
        #expect(try render("{{regexExtract 'order 1234 ok' '[0-9]+'}} {{#matches 'abc' '[a-c]+'}}m{{/matches}}") == "1234 m")
        #expect(try render("{{#contains (array 'x' 'y') 'y'}}in{{/contains}}{{#contains 'team' 'ea'}}!{{/contains}}") == "in!")
        #expect(try render("{{val missing or='fallback'}}") == "fallback")
    }

    @Test func json() throws {
        #expect(try render("{{#with (parseJson text)}}{{a.b.[1]}}{{/with}}", #"{"text":"{\"a\":{\"b\":[1,2]}}"}"#) == "2")
        #expect(try render("{{{toJson o}}}", #"{"o":{"k":[1,"x"]}}"#) == #"{"k":[1,"x"]}"#)
        #expect(try render("{{{formatJson o}}}", #"{"o":{"k":[1,2]}}"#) == "{\n  \"k\" : [ 1, 2 ]\n}")
        #expect(try render("{{parseJson 'nope'}}").hasPrefix("[ERROR: parseJson:"))
    }

    @Test func dates() throws {
        #expect(try render("{{date (parseDate '2024-02-28T10:00:00Z') offset='2 days' format='yyyy-MM-dd'}}") == "2024-03-01")
        #expect(try render("{{date (parseDate '01/02/2023' format='dd/MM/yyyy') format='epoch'}}") == "1675209600000")
        #expect(try render("{{date (parseDate '2024-01-01T00:00:00Z') timezone='Asia/Tokyo' format='HH:mm'}}") == "09:00")
        let now = try render("{{now}}")
        let parsed = try #require(ISO8601DateFormatter().date(from: now))
        #expect(abs(parsed.timeIntervalSinceNow) < 120)
        let tomorrow = try #require(Double(render("{{now offset='1 days' format='unix'}}")))
        #expect(abs(tomorrow - Date().timeIntervalSince1970 - 86_400) < 120)
        #expect(try render("{{now offset='3 fortnights'}}").hasPrefix("[ERROR: offset unit"))
    }

    @Test func randomValues() throws {
        let value = try render("{{randomValue length=12 type='NUMERIC'}}")
        #expect(value.count == 12 && value.allSatisfy(\.isNumber))
        #expect(try render("{{randomValue length=8 type='ALPHABETIC' uppercase=true}}").allSatisfy(\.isUppercase))
        #expect(UUID(uuidString: try render("{{randomValue type='UUID'}}")) != nil)
        #expect(try render("{{randomValue length=20}}") != render("{{randomValue length=20}}"))
        let picked = try render("{{pickRandom 'a' 'b' 'c'}}")
        #expect(["a", "b", "c"].contains(picked))
        let number = try #require(Int(render("{{randomInt lower=5 upper=7}}")))
        #expect((5...7).contains(number))
    }

    @Test func listOrSingleValuesAndCaseInsensitiveObjects() {
        let query = TemplateObject([("id", .object(.listOrSingle(["1", "2"])))])
        let headers = TemplateObject([("Content-Type", .string("text/plain"))], caseInsensitive: true)
        let context = TemplateValue.object(TemplateObject([("query", .object(query)), ("headers", .object(headers))]))
        let template = try! Template("{{query.id}} {{query.id.[1]}} {{size query.id}} {{#each query.id}}<{{this}}>{{/each}} {{headers.content-type}}")
        #expect(template.render(context) == "1 2 2 <1><2> text/plain")
    }
}
