import Foundation
import HTTPServer
import JSON
import MockCore

/// One WireMock-format stub: a request pattern and the response it gets.
public struct StubMapping: Sendable {
    public let id: String
    public let name: String?
    /// 1 is the highest; WireMock's default is 5.
    public let priority: Int
    let request: RequestPattern
    let response: ResponseDefinition
    public let scenarioName: String?
    public let requiredScenarioState: String?
    public let newScenarioState: String?
    public let persistent: Bool
    /// Requests sent after the answer (`serveEventListeners` named `webhook`, `postServeActions`).
    let webhooks: [Webhook]
    /// The mapping as JSON, with its id: what the admin API returns.
    public let json: JSONValue
    /// The file it came from; nil for mappings made through the admin API.
    public var file: String?
    /// What loads but may not do what was meant (a key with no effect, a body file that is
    /// missing, a second URL key that WireMock ignores): logged by `serve`, shown by `check`.
    public var warnings: [StubError] = []
    /// Bytes of JSON the admin API was sent for this mapping: what a named scope's cap counts.
    public var adminBytes = 0

    public static let defaultPriority = 5

    /// The method and URL condition, e.g. `GET urlPath /bus`.
    public var summary: String { request.summary }

    /// Reads a mapping; `file` is for messages only.
    public static func parse(_ json: JSONValue, in directory: StubDirectory, file: String? = nil) throws(StubError) -> StubMapping {
        do {
            return try parseMapping(json, in: directory, file: file)
        } catch {
            var located = error
            located.file = file
            throw located
        }
    }

    /// WireMock 2.35 compared `equalToXml` as 3.12 names `namespaceAwareness: LEGACY` (element
    /// prefixes dropped): under `--wiremock-version 2` an `equalToXml` that names no awareness gets
    /// that one. Only the parsed pattern changes; the mapping's JSON stays as it was sent.
    static func legacyNamespaces(_ json: JSONValue) -> JSONValue {
        switch json {
        case .array(let items): return .array(items.map(legacyNamespaces))
        case .object(let members):
            var rewritten = members.map { ($0.0, legacyNamespaces($0.1)) }
            if members.contains(where: { $0.0 == "equalToXml" }), !members.contains(where: { $0.0 == "namespaceAwareness" }) {
                rewritten.append(("namespaceAwareness", .string(EqualToXmlOptions.NamespaceAwareness.legacy.rawValue)))
            }
            return .object(rewritten)
        default: return json
        }
    }

    /// `priority` as WireMock's Jackson reads it into an Integer: a whole number, or text that is one
    /// (`"1"`); anything else is refused, not taken as the default.
    static func priority(_ value: JSONValue?, default defaultPriority: Int) throws(StubError) -> Int {
        switch value {
        case nil, .null?: return defaultPriority
        case .int(let number)?: return number
        case .string(let text)?:
            if let number = Int(text.trimmingCharacters(in: .whitespaces)) { return number }
        case .double(let number)?:
            if let whole = Int(exactly: number) { return whole }
        default: break
        }
        throw StubError(field: "priority", message: "expected a whole number")
    }

    /// The mapping as WireMock echoes and lists it: a request of `ANY` method when it names none, a
    /// response of status 200 when it names none, and `uuid` (the id again) last.
    private static func normalised(_ members: [(String, JSONValue)], id: String) -> [(String, JSONValue)] {
        var members = members.filter { $0.0 != "uuid" }
        func change(_ key: String, _ body: (inout [(String, JSONValue)]) -> Void) {
            guard let index = members.firstIndex(where: { $0.0 == key }) else { return }
            guard var object = members[index].1.objectValue else { return }
            body(&object)
            members[index].1 = .object(object)
        }
        if !members.contains(where: { $0.0 == "request" }) { members.append(("request", .object([]))) }
        if !members.contains(where: { $0.0 == "response" }) { members.append(("response", .object([]))) }
        change("request") { request in if !request.contains(where: { $0.0 == "method" }) { request.append(("method", "ANY")) } }
        change("response") { response in if !response.contains(where: { $0.0 == "status" }) { response.insert(("status", 200), at: 0) } }
        return members + [("uuid", .string(id))]
    }

    private static func parseMapping(_ json: JSONValue, in directory: StubDirectory, file: String?) throws(StubError) -> StubMapping {
        guard var members = json.objectValue else { throw StubError(field: "", message: "a mapping must be a JSON object") }
        var warnings: [StubError] = []
        try MappingKeyCheck.check(mapping: json, warnings: &warnings)
        // As WireMock: no request matches every request, no response answers 200 with no body,
        // and an empty id asks for a new one.
        let requestJSON = json["request"] ?? .object([])
        let responseJSON = json["response"] ?? .object([])
        let given = (json["id"] ?? json["uuid"])?.stringValue?.lowercased()
        if let given, !given.isEmpty, UUID(uuidString: given) == nil {
            throw StubError(field: "id", message: "'\(given)' is not a UUID")
        }
        let id = given.flatMap { $0.isEmpty ? nil : $0 } ?? UUID().uuidString.lowercased()
        if id != given {
            members.removeAll { $0.0 == "id" || $0.0 == "uuid" }
            members.insert(("id", .string(id)), at: 0)
        }
        members = Self.normalised(members, id: id)
        let priority = try Self.priority(json["priority"], default: defaultPriority)
        guard priority >= 1 else { throw StubError(field: "priority", message: "must be 1 or more") }
        if let index = members.firstIndex(where: { $0.0 == "priority" }) { members[index].1 = .int(priority) }
        let request = try RequestPattern.parse(
            directory.wireMockVersion == .v2 ? Self.legacyNamespaces(requestJSON) : requestJSON, warnings: &warnings)
        let response = try ResponseDefinition.parse(responseJSON, in: directory, warnings: &warnings)
        let webhooks = try Webhook.parseAll(json, helpers: directory.helpers, warnings: &warnings)
        return StubMapping(
            id: id, name: json["name"]?.stringValue, priority: priority, request: request, response: response,
            scenarioName: json["scenarioName"]?.stringValue, requiredScenarioState: json["requiredScenarioState"]?.stringValue,
            newScenarioState: json["newScenarioState"]?.stringValue, persistent: json["persistent"]?.boolValue ?? false,
            webhooks: webhooks, json: .object(members), file: file, warnings: warnings)
    }
}
