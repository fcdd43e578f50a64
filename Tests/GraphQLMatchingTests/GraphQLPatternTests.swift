import Foundation
import HTTPServer
import JSON
import Testing

@testable import GraphQLMatching

/// wiremock-graphql-extension's verdicts: the cases of its own tests and e2e fixtures (restated
/// in extension-cases.json, each naming the test it comes from), then the rules its source
/// gives where no test of its covers them.
@Suite struct GraphQLPatternTests {
    static let cases: [JSONValue] = {
        let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("extension-cases.json")
        return (try? JSONValue.parse(Array((try? Data(contentsOf: file)) ?? Data())))?.arrayValue ?? []
    }()

    static func post(_ body: String) -> Request {
        Request(method: .post, target: "/graphql", headers: ["Content-Type": "application/json"], body: Array(body.utf8))
    }

    static func misses(_ stub: String, _ body: String) throws -> GraphQLPattern.Misses {
        try GraphQLPattern(parameters: JSONValue.parse(stub)).misses(post(body))
    }

    @Test func theExtensionsOwnCasesGiveItsVerdicts() throws {
        #expect(Self.cases.count == 46)
        for item in Self.cases {
            let name = item["case"]?.stringValue ?? "?"
            let pattern = try GraphQLPattern(parameters: try #require(item["stub"]))
            let request = try #require(item["request"])
            let body = request["rawBody"]?.stringValue ?? request.serialized
            let misses = pattern.misses(Self.post(body))
            #expect(misses.isEmpty == (item["matches"] == true), "\(name): \(misses)")
        }
    }

    @Test func variablesAndOperationNameFollowWireMocksAbsentAndEqualToJson() throws {
        let bare = #"{"query": "{ hero { name } }"}"#
        #expect(try Self.misses(bare, #"{"query": "{ hero { name } }", "variables": null, "operationName": null}"#).isEmpty)
        #expect(try Self.misses(bare, #"{"query": "{ hero { name } }", "variables": {}}"#).variables.count == 1, "{} is variables")
        let typed = #"{"query": "{ hero { name } }", "variables": {"id": 1, "filter": {"a": [1, 2], "b": null}}, "operationName": "Hero"}"#
        #expect(
            try Self.misses(typed, #"{"query": "{hero{name}}", "variables": {"filter": {"a": [1, 2]}, "id": 1.0}, "operationName": "Hero"}"#).isEmpty)
        let wrong = try Self.misses(
            typed, #"{"query": "{ hero { name } }", "variables": {"id": 2, "filter": {"a": [2, 1]}, "x": 0}, "operationName": "HeroDetails"}"#)
        #expect(wrong.operationName == "operation is `HeroDetails`, not `Hero`")
        #expect(wrong.variables.contains("variable `id` is 2, expected 1"))
        #expect(wrong.variables.contains { $0.hasPrefix("variable `filter` is") }, "array order counts")
        #expect(wrong.variables.contains("variable `x` is sent (0); the stub expects none"))
        #expect(wrong.query == nil)
    }

    @Test func theOlderFormsIgnoreTheOperationNameAndTakeMissingVariablesAsEmpty() throws {
        for key in ["expectedJson", "expectedQuery"] {
            // A multi-line query inside the JSON string: the raw newlines are taken out first.
            let stub = JSONValue.object([(key, .string("{\"query\": \"{\n hero { name }\n}\"}"))]).serialized
            #expect(try Self.misses(stub, #"{"query": "{ hero { name } }", "operationName": "Anything", "variables": {}}"#).isEmpty, "\(key)")
            #expect(try Self.misses(stub, #"{"query": "{ hero { name } }", "variables": {"a": 1}}"#).variables.count == 1)
        }
    }

    @Test func nearMissesNameWhatDiffers() throws {
        let stub = #"{"query": "query Hero { hero { name friends { name } } }"}"#
        #expect(
            try Self.misses(stub, #"{"query": "query Hero { hero { name friends { id } } }"}"#).query
                == "the query does not ask for `query Hero.hero.friends.name`")
        #expect(
            try Self.misses(stub, #"{"query": "query HeroDetails { hero { name friends { name } } }"}"#).query
                == "the query's operation is query HeroDetails, not query Hero")
        #expect(
            try Self.misses(stub, #"{"query": "query Hero { hero { name friends { name } } "}"#).query?.hasPrefix("the query is not GraphQL") == true)
        #expect(try Self.misses(stub, #"{"foo": "bar"}"#).query == "not a GraphQL request: the body has no query (nor a persisted query's hash)")
        #expect(try Self.misses(stub, "not json").query == "not a GraphQL request: the body is not JSON")
    }

    @Test func aPersistedQuerysHashIsItsQuery() throws {
        let query = "query Hero { hero { name } }"
        let stub = JSONValue.object([("query", .string(query))]).serialized
        let hash = Digest.sha256Hex(Array(query.utf8))
        #expect(hash.count == 64)
        let apq = #"{"extensions": {"persistedQuery": {"version": 1, "sha256Hash": "\#(hash)"}}}"#
        #expect(try Self.misses(stub, apq).isEmpty)
        #expect(try Self.misses(stub, apq.replacingOccurrences(of: hash.prefix(8), with: "00000000")).query?.hasPrefix("persisted query") == true)
    }

    @Test func getCarriesTheOperationInItsQuery() throws {
        let pattern = try GraphQLPattern(parameters: JSONValue.parse(#"{"query": "{ hero { name } }", "variables": {"id": 1}}"#))
        let get = Request(method: .get, target: "/graphql?query=%7Bhero%7Bname%7D%7D&variables=%7B%22id%22%3A1%7D")
        #expect(pattern.misses(get).isEmpty)
        #expect(pattern.misses(Request(method: .get, target: "/graphql?query=%7Bhero%7Bname%7D%7D&variables=nope")).query != nil)
    }

    @Test func aStubsOwnQueryMustBeGraphQL() {
        #expect(throws: GraphQLProblem.self) { try GraphQLPattern(parameters: JSONValue.parse(#"{"query": "{ hero { "}"#)) }
        #expect(throws: GraphQLProblem.self) { try GraphQLPattern(parameters: JSONValue.parse(#"{"variables": {}}"#)) }
        #expect(throws: GraphQLProblem.self) { try GraphQLPattern(parameters: JSONValue.parse(#"{"query": "{a}", "variables": [1]}"#)) }
    }
}
