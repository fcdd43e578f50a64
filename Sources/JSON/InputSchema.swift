/// The admin routes' input, declared as JSON Schema (2020-12), and the check the MCP server makes
/// of a tool's arguments, which names the first place that is wrong. It reads the keywords the
/// declarations use: `type` (one name or several), `properties`,
/// `required`, `additionalProperties` (false), `items`, `enum`, `minimum`/`maximum`, `minLength`
/// and `description`. Anything else in a schema is documentation: it is kept, not checked (the
/// admin route that gets the value checks it fully). A stub's `matchesJsonSchema` is another
/// matter: Stubs' `JSONSchema` applies every keyword of five drafts (and says where a value breaks one).
public enum InputSchema {
    public static func object(
        _ description: String, _ properties: [(String, JSONValue)] = [], required: [String] = [], closed: Bool = false
    ) -> JSONValue {
        var members: [(String, JSONValue)] = [("type", "object"), ("description", .string(description))]
        if !properties.isEmpty { members.append(("properties", .object(properties))) }
        if !required.isEmpty { members.append(("required", .array(required.map { .string($0) }))) }
        if closed { members.append(("additionalProperties", false)) }
        return .object(members)
    }

    public static func string(_ description: String, oneOf values: [String] = [], minLength: Int? = nil) -> JSONValue {
        var members: [(String, JSONValue)] = [("type", "string"), ("description", .string(description))]
        if !values.isEmpty { members.append(("enum", .array(values.map { .string($0) }))) }
        if let minLength { members.append(("minLength", .int(minLength))) }
        return .object(members)
    }

    public static func integer(_ description: String, minimum: Int? = nil, maximum: Int? = nil) -> JSONValue {
        var members: [(String, JSONValue)] = [("type", "integer"), ("description", .string(description))]
        if let minimum { members.append(("minimum", .int(minimum))) }
        if let maximum { members.append(("maximum", .int(maximum))) }
        return .object(members)
    }

    public static func number(_ description: String, minimum: Int? = nil, maximum: Int? = nil) -> JSONValue {
        var members: [(String, JSONValue)] = [("type", "number"), ("description", .string(description))]
        if let minimum { members.append(("minimum", .int(minimum))) }
        if let maximum { members.append(("maximum", .int(maximum))) }
        return .object(members)
    }

    public static func boolean(_ description: String) -> JSONValue {
        .object([("type", "boolean"), ("description", .string(description))])
    }

    public static func array(of items: JSONValue, _ description: String) -> JSONValue {
        .object([("type", "array"), ("description", .string(description)), ("items", items)])
    }

    /// Any JSON value (a WireMock content pattern's operand, a message body).
    public static func any(_ description: String) -> JSONValue { .object([("description", .string(description))]) }

    /// The first place where `value` breaks `schema`, as "/pointer: what is wrong" (the pointer
    /// is RFC 6901's; `root` names the value itself); nil when it conforms. Walks at most as deep
    /// as the schema, so a deep value costs no more than the schema allows.
    public static func violation(of schema: JSONValue, by value: JSONValue, root: String = "the value", at pointer: String = "") -> String? {
        let place = pointer.isEmpty ? root : pointer
        if let types = schema["type"] {
            let names = types.arrayValue?.compactMap(\.stringValue) ?? types.stringValue.map { [$0] } ?? []
            guard names.contains(where: { conforms(value, to: $0) }) else {
                return "\(place): expected \(names.joined(separator: " or ")), got \(value.schemaTypeName)"
            }
        }
        if let allowed = schema["enum"]?.arrayValue, !allowed.contains(value) {
            return "\(place): must be one of \(allowed.map(\.serialized).joined(separator: ", "))"
        }
        if let number = value.doubleValue {
            if let minimum = schema["minimum"], let least = minimum.doubleValue, number < least {
                return "\(place): must be at least \(minimum.serialized)"
            }
            if let maximum = schema["maximum"], let most = maximum.doubleValue, number > most {
                return "\(place): must be at most \(maximum.serialized)"
            }
        }
        if let text = value.stringValue, let least = schema["minLength"]?.intValue, text.count < least {
            return "\(place): must have at least \(least) character\(least == 1 ? "" : "s")"
        }
        if let members = value.objectValue {
            let properties = schema["properties"]?.objectValue ?? []
            for name in schema["required"]?.arrayValue?.compactMap(\.stringValue) ?? [] where value[name] == nil {
                return "\(place): \(name) is required"
            }
            for (name, member) in members {
                let inner = pointer + "/" + JSONPointer.escaped(name)
                if let property = properties.first(where: { $0.0 == name })?.1 {
                    if let problem = violation(of: property, by: member, root: root, at: inner) { return problem }
                } else if schema["additionalProperties"] == false {
                    let known = properties.map(\.0).joined(separator: ", ")
                    return "\(inner): unknown property \(name)" + (known.isEmpty ? "" : " (known: \(known))")
                }
            }
        }
        if let elements = value.arrayValue, let items = schema["items"] {
            for (index, element) in elements.enumerated() {
                if let problem = violation(of: items, by: element, root: root, at: pointer + "/\(index)") { return problem }
            }
        }
        return nil
    }

    private static func conforms(_ value: JSONValue, to type: String) -> Bool {
        switch (type, value) {
        case ("object", .object), ("array", .array), ("string", .string), ("boolean", .bool), ("null", .null), ("integer", .int): true
        case ("number", .int), ("number", .double): true
        case ("integer", .double(let number)): number.rounded() == number
        default: false
        }
    }
}
