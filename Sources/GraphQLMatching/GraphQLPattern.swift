import HTTPServer
import JSON

/// A stub's GraphQL condition, compatible with wiremock-graphql-extension: the mapping's
/// `request.customMatcher` `{"name": "graphql-body-matcher", "parameters": {…}}`. Its current form
/// (v0.8 and later) gives `query`, `variables` and `operationName`; the older forms give
/// `expectedJson` (v0.5–0.8) or `expectedQuery` (v0.4), a JSON string of `{query, variables}`,
/// and with them `operationName` is not compared and missing variables are `{}`.
public struct GraphQLPattern: Sendable {
    public enum Form: Sendable {
        case current
        /// `expectedJson` or `expectedQuery`.
        case legacy
    }

    public static let matcherName = "graphql-body-matcher"

    public let document: GraphQLDocument
    /// SHA-256 of the query as the stub writes it: an APQ request with this hash is its query.
    public let queryHash: String
    public let variables: JSONValue?
    public let operationName: String?
    public let form: Form

    public init(parameters: JSONValue) throws(GraphQLProblem) {
        guard parameters.objectValue != nil else { throw GraphQLProblem("parameters must be an object") }
        let query: String
        var variables: JSONValue?
        if let legacy = parameters["expectedJson"] ?? parameters["expectedQuery"] {
            // 0.7.1 and later take every raw newline out of the text first (a multi-line query
            // written inside the JSON string).
            guard let text = legacy.stringValue?.filter({ $0 != "\n" }), let json = try? JSONValue.parse(text),
                let given = json["query"]?.stringValue
            else {
                throw GraphQLProblem("expectedJson (or expectedQuery) must be a JSON string of {\"query\", \"variables\"}")
            }
            query = given
            variables = json["variables"].flatMap { $0 == .null ? nil : $0 }
            form = .legacy
            operationName = nil
        } else {
            guard let given = parameters["query"]?.stringValue else {
                throw GraphQLProblem("query is required (a string), or expectedJson for the extension's older form")
            }
            query = given
            variables = parameters["variables"].flatMap { $0 == .null ? nil : $0 }
            if let name = parameters["operationName"], name != .null {
                guard let text = name.stringValue else { throw GraphQLProblem("operationName must be a string") }
                operationName = text
            } else {
                operationName = nil
            }
            form = .current
        }
        // The extension takes variables as an object, or as a JSON string of one.
        if let text = variables?.stringValue {
            guard let parsed = try? JSONValue.parse(text) else { throw GraphQLProblem("variables is a string that is not JSON") }
            variables = parsed
        }
        if let variables, variables.objectValue == nil { throw GraphQLProblem("variables must be an object") }
        self.variables = variables
        document = try GraphQLDocument(parsing: query)
        queryHash = Digest.sha256Hex(Array(query.utf8))
    }

    /// Why a request is not this pattern's operation, part by part, as the extension weighs them
    /// (the query, the variables, the operation name: each a third of the distance).
    public struct Misses: Sendable {
        public var query: String?
        public var variables: [String] = []
        public var operationName: String?

        public var isEmpty: Bool { query == nil && variables.isEmpty && operationName == nil }

        public init(query: String? = nil) { self.query = query }
    }

    public func misses(_ request: Request) -> Misses {
        switch GraphQLOperation.of(request) {
        case .failure(let problem): Misses(query: "not a GraphQL request: \(problem)")
        case .success(let operation): misses(operation)
        }
    }

    public func misses(_ operation: GraphQLOperation) -> Misses {
        var misses = Misses()
        switch operation.document {
        case .failure(let problem)?: misses.query = problem.description
        case .success(let sent)?: misses.query = queryMiss(sent)
        case nil:
            if operation.persistedQueryHash != queryHash {
                misses.query =
                    "persisted query \(operation.persistedQueryHash?.prefix(12) ?? "")… is not this stub's query (\(queryHash.prefix(12))…)"
            }
        }
        if form == .current {
            switch (operationName, operation.operationName) {
            case (let expected?, let sent?) where expected != sent: misses.operationName = "operation is `\(sent)`, not `\(expected)`"
            case (let expected?, nil): misses.operationName = "operationName is absent, expected `\(expected)`"
            case (nil, let sent?): misses.operationName = "operationName `\(sent)` is sent; the stub names none"
            default: break
            }
        }
        misses.variables = variableMisses(operation.variables)
        return misses
    }

