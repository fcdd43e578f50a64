import JSON
import MockCore

/// A team server's replica starting later takes, from a peer, the shared mappings the admin API
/// made and the global settings (docs/team-server.md). Removals of file mappings, scenario states
/// and body files written through the API are not taken: they are the peer's own past.
extension StubAdminAPI: FleetSharedState {
    public func sharedState() -> JSONValue {
        .object([
            ("mappings", .array(engine.adminMappings.map(\.json))),
            ("settings", engine.settings.json),
        ])
    }

    public func adopt(sharedState: JSONValue) -> [String] {
        var problems: [String] = []
        for (index, item) in (sharedState["mappings"]?.arrayValue ?? []).enumerated() {
            do throws(StubError) {
                engine.add(try StubMapping.parse(item, in: engine.directory))
            } catch {
                problems.append("mappings[\(index)]: \(error)")
            }
        }
        if let settings = sharedState["settings"] {
            do throws(StubError) { try engine.settings.update(settings, merging: false) } catch { problems.append("settings: \(error)") }
        }
        return problems
    }
}
