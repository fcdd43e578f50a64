import Testing

@testable import JSON

@Suite struct JSONValueTests {
    @Test func jsonKeepsKeyOrderAndEscapes() {
        let value: JSONValue = .object([
            ("z", 1), ("a", .string("quote \" slash \\ / newline \n tab \t bell \u{07} é")),
            ("list", [true, .null, .double(0.5), .double(3)]),
        ])
        #expect(value.serialized == #"{"z":1,"a":"quote \" slash \\ / newline \n tab \t bell \u0007 é","list":[true,null,0.5,3]}"#)
    }

    @Test func lenientJSONAllowsCommentsAndSingleQuotesOnly() throws {
        let text = "// head\n{ /* a\nb */ 'k': 'it\\'s \"q\"', \"n\": [1, /* x */ 2] // tail\n}"
        #expect(try JSONValue.parseLenient(Array(text.utf8)) == .object([("k", .string("it's \"q\"")), ("n", [1, 2])]))
        #expect(throws: JSONParseError.self) { try JSONValue.parse(text) }
        #expect(throws: JSONParseError(line: 1, column: 3, message: "unterminated /* comment")) {
            try JSONValue.parseLenient(Array("{ /* open".utf8))
        }
        #expect(throws: JSONParseError.self) { try JSONValue.parseLenient(Array("{\"a\": 1,}".utf8)) }
        #expect(throws: JSONParseError.self) { try JSONValue.parseLenient(Array("{a: 1}".utf8)) }
        #expect(throws: JSONParseError.self) { try JSONValue.parseLenient(Array("[1 / 2]".utf8)) }
        #expect(throws: JSONParseError.self) { try JSONValue.parseLenient(Array("'open".utf8)) }
    }
}