    private func queryMiss(_ sent: GraphQLDocument) -> String? {
        guard sent != document else { return nil }
        let expectedNames = document.operations.map { "\($0.type) \($0.name ?? "(anonymous)")" }
        let sentNames = sent.operations.map { "\($0.type) \($0.name ?? "(anonymous)")" }
        if expectedNames != sentNames {
            return "the query's operation is \(sentNames.joined(separator: ", ")), not \(expectedNames.joined(separator: ", "))"
        }
        let expected = Set(document.fieldPaths)
        let asked = Set(sent.fieldPaths)
        if let missing = document.fieldPaths.first(where: { !asked.contains($0) }) { return "the query does not ask for `\(missing)`" }
        if let extra = sent.fieldPaths.first(where: { !expected.contains($0) }) { return "the query asks for `\(extra)`, which the stub's does not" }
        return "the query differs in its arguments, aliases' order, variable definitions, fragments or directives"
    }

    private func variableMisses(_ sent: JSONValue?) -> [String] {
        switch (form, variables) {
        case (.legacy, _):
            // org.json's reading: missing, null or not an object is `{}`; nulls are kept.
            let empty: JSONValue = .object([])
            let given = sent?.objectValue != nil ? sent ?? empty : empty
            return Self.differences(given, variables ?? empty)
        case (.current, nil):
            // WireMock's absent: no variables, or null; `{}` is variables.
            guard let sent else { return [] }
            return ["variables are sent (\(Self.shortened(sent))); the stub expects none"]
        case (.current, let expected?):
            guard let sent else { return ["variables are absent, expected \(Self.shortened(expected))"] }
            // WireMock writes both without their null members before comparing them.
            return Self.differences(Self.withoutNulls(sent), Self.withoutNulls(expected))
        }
    }

    /// Object members whose value is null left out, at every depth (not array elements).
    static func withoutNulls(_ value: JSONValue) -> JSONValue {
        switch value {
        case .object(let members): .object(members.filter { $0.1 != .null }.map { ($0.0, withoutNulls($0.1)) })
        case .array(let items): .array(items.map(withoutNulls))
        default: value
        }
    }

    /// One line per variable that differs: missing, extra, or another value.
    static func differences(_ sent: JSONValue, _ expected: JSONValue) -> [String] {
        let sentMembers = sent.objectValue ?? []
        let expectedMembers = expected.objectValue ?? []
        var lines: [String] = []
        for (name, value) in expectedMembers {
            guard let given = sentMembers.last(where: { $0.0 == name })?.1 else {
                lines.append("variable `\(name)` is absent, expected \(shortened(value))")
                continue
            }
            if !same(given, value) { lines.append("variable `\(name)` is \(shortened(given)), expected \(shortened(value))") }
        }
        for (name, value) in sentMembers where !expectedMembers.contains(where: { $0.0 == name }) {
            lines.append("variable `\(name)` is sent (\(shortened(value))); the stub expects none")
        }
        return lines
    }

    /// JSON equality: objects whatever their members' order, numbers by value; in the stub's
    /// value (`b`), JsonUnit's placeholders, as WireMock's equalToJson has them:
    /// `${json-unit.any-string}`, `…any-number}`, `…any-boolean}`, `…ignore}` (what the recorder
    /// writes for a redacted variable).
    static func same(_ a: JSONValue, _ b: JSONValue) -> Bool {
        switch b.stringValue {
        case "${json-unit.ignore}": return true
        case "${json-unit.any-string}": return a.stringValue != nil
        case "${json-unit.any-number}": return a.doubleValue != nil
        case "${json-unit.any-boolean}": return a.boolValue != nil
        default: break
        }
        switch (a, b) {
        case (.object(let x), .object(let y)):
            return x.count == y.count && x.allSatisfy { name, value in y.last { $0.0 == name }.map { same(value, $0.1) } ?? false }
        case (.array(let x), .array(let y)): return x.count == y.count && zip(x, y).allSatisfy { same($0, $1) }
        case (.int, .double), (.double, .int), (.double, .double): return a.doubleValue == b.doubleValue
        default: return a == b
        }
    }

    private static func shortened(_ value: JSONValue) -> String {
        let text = value.serialized
        return text.count > 80 ? String(text.prefix(77)) + "…" : text
    }
}
