import Foundation

/// How a string (a header, a query parameter, a cookie, a body) must look: WireMock's matchers.
public struct StringMatch: Sendable, Hashable, CustomStringConvertible {
    /// The matcher as WireMock writes it, e.g. `{"contains": "json"}`.
    public let json: JSONValue

    public init(raw json: JSONValue) { self.json = json }

    public static func equalTo(_ value: String, caseInsensitive: Bool = false) -> StringMatch {
        StringMatch(raw: caseInsensitive ? ["equalTo": .string(value), "caseInsensitive": true] : ["equalTo": .string(value)])
    }
    public static func contains(_ value: String) -> StringMatch { StringMatch(raw: ["contains": .string(value)]) }
    public static func doesNotContain(_ value: String) -> StringMatch { StringMatch(raw: ["doesNotContain": .string(value)]) }
    /// A regular expression the whole value matches.
    public static func matches(_ regex: String) -> StringMatch { StringMatch(raw: ["matches": .string(regex)]) }
    public static func doesNotMatch(_ regex: String) -> StringMatch { StringMatch(raw: ["doesNotMatch": .string(regex)]) }
    /// The header, parameter or cookie is not there at all.
    public static let absent = StringMatch(raw: ["absent": true])
    public static func equalToJSON(_ json: String, ignoreArrayOrder: Bool = false, ignoreExtraElements: Bool = false) -> StringMatch {
        var matcher: [String: JSONValue] = ["equalToJson": .string(json)]
        if ignoreArrayOrder { matcher["ignoreArrayOrder"] = true }
        if ignoreExtraElements { matcher["ignoreExtraElements"] = true }
        return StringMatch(raw: .object(matcher))
    }
    /// A JSONPath expression that finds something in the body, or whose result matches `match`.
    public static func matchesJSONPath(_ expression: String, _ match: StringMatch? = nil) -> StringMatch {
        guard let match, case .object(var inner) = match.json else { return StringMatch(raw: ["matchesJsonPath": .string(expression)]) }
        inner["expression"] = .string(expression)
        return StringMatch(raw: ["matchesJsonPath": .object(inner)])
    }
    public static func equalToXML(_ xml: String) -> StringMatch { StringMatch(raw: ["equalToXml": .string(xml)]) }
    public static func matchesXPath(_ xpath: String) -> StringMatch { StringMatch(raw: ["matchesXPath": .string(xpath)]) }

    /// `contains "json"`, as messages show it.
    public var description: String {
        guard case .object(let members) = json, let (name, value) = members.first(where: { $0.key != "caseInsensitive" }) else {
            return json.serialized
        }
        return "\(name) \(value.stringValue.map { "\"\($0)\"" } ?? value.serialized)"
    }
}

/// Which URLs a request pattern takes: WireMock's `url`, `urlPath`, `urlPattern`, `urlPathPattern`
/// and `urlPathTemplate`.
public struct URLMatch: Sendable, Hashable, CustomStringConvertible {
    let key: String
    let value: String

    /// The path and query, exactly.
    public static func url(_ pathAndQuery: String) -> URLMatch { URLMatch(key: "url", value: pathAndQuery) }
    /// The path, exactly; any query.
    public static func path(_ path: String) -> URLMatch { URLMatch(key: "urlPath", value: path) }
    /// A regular expression the path and query match.
    public static func urlMatching(_ regex: String) -> URLMatch { URLMatch(key: "urlPattern", value: regex) }
    /// A regular expression the path matches.
    public static func pathMatching(_ regex: String) -> URLMatch { URLMatch(key: "urlPathPattern", value: regex) }
    /// An RFC 6570 path template, e.g. `/orders/{id}`.
    public static func pathTemplate(_ template: String) -> URLMatch { URLMatch(key: "urlPathTemplate", value: template) }

    public var description: String { key == "url" || key == "urlPath" ? value : "\(key) \(value)" }
}

/// The requests a stub answers, or that a verification counts.
public struct RequestPattern: Sendable, Hashable, CustomStringConvertible {
    public let method: String
    public let url: URLMatch?
    private var members: [String: JSONValue] = [:]
    private var conditions: [String] = []
    /// A scenario step given on the request (as WireMock's Java DSL has it), for `willReturn`.
    private var scenario: ScenarioStep?

    /// `method` as sent (`GET`, `POST`, …) or `ANY`.
    public init(method: String = "ANY", url: URLMatch? = nil) {
        self.method = method.uppercased()
        self.url = url
    }

