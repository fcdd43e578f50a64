import JSON

/// OpenAPI 3.0's schemas in the JSON Schema 2020-12 terms the validator applies: `nullable: true`
/// adds `null` to the type (and to an `enum`), and the boolean `exclusiveMinimum`/
/// `exclusiveMaximum` of draft 4 become the numeric bounds they qualify. (3.1's schemas are
/// 2020-12 already.) Applied to every object of the document: a member named `nullable` whose
/// value is not `true` (a property schema so named) is left alone.
public enum Dialect30 {
    public static func normalized(_ node: JSONValue) -> JSONValue {
        switch node {
        case .array(let items): return .array(items.map(normalized))
        case .object(let members): return normalizedSchema(members.map { ($0.0, normalized($0.1)) })
        default: return node
        }
    }

    private static func normalizedSchema(_ members: [(String, JSONValue)]) -> JSONValue {
        var members = members
        func value(_ key: String) -> JSONValue? { members.first { $0.0 == key }?.1 }
        func set(_ key: String, _ value: JSONValue?) {
            members.removeAll { $0.0 == key }
            if let value { members.append((key, value)) }
        }
        for (flag, bound) in [("exclusiveMinimum", "minimum"), ("exclusiveMaximum", "maximum")] {
            guard case .bool(let exclusive)? = value(flag) else { continue }
            if exclusive, let limit = value(bound) {
                set(flag, limit)
                set(bound, nil)
            } else {
                set(flag, nil)
            }
        }
        guard value("nullable") == .bool(true) else { return .object(members) }
        set("nullable", nil)
        if let enumeration = value("enum")?.arrayValue, !enumeration.contains(.null) { set("enum", .array(enumeration + [.null])) }
        switch value("type") {
        case .string(let name)?: set("type", .array([.string(name), "null"]))
        case .array(let names)? where !names.contains("null"): set("type", .array(names + ["null"]))
        case nil: return .object([("anyOf", .array([.object([("type", "null")]), .object(members)]))])
        default: break
        }
        return .object(members)
    }
}
