import Foundation
import JSON
import Templating
import Testing

@testable import Stubs

/// WireMock 3's `jsonRemove` and `jsonArrayAdd`, with the cases of its JsonRemoveHelperTest.java
/// and JsonArrayAddHelperTest.java (src/test/java/com/github/tomakehurst/wiremock/extension/
/// responsetemplating/helpers/), rendered unescaped as those tests render them.
@Suite struct JSONHelperTests {
    let helpers = ResponseTemplating.helpers(fixtures: BodyFiles(root: URL(fileURLWithPath: "/nonexistent")))

    func render(_ source: String, _ values: [String: JSONValue]) throws -> String {
        let context = TemplateValue.object(TemplateObject(values.map { ($0.key, TemplateValue($0.value)) }))
        return try Template(source, helpers: helpers).render(context)
    }

    @Test func jsonRemoveDeletesWhatThePathSelects() throws {
        let people = #"[{"id":456,"name":"bob"},{"id":123,"name":"alice"},{"id":321,"name":"sam"}]"#
        let cases: [(String, String, String)] = [
            (people, "$.[?(@.id == 123)]", #"[{"id":456,"name":"bob"},{"id":321,"name":"sam"}]"#),
            (#"[{"id":456,"name":"bob"},{"id":123,"name":"alice"},{"id":123,"name":"sam"}]"#, "$[?(@.id == 123)]", #"[{"id":456,"name":"bob"}]"#),
            (people, "$.[?(@.id == 123)].name", #"[{"id":456,"name":"bob"},{"id":123},{"id":321,"name":"sam"}]"#),
            (#"{"id":456,"name":"bob"}"#, "$.name", #"{"id":456}"#),
            (
                #"[{"id":456,"name":"bob","roles":["admin","user"]},{"id":123,"name":"alice","roles":["admin","user"]}]"#,
                #"$.[?(@.name == "alice")].roles[?(@ == "admin")]"#,
                #"[{"id":456,"name":"bob","roles":["admin","user"]},{"id":123,"name":"alice","roles":["user"]}]"#
            ),
        ]
        for (input, path, expected) in cases {
            #expect(try render("{{{jsonRemove input '\(path)'}}}", ["input": .string(input)]) == expected, "\(path)")
        }
        // Nothing selected: the input as it was.
        for (input, path) in [
            (#"[{"id":456,"name":"bob"},{"id":123,"name":"alice"}]"#, "$.[?(@.id == 321)]"),
            (#"[{"id":456}]"#, "$.name"), (#"{"id":456}"#, "$.name"), ("true", "$.name"), ("null", "$.name"), ("123", "$.name"),
        ] {
            #expect(try render("{{{jsonRemove input '\(path)'}}}", ["input": .string(input)]) == input)
        }
    }

    @Test func jsonRemoveErrorsAsWireMocksDo() throws {
        let bob: JSONValue = .string(#"{"id":123,"name":"bob"}"#)
        for bad in ["invalid json", #"[ { "id": 456 } "#, "", " "] {
            #expect(
                try render("{{{jsonRemove input '$.name'}}}", ["input": .string(bad)]) == "[ERROR: Input JSON string is not valid JSON ('\(bad)')]")
        }
        for notString: JSONValue in [.object([("id", 456)]), .bool(true), .null, .int(123)] {
            #expect(try render("{{{jsonRemove input '$.name'}}}", ["input": notString]) == "[ERROR: Input JSON must be a string]")
        }
        for path in ["$name", "not json path", "", " "] {
            #expect(
                try render("{{{jsonRemove input '\(path)'}}}", ["input": bob])
                    == "[ERROR: JSONPath parameter is not a valid JSONPath expression ('\(path)')]")
        }
        #expect(try render("{{{jsonRemove input path}}}", ["input": bob, "path": .int(123)]) == "[ERROR: JSONPath parameter must be a string]")
        #expect(
            try render("{{{jsonRemove input '$'}}}", ["input": bob]) == "[ERROR: Delete operation cannot be applied to JSONPath expression ('$')]")
        #expect(try render("{{{jsonRemove input}}}", ["input": bob]) == "[ERROR: A single JSONPath expression parameter must be supplied]")
        #expect(
            try render("{{{jsonRemove input '$.name' '$.name'}}}", ["input": bob])
                == "[ERROR: A single JSONPath expression parameter must be supplied]")
    }

    @Test func jsonArrayAddAddsFlattensAndLimits() throws {
        let two = #"[{"id":456,"name":"bob"},{"id":123,"name":"alice"}]"#
        let sam = #"{"id":321,"name":"sam"}"#
        #expect(
            try render("{{{jsonArrayAdd array item}}}", ["array": .string(two), "item": .string(sam)])
                == #"[{"id":456,"name":"bob"},{"id":123,"name":"alice"},{"id":321,"name":"sam"}]"#)
        for (item, tail) in [(#""name""#, #""name""#), ("true", "true"), ("null", "null"), ("123", "123")] {
            #expect(
                try render("{{{jsonArrayAdd array item}}}", ["array": .string(two), "item": .string(item)])
                    == #"[{"id":456,"name":"bob"},{"id":123,"name":"alice"},"# + tail + "]")
        }
        let pair = #"[{"id":321,"name":"sam"},{"id":666,"name":"jason"}]"#
        #expect(
            try render("{{{jsonArrayAdd array item}}}", ["array": .string(two), "item": .string(pair)])
                == #"[{"id":456,"name":"bob"},{"id":123,"name":"alice"},"# + pair + "]", "an array is one item")
        #expect(
            try render("{{{jsonArrayAdd array item flatten=true}}}", ["array": .string(two), "item": .string(pair)])
                == #"[{"id":456,"name":"bob"},{"id":123,"name":"alice"},{"id":321,"name":"sam"},{"id":666,"name":"jason"}]"#)
        #expect(try render("{{{jsonArrayAdd array item flatten=true}}}", ["array": .string("[]"), "item": .string("[null]")]) == "[null]")
        #expect(
            try render("{{{jsonArrayAdd array item flatten=true maxItems=3}}}", ["array": .string(two), "item": .string(pair)])
                == #"[{"id":123,"name":"alice"},{"id":321,"name":"sam"},{"id":666,"name":"jason"}]"#, "the last three kept")
        #expect(try render("{{{jsonArrayAdd array item maxItems=0}}}", ["array": .string(#"[{"id":456}]"#), "item": .string(sam)]) == "[]")
        #expect(
            try render("{{#jsonArrayAdd array flatten=true}}\(pair){{/jsonArrayAdd}}", ["array": .string(two)])
                == #"[{"id":456,"name":"bob"},{"id":123,"name":"alice"},{"id":321,"name":"sam"},{"id":666,"name":"jason"}]"#, "the item as the block")
        #expect(
            try render("{{{jsonArrayAdd doc item jsonPath='$.people'}}}", ["doc": .string(#"{"people":[1],"n":2}"#), "item": .string("2")])
                == #"{"people":[1,2],"n":2}"#)
    }

    @Test func jsonArrayAddErrorsAsWireMocksDo() throws {
        let two: JSONValue = .string(#"[{"id":456,"name":"bob"},{"id":123,"name":"alice"}]"#)
        let sam: JSONValue = .string(#"{"id":321,"name":"sam"}"#)
        for notString: JSONValue in [.object([("id", 456)]), .bool(true), .null, .int(123)] {
            #expect(try render("{{{jsonArrayAdd array item}}}", ["array": notString, "item": sam]) == "[ERROR: Base JSON must be a string]")
            #expect(try render("{{{jsonArrayAdd array item}}}", ["array": two, "item": notString]) == "[ERROR: Item-to-add JSON must be a string]")
        }
        for bad in ["invalid json", #"[{"id":456}"#, "", " ", "null"] {
            #expect(
                try render("{{{jsonArrayAdd array item}}}", ["array": .string(bad), "item": sam]) == "[ERROR: Base JSON is not valid JSON ('\(bad)')]"
            )
        }
        for notArray in [#"{"id":456,"name":"bob"}"#, #""name""#, "true", "123"] {
            #expect(
                try render("{{{jsonArrayAdd array item}}}", ["array": .string(notArray), "item": sam])
                    == "[ERROR: Target JSON is not a JSON array ('\(notArray)')]")
        }
        for bad in ["invalid json", #"[ { "id": 456 }"#, "", " "] {
            #expect(
                try render("{{{jsonArrayAdd array item}}}", ["array": two, "item": .string(bad)])
                    == "[ERROR: Item-to-add JSON is not valid JSON ('\(bad)')]")
        }
        for max: JSONValue in [.double(1.23), .bool(true), .string("not a number"), .string("1")] {
            #expect(
                try render("{{{jsonArrayAdd array item maxItems=max}}}", ["array": two, "item": sam, "max": max])
                    == "[ERROR: maxItems option must be an integer]")
        }
        #expect(
            try render("{{{jsonArrayAdd array item maxItems=-1}}}", ["array": two, "item": sam])
                == "[ERROR: maxItems option integer must be positive]")
    }
}