    public static func get(_ path: String) -> RequestPattern { RequestPattern(method: "GET", url: .path(path)) }
    public static func get(_ url: URLMatch) -> RequestPattern { RequestPattern(method: "GET", url: url) }
    public static func post(_ path: String) -> RequestPattern { RequestPattern(method: "POST", url: .path(path)) }
    public static func post(_ url: URLMatch) -> RequestPattern { RequestPattern(method: "POST", url: url) }
    public static func put(_ path: String) -> RequestPattern { RequestPattern(method: "PUT", url: .path(path)) }
    public static func put(_ url: URLMatch) -> RequestPattern { RequestPattern(method: "PUT", url: url) }
    public static func patch(_ path: String) -> RequestPattern { RequestPattern(method: "PATCH", url: .path(path)) }
    public static func patch(_ url: URLMatch) -> RequestPattern { RequestPattern(method: "PATCH", url: url) }
    public static func delete(_ path: String) -> RequestPattern { RequestPattern(method: "DELETE", url: .path(path)) }
    public static func delete(_ url: URLMatch) -> RequestPattern { RequestPattern(method: "DELETE", url: url) }
    public static func any(_ path: String) -> RequestPattern { RequestPattern(url: .path(path)) }
    public static func any(_ url: URLMatch) -> RequestPattern { RequestPattern(url: url) }
    /// Every request.
    public static let anyRequest = RequestPattern()

    public func withHeader(_ name: String, _ match: StringMatch) -> RequestPattern {
        adding("headers", name, match, "header \(name) \(match)")
    }
    public func withQueryParameter(_ name: String, _ match: StringMatch) -> RequestPattern {
        adding("queryParameters", name, match, "query \(name) \(match)")
    }
    public func withFormParameter(_ name: String, _ match: StringMatch) -> RequestPattern {
        adding("formParameters", name, match, "form \(name) \(match)")
    }
    public func withCookie(_ name: String, _ match: StringMatch) -> RequestPattern {
        adding("cookies", name, match, "cookie \(name) \(match)")
    }
    /// The body matches (several calls: every one must).
    public func withBody(_ match: StringMatch) -> RequestPattern {
        var copy = self
        copy.members["bodyPatterns"] = .array((members["bodyPatterns"]?.arrayValue ?? []) + [match.json])
        copy.conditions.append("body \(match)")
        return copy
    }
    public func withBasicAuth(username: String, password: String) -> RequestPattern {
        var copy = self
        copy.members["basicAuthCredentials"] = ["username": .string(username), "password": .string(password)]
        copy.conditions.append("basic auth \(username)")
        return copy
    }
    /// Any other field of WireMock's request pattern, as JSON (e.g. `"host"`, `"multipartPatterns"`).
    public func with(_ field: String, _ value: JSONValue) -> RequestPattern {
        var copy = self
        copy.members[field] = value
        copy.conditions.append("\(field) \(value.serialized)")
        return copy
    }

    /// A step of scenario `name`, as on `Stub` (`get("/cart").inScenario("checkout", whenState: "paid").willReturn(…)`,
    /// the order WireMock's Java DSL reads in). Verification ignores it.
    public func inScenario(_ name: String, whenState required: String? = nil, willSetStateTo next: String? = nil) -> RequestPattern {
        var copy = self
        copy.scenario = ScenarioStep(name: name, required: required, next: next)
        return copy
    }

    /// The stub that answers these requests with `response`.
    public func willReturn(_ response: Response) -> Stub {
        var stub = Stub(self, response)
        if let scenario { stub = stub.inScenario(scenario.name, whenState: scenario.required, willSetStateTo: scenario.next) }
        return stub
    }

    /// The pattern as WireMock writes it.
    public var json: JSONValue {
        var object = members
        object["method"] = .string(method)
        if let url { object[url.key] = .string(url.value) }
        return .object(object)
    }

    /// `GET /orders (header Accept contains "json")`, as messages show it.
    public var description: String {
        let head = "\(method == "ANY" ? "any method" : method) \(url?.description ?? "any URL")"
        return conditions.isEmpty ? head : head + " (" + conditions.joined(separator: ", ") + ")"
    }

    private func adding(_ group: String, _ name: String, _ match: StringMatch, _ summary: String) -> RequestPattern {
        var copy = self
        copy.members[group] = (members[group] ?? .object([:])).with(name, match.json)
        copy.conditions.append(summary)
        return copy
    }
}

/// What a stub answers: WireMock's response definition.
public struct Response: Sendable, Hashable {
    private var members: [String: JSONValue]

    public init(raw json: [String: JSONValue]) { members = json }

    public static func status(_ status: Int) -> Response { Response(raw: ["status": .int(status)]) }
    public static func text(_ body: String, status: Int = 200) -> Response {
        Response(raw: ["status": .int(status), "body": .string(body)])
    }
    /// A JSON body (with `Content-Type: application/json`).
    public static func json(_ body: JSONValue, status: Int = 200) -> Response {
        Response(raw: ["status": .int(status), "jsonBody": body]).withHeader("Content-Type", "application/json")
    }
    /// JSON text as it is (with `Content-Type: application/json`).
    public static func json(text: String, status: Int = 200) -> Response {
        Response(raw: ["status": .int(status), "body": .string(text)]).withHeader("Content-Type", "application/json")
    }
    /// `value` encoded as JSON with `encoder` (with `Content-Type: application/json`): the app's own
    /// Codable models as the answer.
    public static func json(encoding value: some Encodable, status: Int = 200, encoder: JSONEncoder = JSONEncoder()) throws -> Response {
        json(text: String(decoding: try encoder.encode(value), as: UTF8.self), status: status)
    }
    /// Bytes as they are, with `contentType` (`application/octet-stream` unless said).
    public static func data(_ body: Data, contentType: String = "application/octet-stream", status: Int = 200) -> Response {
        Response(raw: ["status": .int(status), "base64Body": .string(body.base64EncodedString())]).withHeader("Content-Type", contentType)
    }
    /// A body file: the scope's own (`UnderstudyScope.putFile`), else the shared one under the
    /// server's `__files/` (`Understudy.putFile`).
    public static func file(_ name: String, status: Int = 200) -> Response {
        Response(raw: ["status": .int(status), "bodyFileName": .string(name)])
    }
    /// A broken connection instead of an answer.
    public static func fault(_ fault: Fault) -> Response { Response(raw: ["fault": .string(fault.rawValue)]) }

