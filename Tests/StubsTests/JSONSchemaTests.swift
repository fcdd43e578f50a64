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

    @Test func badSchemasAreRefusedWithTheFieldNamed() {
        for (json, message) in [
            (
                ##"{"matchesJsonSchema": {"properties": {"a": {"$ref": "other.json#/a"}}}}"##,
                "bodyPatterns[0].matchesJsonSchema.properties.a.$ref: 'other.json#/a' is outside the schema"
            ),
            (#"{"matchesJsonSchema": {"items": {"pattern": "(("}}}"#, "bodyPatterns[0].matchesJsonSchema.items: '((' is not a regular expression"),
            (##"{"matchesJsonSchema": {"$dynamicRef": "#x"}}"##, "$dynamicRef is not supported"),
            (#"{"matchesJsonSchema": 3}"#, "a JSON schema is an object"),
        ] {
            #expect(throws: StubError.self) { try pattern(json) }
            do { _ = try pattern(json) } catch { #expect("\(error)".contains(message), "\(error)") }
        }
    }
}
