import Foundation
import HTTPServer
import MockCore
import Testing
import UnderstudyTesting

@testable import Stubs

/// Mappings with wiremock-graphql-extension's `graphql-body-matcher` on a running server: one
/// endpoint, each operation its own answer, and a request nothing answers told why in GraphQL's
/// terms.
@Suite struct GraphQLStubTests {
    static func mapping(_ parameters: String, body: String) -> String {
        #"{"request": {"method": "POST", "urlPath": "/graphql", "customMatcher": {"name": "graphql-body-matcher", "parameters": \#(parameters)}}, "response": {"jsonBody": \#(body)}}"#
    }

    func serve() throws -> (TestServer, URL) {
        let root = try makeTemporaryDirectory([
            "mappings/hero.json": Self.mapping(
                #"{"query": "query Hero($id: ID!) { hero(id: $id) { name } }", "variables": {"id": 1}, "operationName": "Hero"}"#,
                body: #"{"data": {"hero": {"name": "Luke"}}}"#),
            "mappings/villain.json": Self.mapping(
                #"{"query": "query Hero($id: ID!) { hero(id: $id) { name } }", "variables": {"id": 2}, "operationName": "Hero"}"#,
                body: #"{"data": {"hero": {"name": "Vader"}}}"#),
            "mappings/legacy.json": Self.mapping(#"{"expectedJson": "{\"query\": \"{ droids { id } }\"}"}"#, body: #"{"data": {"droids": []}}"#),
        ])
        let journal = RequestJournal()
        let engine = StubEngine(stubsDirectory: root)
        #expect(engine.reloadFiles().isEmpty)
        return (try TestServer.start(backends: [StubAdminAPI(engine: engine, journal: journal), engine], journal: journal), root)
    }

    @Test func oneEndpointAnswersEachOperationAndVariablesApart() async throws {
        let (server, root) = try serve()
        defer {
            server.stop()
            try? FileManager.default.removeItem(at: root)
        }
        func post(_ body: String) async throws -> (String, Int) {
            let (data, response) = try await server.send("POST", "/graphql", headers: ["Content-Type": "application/json"], body: Data(body.utf8))
            return (String(decoding: data, as: UTF8.self), response.statusCode)
        }
        // Reformatted, and its variables' numbers written otherwise: the same operation.
        let luke = try await post(
            #"{"operationName": "Hero", "variables": {"id": 1.0}, "query": "query Hero($id: ID!) {\n  hero(id: $id) {\n    name\n  }\n}"}"#)
        #expect(luke.1 == 200 && luke.0.contains("Luke"))
        #expect(
            try await post(#"{"operationName": "Hero", "variables": {"id": 2}, "query": "query Hero($id: ID!) { hero(id: $id) { name } }"}"#).0
                .contains("Vader"))
        #expect(
            try await post(#"{"query": "{droids{id}}", "operationName": "Ignored", "variables": {}}"#).1 == 200,
            "the older form ignores operationName")
        let miss = try await post(
            #"{"operationName": "HeroDetails", "variables": {"id": 3}, "query": "query Hero($id: ID!) { hero(id: $id) { name } }"}"#)
        #expect(miss.1 == 404)
        #expect(miss.0.contains("operation is `HeroDetails`, not `Hero`"), "\(miss.0)")
        #expect(miss.0.contains("variable `id` is 3, expected 1") || miss.0.contains("variable `id` is 3, expected 2"))
        // The near-miss API says the same.
        let (nearBody, _) = try await server.send("GET", "/__admin/requests/unmatched/near-misses?scope=default")
        #expect(String(decoding: nearBody, as: UTF8.self).contains("GraphQL: operation is `HeroDetails`, not `Hero`"))
    }

    @Test func aBadGraphQLMatcherIsRefusedWhereItIs() throws {
        let root = try makeTemporaryDirectory([
            "mappings/bad.json": Self.mapping(#"{"query": "query { hero { "}"#, body: "{}"),
            "mappings/none.json": Self.mapping(#"{"variables": {}}"#, body: "{}"),
        ])
        defer { try? FileManager.default.removeItem(at: root) }
        let errors = StubEngine(stubsDirectory: root).reloadFiles().map(\.description)
        #expect(errors.contains { $0.contains("bad.json") && $0.contains("request.customMatcher.parameters: the query is not GraphQL") }, "\(errors)")
        #expect(errors.contains { $0.contains("none.json") && $0.contains("query is required") }, "\(errors)")
    }
}
