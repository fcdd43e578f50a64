import HTTPServer
import JSON
import MockCore
import Synchronization

/// WireMock's global settings (`/__admin/settings`): `fixedDelay` and `delayDistribution` for
/// every stub answer whose mapping sets none of its own, and `extended` values kept for clients.
/// One per server, shared by the engines that answer stubs.
public final class GlobalSettings: Sendable {
    /// The delay a stub answer gets when its mapping names none.
    struct Delay: Sendable {
        var fixed: Duration?
        var distribution: ResponseDefinition.DelayDistribution?
    }

    private struct Contents {
        var fields: [(String, JSONValue)] = []
        var delay: Delay?
    }

    private let contents = Locked(Contents())
    /// Lets the request path skip the lock while no global delay is set (the usual case).
    private let hasDelay = Atomic(false)

    public init() {}

    var delay: Delay? {
        guard hasDelay.load(ordering: .relaxed) else { return nil }
        return contents.withLock { $0.delay }
    }

    /// `{"settings": {…}}`, as given.
    public var json: JSONValue {
        .object([("settings", .object(contents.withLock { $0.fields }))])
    }

    /// Replaces every setting (`POST`), or (`merging`, for `PATCH`) only those given. The body is
    /// the settings or `{"settings": …}`; nothing changes when a field is wrong.
    func update(_ body: JSONValue, merging: Bool) throws(StubError) {
        let given = body["settings"] ?? body
        guard let fields = given.objectValue else { throw StubError(field: "", message: "expected {\"fixedDelay\": ms, …} or {\"settings\": {…}}") }
        var merged = merging ? contents.withLock { $0.fields } : []
        for (name, value) in fields {
            merged.removeAll { $0.0 == name }
            if value != .null { merged.append((name, value)) }
        }
        var delay = Delay()
        for (name, value) in merged {
            switch name {
            case "fixedDelay":
                guard let milliseconds = value.intValue, milliseconds >= 0 else {
                    throw StubError(field: name, message: "expected a whole number of milliseconds ≥ 0")
                }
                delay.fixed = .milliseconds(milliseconds)
            case "delayDistribution":
                delay.distribution = try ResponseDefinition.parseDistribution(value, field: name)
            case "extended":
                guard value.objectValue != nil else { throw StubError(field: name, message: "expected an object") }
            case "proxyPassThrough":
                guard value.boolValue != nil else { throw StubError(field: name, message: "expected true or false") }
            default:
                throw StubError(field: name, message: "unknown setting (known: fixedDelay, delayDistribution, extended, proxyPassThrough)")
            }
        }
        let active = delay.fixed != nil || delay.distribution != nil
        contents.withLock { $0 = Contents(fields: merged, delay: active ? delay : nil) }
        hasDelay.store(active, ordering: .relaxed)
    }
}
