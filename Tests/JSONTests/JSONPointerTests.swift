import JSON
import Testing

@Suite struct JSONPointerTests {
    @Test func tokensEscapeAndUnescapeAsRFC6901Says() {
        #expect(JSONPointer.escaped("a/b~c") == "a~1b~0c")
        #expect(JSONPointer.unescaped("a~1b~0c") == "a/b~c")
        // `~01` is `~1`, not `/`: each escape is read once, left to right.
        #expect(JSONPointer.unescaped("~01") == "~1")
        for name in ["", "~", "/", "~1", "x/~/y", "ü/~0"] { #expect(JSONPointer.unescaped(JSONPointer.escaped(name)) == name) }
    }

    @Test func valuesAreNamedAsJSONSchemaNamesTheirTypes() {
        let named: [(JSONValue, String)] = [
            (.null, "null"), (true, "boolean"), (1, "integer"), (.double(1.5), "number"), ("a", "string"), ([], "array"), (.object([]), "object"),
        ]
        for (value, name) in named { #expect(value.schemaTypeName == name) }
    }
}
