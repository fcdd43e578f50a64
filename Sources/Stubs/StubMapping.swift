import Foundation
import HTTPServer
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
    /// The mapping as JSON, with its id: what the admin API returns.
    public let json: JSONValue
    /// The file it came from; nil for mappings made through the admin API.
    public var file: String?

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

    private static func parseMapping(_ json: JSONValue, in directory: StubDirectory, file: String?) throws(StubError) -> StubMapping {
        guard var members = json.objectValue else { throw StubError(field: "", message: "a mapping must be a JSON object") }
        guard let requestJSON = json["request"] else { throw StubError(field: "request", message: "missing") }
        guard let responseJSON = json["response"] else { throw StubError(field: "response", message: "missing") }
        let given = (json["id"] ?? json["uuid"])?.stringValue?.lowercased()
        if let given, UUID(uuidString: given) == nil {
            throw StubError(field: "id", message: "'\(given)' is not a UUID")
        }
        let id = given ?? UUID().uuidString.lowercased()
        if given == nil { members.insert(("id", .string(id)), at: 0) }
        let priority = json["priority"]?.intValue ?? defaultPriority
        guard priority >= 1 else { throw StubError(field: "priority", message: "must be 1 or more") }
        return StubMapping(
            id: id, name: json["name"]?.stringValue, priority: priority,
            request: try RequestPattern.parse(requestJSON), response: try ResponseDefinition.parse(responseJSON, in: directory),
            scenarioName: json["scenarioName"]?.stringValue, requiredScenarioState: json["requiredScenarioState"]?.stringValue,
            newScenarioState: json["newScenarioState"]?.stringValue, persistent: json["persistent"]?.boolValue ?? false,
            json: .object(members), file: file)
    }
}
