import Foundation
import MockCore
import Testing
import UnderstudyTesting

@testable import Stubs

/// JSONPath functions and filters, with the answers WireMock 2.35 (Jayway JSONPath) gives.
@Suite struct JSONPathTests {
    let body =
        #"{"items": [{"name": "a", "price": 5, "tag": "x", "tags": ["t"]}, {"name": "b", "price": 15, "tags": []}, {"name": "c", "price": 7}], "nums": [1, 3, 5], "obj": {"a": 1, "b": 2}, "name": "hello", "limit": 6, "empty": []}"#

    func matches(_ path: String) throws -> Bool {
        try content(#"{"matchesJsonPath": "# + path + "}").matches(body)
    }

    @Test func functionsEndAPath() throws {
        #expect(try matches(#""$.items.length()""#))
        #expect(try matches(#"{"expression": "$.items.length()", "equalTo": "3"}"#))
        #expect(try matches(#"{"expression": "$.items.size()", "equalTo": "3"}"#))
        #expect(try matches(#"{"expression": "$.obj.length()", "equalTo": "2"}"#))
        // Aggregates are doubles, written as Java writes them.
        #expect(try matches(#"{"expression": "$.nums.min()", "equalTo": "1.0"}"#))
        #expect(try !matches(#"{"expression": "$.nums.min()", "equalTo": "1"}"#))
        #expect(try matches(#"{"expression": "$.nums.max()", "equalTo": "5.0"}"#))
        #expect(try matches(#"{"expression": "$.nums.avg()", "equalTo": "3.0"}"#))
        #expect(try matches(#"{"expression": "$.nums.sum()", "equalTo": "9.0"}"#))
        #expect(try matches(#"{"expression": "$.nums.stddev()", "matches": "1\\.63.*"}"#))
        // After a wildcard the function takes each selected value, as Jayway does (checked on
        // WireMock 2.35): each item's tag count; a sum of single numbers is nothing.
        #expect(try matches(#"{"expression": "$.items[*].tags.length()", "equalTo": "1"}"#))
        #expect(try !matches(#"{"expression": "$.items[*].tags.length()", "equalTo": "3"}"#))
        #expect(try !matches(#"{"expression": "$.items[*].price.sum()", "matches": ".*"}"#))
        #expect(try matches(#""$.obj.keys()""#))
        #expect(try matches(#"{"expression": "$.obj.keys()", "equalToJson": ["a", "b"]}"#))
        // Where Jayway fails, nothing matches.
        #expect(try !matches(#"{"expression": "$.name.length()", "equalTo": "5"}"#))
        #expect(try !matches(#""$.empty.max()""#))

        let path = try JSONPath.parse("$.items.length()", field: "t")
        #expect(path.isDefinite, "a function answers one value to the jsonPath helper")
        #expect(throws: StubError.self) { try JSONPath.parse("$.items.first()", field: "t") }
        #expect(throws: StubError.self) { try JSONPath.parse("$.items.length().x", field: "t") }
    }

    @Test func filtersAsJaywayReadsThem() throws {
        #expect(try matches(#""$.items[?(@.price < 10)]""#))
        #expect(try !matches(#""$.items[?(@.price > 100)]""#))
        #expect(try matches(#""$.items[?(@.tag in ['x', 'y'])]""#))
        #expect(try matches(#""$.items[?(@.tag nin ['x'])]""#), "a missing value is in no list")
        #expect(try matches(#"{"expression": "$.items[?(@.tag != 'x')].name", "equalTo": "b"}"#))
        #expect(try matches(#""$.items[?(@.name =~ /B.*/i)]""#))
        #expect(try !matches(#""$.items[?(@.name =~ /B.*/)]""#))
        #expect(try matches(#""$.items[?(@.price < 10 && @.name == 'a')]""#))
        #expect(try !matches(#""$.items[?(@.price < 10 && @.name == 'b')]""#))
        #expect(try matches(#""$.items[?(@.price > 100 || @.name == 'b')]""#))
        #expect(try matches(#""$.items[?(!@.tag)]""#))
        #expect(try matches(#""$.items[?(@.name size 1)]""#))
        #expect(try matches(#""$.items[?(@.tags empty true)]""#))
        #expect(try matches(#""$.items[?(@.tags contains 't')]""#))
        #expect(try matches(#""$.items[?(@.tags anyof ['t', 'u'])]""#))
        #expect(try matches(#""$.items[?(@.tags subsetof ['t', 'u'])]""#))
        #expect(try matches(#""$.items[?(@.price < $.limit)]""#), "the document's values via $")
        #expect(try matches(#""$.items[?((@.price > 100 || @.price < 6) && @.tag)]""#))
        #expect(try matches(#"{"expression": "$.items[?(@.price < 10)].name", "equalTo": "c"}"#))
        #expect(try matches(#"{"expression": "$.items[0:2].name", "equalTo": "b"}"#))
        #expect(try !matches(#"{"expression": "$.items[0:2].name", "equalTo": "c"}"#))
        #expect(try matches(#"{"expression": "$.items[-1:].name", "equalTo": "c"}"#))
        #expect(try matches(#"{"expression": "$.items[0,2].name", "equalTo": "c"}"#))
        #expect(try matches(#"{"expression": "$.obj['a','b']", "equalTo": "2"}"#))
        for bad in ["$.items[?(@.name =~ 'a')]", "$.items[?(@.price <)]", "$.items[?(@.price < 10]", "$.items[?(5)]", "$.items[0:"] {
            #expect(throws: StubError.self, "\(bad)") { try JSONPath.parse(bad, field: "t") }
        }
    }

    @Test func theJsonPathHelperGetsFunctionResults() async throws {
        let root = try makeTemporaryDirectory([
            "mappings/t.json":
                #"{"request": {"method": "POST", "url": "/count"}, "response": {"body": "{{jsonPath request.body '$.items.length()'}} {{size (jsonPath request.body '$.items[?(@.price < 10)]')}}", "transformers": ["response-template"]}}"#
        ])
        defer { try? FileManager.default.removeItem(at: root) }
        let server = try BackendTester(backends: [StubEngine(stubsDirectory: root)])
        let (answer, _) = try await server.send("POST", "/count", body: Data(body.utf8))
        #expect(String(decoding: answer, as: UTF8.self) == "3 2")
    }
}
