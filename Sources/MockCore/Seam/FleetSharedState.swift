import JSON

/// State the `default` scope's admin calls make that every replica of a team server shares (the
/// stub engine's admin-made mappings and its settings): a replica that starts later takes it from
/// a peer before it reports healthy.
public protocol FleetSharedState {
    /// The key of this backend's part of `GET /__admin/fleet/shared`.
    var name: String { get }
    func sharedState() -> JSONValue
    /// Takes a peer's `sharedState()`; returns what could not be taken.
    func adopt(sharedState: JSONValue) -> [String]
}
