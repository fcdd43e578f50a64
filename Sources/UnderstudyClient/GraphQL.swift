import Foundation

extension RequestPattern {
    /// A GraphQL operation sent to `path` (POST, or GET with the operation in its query), matched
    /// as wiremock-graphql-extension matches it: `query` compared as a document (formatting and
    /// field order do not count), `variables` as JSON (nil: the request sends none), `operation`
    /// exactly (nil: the request names none). See docs/stubs.md's GraphQL section.
    public static func graphQL(
        operation: String? = nil, query: String, variables: [String: JSONValue]? = nil, path: String = "/graphql"
    ) -> RequestPattern {
        var parameters: [String: JSONValue] = ["query": .string(query)]
        if let variables { parameters["variables"] = .object(variables) }
        if let operation { parameters["operationName"] = .string(operation) }
        return RequestPattern(method: "ANY", url: .path(path))
            .with("customMatcher", ["name": "graphql-body-matcher", "parameters": .object(parameters)])
    }
}

extension Response {
    /// A GraphQL result: `{"data": data}`, 200, JSON.
    public static func graphQLData(_ data: JSONValue) -> Response { .json(["data": data]) }

    /// A GraphQL result whose data is `value` encoded with `encoder` (the app's own Codable models).
    public static func graphQLData(encoding value: some Encodable, encoder: JSONEncoder = JSONEncoder()) throws -> Response {
        .graphQLData(try JSONDecoder().decode(JSONValue.self, from: try encoder.encode(value)))
    }

    /// GraphQL errors, as a server answers a query it could not fully resolve: `200` with
    /// `{"errors": [{"message", "path"?, "extensions"?}], "data": data}` (`null` unless given).
    public static func graphQLErrors(_ errors: [GraphQLError], data: JSONValue = .null) -> Response {
        .json(["errors": .array(errors.map(\.json)), "data": data])
    }

    /// One entry of a GraphQL answer's `errors`.
    public struct GraphQLError: Sendable, Hashable, ExpressibleByStringLiteral {
        public var message: String
        public var path: [JSONValue]?
        public var extensions: [String: JSONValue]?

        public init(_ message: String, path: [JSONValue]? = nil, extensions: [String: JSONValue]? = nil) {
            self.message = message
            self.path = path
            self.extensions = extensions
        }

        public init(stringLiteral message: String) { self.init(message) }

        var json: JSONValue {
            var members: [String: JSONValue] = ["message": .string(message)]
            if let path { members["path"] = .array(path) }
            if let extensions { members["extensions"] = .object(extensions) }
            return .object(members)
        }
    }
}

extension Stub {
    /// `scope.stub(.graphQL(operation: "Hero", query: …).willReturn(.graphQLData(…)))`: see `RequestPattern.graphQL`.
    public static func graphQL(
        operation: String? = nil, query: String, variables: [String: JSONValue]? = nil, path: String = "/graphql"
    ) -> RequestPattern {
        RequestPattern.graphQL(operation: operation, query: query, variables: variables, path: path)
    }
}
