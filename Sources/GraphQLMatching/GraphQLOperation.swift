import Foundation
import HTTPServer
import JSON

/// What a client sent to a GraphQL endpoint: a POST's JSON body (`query`, `variables`,
/// `operationName`, `extensions`), or a GET's query parameters of the same names (variables
/// and extensions as JSON text), as the GraphQL-over-HTTP convention has them. The query may be
/// missing when the client sends only an automatic persisted query's hash (Apollo APQ).
public struct GraphQLOperation: Sendable {
    /// The query as sent, and as read (nil when there is none, or it is not GraphQL).
    public let queryText: String?
    public let document: Result<GraphQLDocument, GraphQLProblem>?
    public let variables: JSONValue?
    public let operationName: String?
    /// `extensions.persistedQuery.sha256Hash`.
    public let persistedQueryHash: String?

    /// The operation `request` carries; a problem when it carries none (not JSON, no query or hash).
    /// Read once however many GraphQL stubs look at the request: each thread keeps the last
    /// request's (by its serial), as the stubs of one request are tried on its loop one after another.
    public static func of(_ request: Request) -> Result<GraphQLOperation, GraphQLProblem> {
        let cache = Thread.current.threadDictionary
        if let last = cache[lastReadKey] as? LastRead, last.serial == request.serial { return last.result }
        let result = read(request)
        cache[lastReadKey] = LastRead(serial: request.serial, result: result)
        return result
    }

    private static let lastReadKey = "understudy.graphql.last-read"

    private final class LastRead {
        let serial: UInt64
        let result: Result<GraphQLOperation, GraphQLProblem>

        init(serial: UInt64, result: Result<GraphQLOperation, GraphQLProblem>) {
            self.serial = serial
            self.result = result
        }
    }

    private static func read(_ request: Request) -> Result<GraphQLOperation, GraphQLProblem> {
        let fields: JSONValue
        if request.method == .get || request.method == .head {
            var members: [(String, JSONValue)] = []
            for name in ["query", "operationName"] {
                if let value = request.query(name) { members.append((name, .string(value))) }
            }
            for name in ["variables", "extensions"] {
                guard let text = request.query(name) else { continue }
                guard let json = try? JSONValue.parse(text) else { return .failure(GraphQLProblem("the \(name) parameter is not JSON")) }
                members.append((name, json))
            }
            fields = .object(members)
        } else {
            guard let json = try? JSONValue.parse(request.body) else { return .failure(GraphQLProblem("the body is not JSON")) }
            fields = json
        }
        return of(fields)
    }

    /// The operation in a GraphQL request's JSON (`{"query", "variables", "operationName", "extensions"}`).
    public static func of(_ json: JSONValue) -> Result<GraphQLOperation, GraphQLProblem> {
        guard json.objectValue != nil else { return .failure(GraphQLProblem("the body is not a JSON object")) }
        let hash = json["extensions"]?["persistedQuery"]?["sha256Hash"]?.stringValue
        let query = json["query"]?.stringValue
        guard query != nil || hash != nil else { return .failure(GraphQLProblem("the body has no query (nor a persisted query's hash)")) }
        if let given = json["query"], query == nil, given != .null { return .failure(GraphQLProblem("query is not a string")) }
        let name = json["operationName"]
        if let name, name != .null, name.stringValue == nil { return .failure(GraphQLProblem("operationName is not a string")) }
        let variables = json["variables"].flatMap { $0 == .null ? nil : $0 }
        if let variables, variables.objectValue == nil { return .failure(GraphQLProblem("variables is not an object")) }
        return .success(
            GraphQLOperation(
                queryText: query, document: query.map { text in Result { () throws(GraphQLProblem) in try GraphQLDocument(parsing: text) } },
                variables: variables, operationName: name?.stringValue, persistedQueryHash: hash))
    }
}
