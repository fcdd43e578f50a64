import JSON
import MockCore

/// What an agent may read without calling a tool, each the answer of an admin `GET`: the
/// scopes, the emulators' status, and a scope's journal and near misses (the default scope's at
/// a fixed address, another's through a template).
struct MCPResource {
    let uri: String
    let name: String
    let description: String
    let target: String

    static let fixed = [
        MCPResource(uri: "understudy://scopes", name: "scopes", description: "The live state scopes", target: "/__admin/scopes"),
        MCPResource(
            uri: "understudy://emulators", name: "emulators", description: "The backends: kind, mounts, readiness, fixture counts",
            target: "/__admin/backends"),
        MCPResource(
            uri: "understudy://journal", name: "journal", description: "The default scope's journal: the requests the app sent, newest first",
            target: "/__admin/requests"),
        MCPResource(
            uri: "understudy://near-misses", name: "near-misses", description: "The default scope's unmatched requests and the stubs closest to each",
            target: "/__admin/requests/unmatched/near-misses"),
    ]

    /// The per-scope resources: `understudy://scopes/NAME/journal` and `…/near-misses`.
    private static let perScope = [("journal", "/__admin/requests"), ("near-misses", "/__admin/requests/unmatched/near-misses")]

    static let templates: [JSONValue] = perScope.map { kind, _ in
        .object([
            ("uriTemplate", .string("understudy://scopes/{scope}/\(kind)")), ("name", .string("scope-\(kind)")),
            ("description", .string("A scope's \(kind == "journal" ? "journal" : "unmatched requests and their near misses")")),
            ("mimeType", "application/json"),
        ])
    }

    var listing: JSONValue {
        .object([("uri", .string(uri)), ("name", .string(name)), ("description", .string(description)), ("mimeType", "application/json")])
    }

    /// The admin call that reads `uri`; nil when it names no resource.
    static func target(of uri: String) -> String? {
        if let resource = fixed.first(where: { $0.uri == uri }) { return resource.target }
        let prefix = "understudy://scopes/"
        guard uri.hasPrefix(prefix) else { return nil }
        let parts = uri.dropFirst(prefix.count).split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let (_, target) = perScope.first(where: { $0.0 == parts[1] }),
            ScopeSelection.problem(with: String(parts[0])) == nil
        else { return nil }
        return target + "?scope=" + parts[0]
    }
}
