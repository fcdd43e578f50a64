import Foundation
import Testing
import UnderstudyClient
import UnderstudyTesting

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The typed GraphQL builders against the built server: each operation its own answer on one
/// endpoint, data from the app's Codable models, errors as GraphQL sends them.
@Suite struct GraphQLClientTests {
    struct Hero: Codable, Equatable {
        let name: String
        let friends: [String]
    }

    static func post(_ scope: UnderstudyScope, _ body: String) async throws -> (Int, [String: Any]) {
        var request = URLRequest(url: scope.url("/graphql"))
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = Data(body.utf8)
        let (data, response) = try await URLSession(configuration: .ephemeral).data(for: request)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, (try? JSONSerialization.jsonObject(with: data) as? [String: Any]) ?? [:])
    }

    @Test func operationsAnswerApartWithDataOrErrors() async throws {
        try await withUnderstudy { understudy in
            let scope = try await understudy.makeScope()
            let query = "query Hero($id: ID!) { hero(id: $id) { name friends } }"
            try await scope.stub(
                .graphQL(operation: "Hero", query: query, variables: ["id": "1"])
                    .willReturn(try .graphQLData(encoding: ["hero": Hero(name: "Luke", friends: ["Leia"])])))
            try await scope.stub(
                .graphQL(operation: "Hero", query: query, variables: ["id": "404"])
                    .willReturn(.graphQLErrors([.init("no hero 404", path: ["hero"], extensions: ["code": "NOT_FOUND"])])))

            let (status, luke) = try await Self.post(
                scope, #"{"operationName": "Hero", "variables": {"id": "1"}, "query": "query Hero($id: ID!) {\n hero(id: $id) { friends name }\n}"}"#)
            #expect(status == 200)
            #expect(((luke["data"] as? [String: Any])?["hero"] as? [String: Any])?["name"] as? String == "Luke")
            let (_, missing) = try await Self.post(scope, #"{"operationName": "Hero", "variables": {"id": "404"}, "query": "\#(query)"}"#)
            let error = try #require((missing["errors"] as? [[String: Any]])?.first)
            #expect(error["message"] as? String == "no hero 404" && (error["extensions"] as? [String: String])?["code"] == "NOT_FOUND")
            #expect(missing["data"] is NSNull)
            let (unmatched, _) = try await Self.post(scope, #"{"operationName": "Villain", "variables": {"id": "1"}, "query": "\#(query)"}"#)
            #expect(unmatched == 404)
            #expect(try await scope.count(.graphQL(operation: "Hero", query: query, variables: ["id": "1"])) == 1)
        }
    }
}
