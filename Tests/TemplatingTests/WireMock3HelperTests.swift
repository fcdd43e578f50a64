import Foundation
import JSON
import Templating
import Testing

private func render(_ source: String, _ json: String = "{}") throws -> String {
    try Template(source).render(TemplateValue(JSONValue.parse(json)))
}

/// The helpers WireMock 3 added, with the cases of its own tests (WireMock's
/// src/test/java/com/github/tomakehurst/wiremock/extension/responsetemplating/helpers/
/// ArrayAddHelperTest.java, ArrayRemoveHelperTest.java and JsonMergeHelperTest.java), written as
/// templates: a list prints as WireMock prints a Java list.
@Suite struct WireMock3HelperTests {
    let list = #"{"list": ["one", "two"], "three": ["one", "two", "three"]}"#

    @Test func arrayAdd() throws {
        #expect(try render("{{arrayAdd list 'three'}}", list) == "[one, two, three]", "appends when no position is given")
        #expect(try render("{{arrayAdd list 'three' position='end'}}", list) == "[one, two, three]")
        #expect(try render("{{arrayAdd list 'three' position='start'}}", list) == "[three, one, two]")
        #expect(try render("{{arrayAdd list 'three' position=1}}", list) == "[one, three, two]", "an integer position")
        #expect(try render("{{arrayAdd list 'three' position='1'}}", list) == "[one, three, two]", "a position given as text")
        #expect(try render("{{{arrayAdd (array) 'three' position='abc'}}}") == "[ERROR: position must be 'start', 'end' or an integer]")
        #expect(try render("{{arrayAdd list}}", list) == "[ERROR: Missing required parameter: additional value to add to list]")
        #expect(try render("{{#each (arrayAdd list 'x')}}{{this}};{{/each}}", list) == "one;two;x;", "the result is a list")
        // ResponseTemplateTransformerTest (3.13): past either end of the list.
        for position in ["-2", "3"] {
            #expect(
                try render("{{{arrayAdd (array 1 'three') 2 position=\(position)}}}")
                    == "[ERROR: position must be greater than or equal to 0 and less than or equal to the size of the list]")
        }
        #expect(try render("{{arrayAdd (array 1 'three') 2 position=2}}") == "[1, three, 2]", "the size itself appends")
    }

    /// FormatJsonHelperTest (3.13), case by case.
    @Test func formatJson() throws {
        let compact = #"{"foo":true,"bar":{"baz":false}}"#
        let pretty = "{\n  \"foo\" : true,\n  \"bar\" : {\n    \"baz\" : false\n  }\n}"
        #expect(try render("{{#formatJson}} \(compact) {{/formatJson}}") == pretty, "pretty by default")
        #expect(try render("{{#formatJson format='pretty'}} \(compact) {{/formatJson}}") == pretty)
        #expect(try render("{{#formatJson format='compact'}} \(pretty) {{/formatJson}}") == compact)
        // `{{{…}}}`: WireMock 3 does not HTML-escape (this renderer does unless told).
        #expect(try render("{{~#assign 'someJson'~}} \(pretty) {{/assign}}{{{formatJson someJson format='compact'}}}") == compact, "a variable")
        #expect(
            try render("{{#formatJson format='foo'}} \(compact) {{/formatJson}}")
                == "[ERROR: formatJson: format [foo] should be one of [pretty, compact]]")
        #expect(
            try render(#"{{#formatJson format="compact"}} {"foo":true,} {{/formatJson}}"#)
                == "[ERROR: There was an error parsing the json. Please make sure the json is valid]")
        let nothing = "[ERROR: formatJson should take a block of JSON to format or a single parameter of type String]"
        for template in [
            "{{#formatJson}}{{/formatJson}}", "{{formatJson}}", "{{formatJson nullVariable}}", "{{#formatJson}}                  {{/formatJson}}",
        ] {
            #expect(try render(template) == nothing, "\(template)")
        }
        #expect(
            try render("{{#formatJson format=1}} \(pretty) {{/formatJson}}")
                == "[ERROR: formatJson: format [1] of type [java.lang.Integer should be a Format or a String and one of [pretty, compact]]]")
    }

    /// ToJsonHelperTest (3.13), and Jackson's default pretty printer on nested values.
    @Test func toJson() throws {
        #expect(try render("{{ toJson (array 1 2 3) }}") == "[ 1, 2, 3 ]")
        #expect(try render("{{ toJson null }}") == "")
        #expect(try render("{{{ toJson 'null' }}}") == #""null""#)
        #expect(try render("{{ toJson true }}") == "true")
        #expect(try render("{{ toJson 123 }}") == "123")
        #expect(try render("{{{ toJson v }}}", #"{"v": [1, [2, 3], []]}"#) == "[ 1, [ 2, 3 ], [ ] ]")
        #expect(
            try render("{{{ toJson v }}}", #"{"v": [{"a": 1}, {"b": [{"c": {}}]}]}"#)
                == "[ {\n  \"a\" : 1\n}, {\n  \"b\" : [ {\n    \"c\" : { }\n  } ]\n} ]")
    }

    @Test func arrayRemove() throws {
        #expect(try render("{{arrayRemove three}}", list) == "[one, two]", "the last item when no position is given")
        #expect(try render("{{arrayRemove three position='1'}}", list) == "[one, three]")
        #expect(try render("{{arrayRemove three position='start'}}", list) == "[two, three]")
        #expect(
            try render("{{{arrayRemove three position=7}}}", list)
                == "[ERROR: position must be greater than or equal to 0 and less than or equal to the size of the list]")
    }

    /// ResponseTemplateTransformerTest.joinWith… (WireMock 3.13); `{{{…}}}` where the case's output
    /// holds what HTML-escaping would change, as WireMock 3 does not escape.
    @Test func arrayJoin() throws {
        #expect(try render("{{arrayJoin ',' (array 'One' 'Two' 'Three')}}") == "One,Two,Three")
        #expect(try render("{{arrayJoin ',' 'One' 'Two' 'Three'}}") == "One,Two,Three", "the items listed")
        #expect(try render("{{arrayJoin ',' 1 2 3}}") == "1,2,3")
        #expect(try render("{{arrayJoin ',' (array )}}") == "")
        #expect(try render("{{arrayJoin ',' (array ) prefix='p..' suffix='..s'}}") == "", "no prefix or suffix around nothing")
        #expect(try render("{{arrayJoin (array 'One' 'Two' 'Three')}}") == "[ERROR: Separator parameter must be a String]")
        #expect(try render("{{arrayJoin ','}}") == "[ERROR: The parameter must be list]")
        #expect(try render(#"{{arrayJoin ',' "blablabla"}}"#) == "blablabla")
        #expect(try render(#"{{arrayJoin ',' (array 'One' 'Two' 'Three') prefix="p.." suffix="..s"}}"#) == "p..One,Two,Three..s")
        #expect(try render("{{arrayJoin ',' 1 2 3  prefix='p..'}}") == "p..1,2,3")
        #expect(try render("{{arrayJoin ',' 1 2 3  suffix='..s'}}") == "1,2,3..s")
        #expect(try render("{{arrayJoin (pickRandom ':') (array 'One' 'Two' 'Three')}}") == "One:Two:Three")
        #expect(try render("{{arrayJoin '*' (array 1 2 3)}}") == "1*2*3")
        #expect(try render("{{arrayJoin ' ' (array 'WireMock' 'Rocks')}}") == "WireMock Rocks")
        #expect(try render("{{arrayJoin '' (array 'WireMock' ' Rocks')}}") == "WireMock Rocks")
        #expect(try render(#"{{arrayJoin " - * - " (array 'One' 'Two' 'Three')}}"#) == "One - * - Two - * - Three")
        #expect(try render("{{val (array 1 2 3) assign='myVar'}}{{arrayJoin '*' myVar}}") == "1*2*3", "valHelper…")
        #expect(try render("{{arrayJoin ', ' list}}", list) == "one, two", "a list of the model")
    }

    /// ResponseTemplateTransformerTest.joinWithObjectBody: as a block, the body once per item.
    @Test func arrayJoinAsABlock() throws {
        let things = #"{"myThings": [{"id": 1, "name": "One"}, {"id": 2, "name": "Two"}, {"id": 3, "name": "Three"}]}"#
        let template = "[{{#arrayJoin ',' myThings as |item|}}{\n\"name{{item.id}}\": \"{{item.name}}\"\n}\n{{/arrayJoin}}]"
        #expect(try render(template, things) == "[{\n\"name1\": \"One\"\n}\n,{\n\"name2\": \"Two\"\n}\n,{\n\"name3\": \"Three\"\n}\n]")
        #expect(
            try render("{{#arrayJoin '; ' myThings prefix='<' suffix='>'}}{{name}}{{/arrayJoin}}", things) == "<One; Two; Three>",
            "each item is the context, prefix and suffix around")
        #expect(try render("{{#arrayJoin ',' (array)}}x{{/arrayJoin}}") == "")
        #expect(try render("{{#arrayJoin 1 myThings}}x{{/arrayJoin}}", things) == "[ERROR: Separator parameter must be a String]")
    }

    @Test func jsonMerge() throws {
        let cases: [(String, String, String)] = [
            (
                #"{ "id": 456, "name": "bob" }"#, #"{ "roles": [ "admin", "user" ], "dob": "2024-06-18" }"#,
                #"{"id":456,"name":"bob","roles":["admin","user"],"dob":"2024-06-18"}"#
            ),
            (
                #"{ "id": 456, "name": "bob", "roles": [ "viewer" ] }"#, #"{ "roles": [ "admin", "user" ], "dob": "2024-06-18" }"#,
                #"{"id":456,"name":"bob","roles":["admin","user"],"dob":"2024-06-18"}"#
            ),
            ("{}", #"{ "roles": [ "admin", "user" ], "dob": "2024-06-18" }"#, #"{"roles":["admin","user"],"dob":"2024-06-18"}"#),
            (#"{ "id": 456, "name": "bob" }"#, "{}", #"{"id":456,"name":"bob"}"#),
            (
                #"{ "id": 456, "name": "bob", "data": { "field": "value" } }"#, #"{ "data": [ 123, true ] }"#,
                #"{"id":456,"name":"bob","data":[123,true]}"#
            ),
        ]
        for (base, other, expected) in cases {
            let context = JSONValue.object([("base", .string(base)), ("other", .string(other))]).serialized
            #expect(try render("{{{jsonMerge base other}}}", context) == expected)
        }
        let nested = JSONValue.object([
            ("base", .string(#"{"id": 456, "data": {"nested": {"value": "old", "list": [true, 1], "kept": "k"}, "n": 456}}"#)),
            ("other", .string(#"{"data": {"nested": {"value": "new", "list": ["x"], "added": "a"}, "more": {"b": true}}}"#)),
        ]).serialized
        #expect(
            try render("{{{jsonMerge base other}}}", nested)
                == #"{"id":456,"data":{"nested":{"value":"new","list":["x"],"kept":"k","added":"a"},"n":456,"more":{"b":true}}}"#,
            "objects merge recursively")
        let block = JSONValue.object([("base", .string(#"{"id":456,"name":"bob","roles":["viewer"]}"#))]).serialized
        #expect(
            try render(#"{{#jsonMerge base}}{"data":[123, true]}{{/jsonMerge}}"#, block)
                == #"{"id":456,"name":"bob","roles":["viewer"],"data":[123,true]}"#, "the JSON to merge as a block")
        let nulls = JSONValue.object([
            (
                "base",
                .string(
                    #"{"simple1": 0.1, "simple2": 5, "list2": ["four"], "shallow": {"thing": "gone"}, "deep": {"nested1": "gone", "nested2": "here"}}"#
                )
            ),
            ("other", .string(#"{"simple2": null, "list2": null, "shallow": null, "deep": {"nested1": null, "nested2": "here"}}"#)),
        ]).serialized
        #expect(try render("{{{jsonMerge base other removeNulls=true}}}", nulls) == #"{"simple1":0.1,"deep":{"nested2":"here"}}"#)
    }

    @Test func jsonMergeErrors() throws {
        let object = #"{"id":321,"name":"sam"}"#
        func merge(_ base: JSONValue, _ other: JSONValue) throws -> String {
            try render("{{{jsonMerge base other}}}", JSONValue.object([("base", base), ("other", other)]).serialized)
        }
        for notAString: JSONValue in [.object([("id", 456)]), .bool(true), .null, .int(123)] {
            #expect(try merge(notAString, .string(object)) == "[ERROR: Base JSON parameter must be a string]")
            #expect(try merge(.string(object), notAString) == "[ERROR: JSON to merge must be a string]")
        }
        for invalid in ["invalid json", #"[ { "id": 456 }"#, "", " "] {
            #expect(try merge(.string(invalid), .string(object)) == "[ERROR: Base JSON is not valid JSON ('\(invalid)')]")
            #expect(try merge(.string(object), .string(invalid)) == "[ERROR: JSON to merge is not valid JSON ('\(invalid)')]")
        }
        for notAnObject in [#"[ { "id": 123, "name": "alice" } ]"#, #""name""#, "true", "null", "123"] {
            #expect(try merge(.string(notAnObject), .string(object)) == "[ERROR: Base JSON is not a JSON object ('\(notAnObject)')]")
            #expect(try merge(.string(object), .string(notAnObject)) == "[ERROR: JSON to merge is not a JSON object ('\(notAnObject)')]")
        }
    }
}
