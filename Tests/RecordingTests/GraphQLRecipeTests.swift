import HTTPServer
import JSON
import Testing

@testable import Recording

/// A GraphQL operation is recorded as one call: its operation name, its query read as a
/// document and its variables, whatever its formatting, matched with the GraphQL matcher.
@Suite struct GraphQLRecipeTests {
    static func exchange(_ body: String, method: String = "POST", path: String = "/graphql", query: [QueryItem] = []) -> RecordedExchange {
        RecordedExchange(
            method: method, path: path, query: query, requestHeaders: ["Content-Type": "application/json"], requestBody: Array(body.utf8),
            status: 200, responseHeaders: ["Content-Type": "application/json"], responseBody: Array(#"{"data": {}}"#.utf8),
            source: "http://api.example.com/graphql")
    }

    @Test func theSameOperationReformattedIsOneCallAndOthersAreNot() throws {
        let recipe = MappingRecipe(options: RecordingOptions())
        let a = Self.exchange(
            #"{"query": "query Hero($id: ID!) { hero(id: $id) { name } }", "variables": {"id": 1, "x": {"b": 1, "a": 2}}, "operationName": "Hero"}"#)
        let b = Self.exchange(
            #"{"operationName": "Hero", "variables": {"x": {"a": 2, "b": 1}, "id": 1}, "query": "query Hero($id: ID!) {\n  hero(id: $id) {\n    name\n  }\n}"}"#
        )
        let other = Self.exchange(
            #"{"query": "query Hero($id: ID!) { hero(id: $id) { name } }", "variables": {"id": 2, "x": {}}, "operationName": "Hero"}"#)
        #expect(recipe.key(a) == recipe.key(b))
        #expect(recipe.key(a) != recipe.key(other))
        #expect(recipe.name(a, key: recipe.key(a)).hasPrefix("graphql-hero-"))
        let request = try #require(JSONValue.object(recipe.mapping(a, name: "n", scenario: nil).mapping)["request"])
        #expect(request["customMatcher"]?["name"] == "graphql-body-matcher")
        #expect(request["customMatcher"]?["parameters"]?["operationName"] == "Hero")
        #expect(request["bodyPatterns"] == nil)
    }

    @Test func aRedactedVariableIsAPlaceholderAndGraphQLPathsNarrowTheDetection() throws {
        var options = RecordingOptions()
        let login = Self.exchange(
            #"{"query": "mutation Login($user: String!, $password: String!) { login(user: $user, password: $password) { token } }", "variables": {"user": "ann", "password": "hunter2"}}"#
        )
        let variables = JSONValue.object(MappingRecipe(options: options).mapping(login, name: "n", scenario: nil).mapping)["request"]?[
            "customMatcher"]?["parameters"]?["variables"]
        #expect(variables?["password"] == "${json-unit.any-string}" && variables?["user"] == "ann")
        options.graphQLPaths = ["/api/graphql"]
        #expect(MappingRecipe(options: options).graphQL(login) == nil, "only the named paths")
        #expect(MappingRecipe(options: options).graphQL(Self.exchange(#"{"query": "{ a }"}"#, path: "/api/graphql")) != nil)
        let get = Self.exchange(
            "", method: "GET", query: [QueryItem(name: "query", value: "{ a }"), QueryItem(name: "variables", value: #"{"n":1}"#)])
        #expect(MappingRecipe(options: RecordingOptions()).graphQL(get)?.variables == .object([("n", 1)]))
    }
}