    public enum Fault: String, Sendable {
        case connectionResetByPeer = "CONNECTION_RESET_BY_PEER"
        case emptyResponse = "EMPTY_RESPONSE"
        case malformedResponseChunk = "MALFORMED_RESPONSE_CHUNK"
        case randomDataThenClose = "RANDOM_DATA_THEN_CLOSE"
    }

    public func withHeader(_ name: String, _ value: String) -> Response {
        with("headers", (members["headers"] ?? .object([:])).with(name, .string(value)))
    }
    public func withStatus(_ status: Int) -> Response { with("status", .int(status)) }
    /// Answered after `delay` (a timer on the server; its threads are not held).
    public func delayed(by delay: Duration) -> Response {
        let (seconds, attoseconds) = delay.components
        return with("fixedDelayMilliseconds", .int(Int(seconds) * 1000 + Int(attoseconds / 1_000_000_000_000_000)))
    }
    /// The body and headers are Handlebars templates (`{{request.path.[1]}}`, `{{jsonPath request.body '$.id'}}`).
    public func templated() -> Response { with("transformers", ["response-template"]) }
    /// Any other field of WireMock's response definition, as JSON.
    public func with(_ field: String, _ value: JSONValue) -> Response {
        var copy = self
        copy.members[field] = value
        return copy
    }

    public var json: JSONValue { .object(members) }
}

/// A step of a scenario: its name, the state it answers in, the state it moves to.
struct ScenarioStep: Sendable, Hashable {
    let name: String
    let required: String?
    let next: String?
}

/// A stub mapping: a request pattern and its answer, with an id to remove it by.
public struct Stub: Sendable, Hashable {
    public let id: UUID
    public let request: RequestPattern
    public let response: Response
    private var members: [String: JSONValue] = [:]

    public init(_ request: RequestPattern, _ response: Response, id: UUID = UUID()) {
        (self.request, self.response, self.id) = (request, response, id)
    }

    /// 1 is the highest; a stub without one has WireMock's default, 5.
    public func atPriority(_ priority: Int) -> Stub { with("priority", .int(priority)) }
    public func named(_ name: String) -> Stub { with("name", .string(name)) }
    /// A step of scenario `name`: answers only in state `required` (when given), then moves the
    /// scenario to `next` (when given). Every scenario starts in `Scenario.started`.
    public func inScenario(_ name: String, whenState required: String? = nil, willSetStateTo next: String? = nil) -> Stub {
        var copy = with("scenarioName", .string(name))
        if let required { copy = copy.with("requiredScenarioState", .string(required)) }
        if let next { copy = copy.with("newScenarioState", .string(next)) }
        return copy
    }
    /// Any other field of WireMock's stub mapping, as JSON (`metadata`, `serveEventListeners`, …).
    public func with(_ field: String, _ value: JSONValue) -> Stub {
        var copy = self
        copy.members[field] = value
        return copy
    }

    public var json: JSONValue {
        var object = members
        object["id"] = .string(id.uuidString.lowercased())
        object["request"] = request.json
        object["response"] = response.json
        return .object(object)
    }
}

public enum Scenario {
    /// The state every scenario starts in, and goes back to on a reset.
    public static let started = "Started"
}

/// So that `scope.stub(.get("/orders").willReturn(.json([])))` reads as it does: an implicit member
/// chain starts from the type expected, here `Stub`.
extension Stub {
    public static func get(_ path: String) -> RequestPattern { .get(path) }
    public static func get(_ url: URLMatch) -> RequestPattern { .get(url) }
    public static func post(_ path: String) -> RequestPattern { .post(path) }
    public static func post(_ url: URLMatch) -> RequestPattern { .post(url) }
    public static func put(_ path: String) -> RequestPattern { .put(path) }
    public static func put(_ url: URLMatch) -> RequestPattern { .put(url) }
    public static func patch(_ path: String) -> RequestPattern { .patch(path) }
    public static func patch(_ url: URLMatch) -> RequestPattern { .patch(url) }
    public static func delete(_ path: String) -> RequestPattern { .delete(path) }
    public static func delete(_ url: URLMatch) -> RequestPattern { .delete(url) }
    public static func any(_ path: String) -> RequestPattern { .any(path) }
    public static func any(_ url: URLMatch) -> RequestPattern { .any(url) }
}
