import Foundation
import JSON
import Testing

@testable import Stubs

/// `matchesJsonSchema`; the differential against Python's jsonschema is
/// Tests/python/test_json_schema_differential.py. The pet cases are WireMock's
/// JsonSchemaMatchingAcceptanceTest (src/test/java/com/github/tomakehurst/wiremock/) with its
/// src/test/resources/schema-validation/new-pet files.
@Suite struct JSONSchemaTests {
    func pattern(_ json: String) throws -> ContentPattern {
        try ContentPattern.parse(try JSONValue.parse(json), field: "bodyPatterns[0]")
    }

    @Test func aBodyValidAgainstTheSchemaMatchesAndAnInvalidOrUnparseableOneDoesNot() throws {
        let newPet = #"{"type": "object", "required": ["name"], "properties": {"name": {"type": "string"}, "tag": {"type": "string"}}}"#
        let matcher = try pattern(#"{"matchesJsonSchema": \#(JSONValue.string(newPet).serialized)}"#)
        #expect(matcher.matches(#"{"name": "Rex", "tag": "dog"}"#))
        #expect(!matcher.matches(#"{"handle": "Rex"}"#))
        #expect(!matcher.matches(#"{"name": "Rex""#), "not JSON")
        #expect(!matcher.matches(nil))
        #expect(matcher.expectation == "valid against the given JSON schema (V202012)")
    }

    @Test func theDraftDecidesWhatAKeywordMeans() throws {
        let draft4 = try pattern(#"{"matchesJsonSchema": {"maximum": 10, "exclusiveMaximum": true, "type": "integer"}, "schemaVersion": "V4"}"#)
        #expect(!draft4.matches("10") && draft4.matches("9") && !draft4.matches("9.0"), "1.0 is no integer in draft 4")
        let draft7 = try pattern(#"{"matchesJsonSchema": {"exclusiveMaximum": 10, "type": "integer"}, "schemaVersion": "v7"}"#)
        #expect(!draft7.matches("10") && draft7.matches("9.0"))
        let conditional = #"{"if": {"required": ["card"]}, "then": {"required": ["cvv"]}}"#
        #expect(try pattern(#"{"matchesJsonSchema": \#(conditional), "schemaVersion": "V6"}"#).matches(#"{"card": 1}"#), "if is draft 7's")
        #expect(!(try pattern(#"{"matchesJsonSchema": \#(conditional), "schemaVersion": "V7"}"#).matches(#"{"card": 1}"#)))
    }

    @Test func aCycleOrAnExplosionDoesNotMatchAndDoesNotHang() throws {
        let cycle = try pattern(##"{"matchesJsonSchema": {"$ref": "#"}}"##)
        #expect(!cycle.matches("{}"), "a reference to itself never settles")
        // Each level refers to the one below twice: 2^40 evaluations, cut by the step budget.
        var levels = [#""l0": {"type": "integer"}"#]
        for level in 1...40 {
            levels.append(##""l\##(level)": {"anyOf": [{"$ref": "#/$defs/l\##(level - 1)"}, {"not": {"$ref": "#/$defs/l\##(level - 1)"}}]}"##)
        }
        let explosive = try pattern(##"{"matchesJsonSchema": {"$defs": {\##(levels.joined(separator: ", "))}, "$ref": "#/$defs/l40"}}"##)
        #expect(!explosive.matches("1"), "valid, but past the budget: no match rather than a held loop")
        let small = try pattern(##"{"matchesJsonSchema": {"$defs": {\##(levels.prefix(6).joined(separator: ", "))}, "$ref": "#/$defs/l5"}}"##)
        #expect(small.matches("1") && small.matches(#""a""#), "within the budget the same schema answers")
    }

    /// As WireMock 3.13 (its MatchesJsonSchemaPatternTest.invalidJsonSchemaNeverMatches): a schema
    /// that is JSON but not one its validator reads loads, and nothing matches it; the reason names
    /// the place in the schema (and the mapping loads with a warning saying so).
    @Test func badSchemasLoadAndNeverMatchWithTheReasonNamed() throws {
        for (json, reason) in [
            (
                ##"{"matchesJsonSchema": {"properties": {"a": {"$ref": "other.json#/a"}}}}"##,
                "properties.a.$ref: 'other.json#/a' is outside the schema"
            ),
            (#"{"matchesJsonSchema": {"items": {"pattern": "(("}}}"#, "items: '((' is not a regular expression"),
            (##"{"matchesJsonSchema": {"$dynamicRef": "#x"}}"##, "$dynamicRef: $dynamicRef is not supported"),
            (#"{"matchesJsonSchema": 3}"#, "a JSON schema is an object"),
            (#"{"matchesJsonSchema": {"id": 1, "name": "alice"}}"#, "No suitable validator for id"),
            (
                ##"{"matchesJsonSchema": {"type": "array", "items": {"$ref": "#/does/not/exist"}}}"##,
                "items.$ref: '#/does/not/exist' points at nothing"
            ),
        ] {
            let loaded = try pattern(json)
            guard case .invalidJsonSchema(let said) = loaded else {
                Issue.record("\(json) loaded as \(loaded)")
                continue
            }
            #expect(said.hasPrefix(reason), "\(said)")
            for body in [#"{"field":"value"}"#, "\"json string\"", #"{"id":1,"name":"alice"}"#, #"[{"id":1,"name":"alice"}]"#, "3"] {
                #expect(!loaded.matches(body), "\(json) matched \(body)")
            }
        }
        // A schema that is not JSON at all is still refused.
        #expect(throws: StubError.self) { try pattern(#"{"matchesJsonSchema": "not json"}"#) }
    }

    /// WireMock reads a value that is not JSON as a JSON string, and tries a number that fails as the
    /// string of its text (its matchesAString and doesNotMatchAnInvalidString cases).
    @Test func textAndNumbersAreTriedAsStrings() throws {
        let schema = try pattern(#"{"matchesJsonSchema": "{\"type\": \"string\", \"minLength\": 2, \"maxLength\": 4}"}"#)
        for body in [#""12""#, #""123""#, #""1234""#, "12", "123", "1234", "abc"] { #expect(schema.matches(body), "\(body)") }
        for body in ["", #""""#, #""1""#, #""12345""#, "1", "12345"] { #expect(!schema.matches(body), "\(body)") }
        #expect(try pattern(#"{"matchesJsonSchema": {"type": "string"}}"#).matches("my value"))
    }
}
