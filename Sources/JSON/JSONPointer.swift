/// RFC 6901 JSON Pointers' tokens, and the names JSON Schema gives values' types: what every
/// message that says where in a JSON value something is wrong is written with.
public enum JSONPointer {
    /// A member name as a pointer token: `~` and `/` are `~0` and `~1`.
    public static func escaped(_ name: String) -> String {
        var out = ""
        for character in name {
            switch character {
            case "~": out += "~0"
            case "/": out += "~1"
            default: out.append(character)
            }
        }
        return out
    }

    /// A pointer token as the member name it stands for.
    public static func unescaped(_ token: some StringProtocol) -> String {
        var out = ""
        var afterTilde = false
        for character in token {
            if afterTilde {
                out += character == "1" ? "/" : character == "0" ? "~" : "~\(character)"
                afterTilde = false
            } else if character == "~" {
                afterTilde = true
            } else {
                out.append(character)
            }
        }
        return afterTilde ? out + "~" : out
    }
}

extension JSONValue {
    /// The value's type as JSON Schema names it (`integer` for an int, `number` for a double).
    public var schemaTypeName: String {
        switch self {
        case .null: "null"
        case .bool: "boolean"
        case .int: "integer"
        case .double: "number"
        case .string: "string"
        case .array: "array"
        case .object: "object"
        }
    }
}
