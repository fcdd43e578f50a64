import ContractValidation
import Foundation
import JSON

/// A value a schema accepts, made up when a document gives no example: `example`/`examples`,
/// `default`, `const` or the first `enum` value when the schema has one; else by type, within
/// `minimum`/`maximum`, `minLength`/`maxLength` and `minItems`, in the `format`'s shape; every
/// `required` property and the others down to a depth; `allOf` merged, the first branch of
/// `oneOf`/`anyOf` that the whole schema accepts. A `pattern` is not reversed: a string under one
/// comes from an example or stays a plain word (which the caller checks).
struct SchemaSample {
    let document: JSONValue
    /// References followed on the way down, against recursion.
    private var depth = 0

    init(document: JSONValue) { self.document = document }

    static let maxDepth = 12

    mutating func value(for schema: JSONValue) -> JSONValue {
        depth += 1
        defer { depth -= 1 }
        guard depth < Self.maxDepth else { return .null }
        if let ref = schema["$ref"]?.stringValue {
            guard let target = SpecPointer.node(at: ref, in: document) else { return .null }
            return value(for: target)
        }
        if let example = schema["example"] ?? schema["examples"]?.arrayValue?.first { return example }
        if let given = schema["default"] ?? schema["const"] ?? schema["enum"]?.arrayValue?.first { return given }
        if let all = schema["allOf"]?.arrayValue {
            var merged: [(String, JSONValue)] = []
            for branch in all {
                let part = value(for: branch)
                guard case .object(let members) = part else { return part }
                for (key, member) in members where !merged.contains(where: { $0.0 == key }) { merged.append((key, member)) }
            }
            let own = schema["properties"] != nil ? ownObject(schema) : []
            return .object(merged + own.filter { key, _ in !merged.contains { $0.0 == key } })
        }
        if let branches = (schema["oneOf"] ?? schema["anyOf"])?.arrayValue, let first = branches.first {
            return value(for: first)
        }
        switch primaryType(of: schema) {
        case "object": return .object(ownObject(schema))
        case "array":
            let count = max(1, schema["minItems"]?.intValue ?? 1)
            guard let items = schema["items"], schema["maxItems"]?.intValue != 0 else { return .array([]) }
            return .array((0..<min(count, 3)).map { _ in value(for: items) })
        case "integer": return .int(integer(schema))
        case "number": return number(schema)
        case "boolean": return .bool(true)
        case "null": return .null
        case "string": return .string(string(schema))
        default: return schema["properties"] != nil ? .object(ownObject(schema)) : .string("string")
        }
    }

    /// The first type other than null (`type: [string, "null"]`).
    private func primaryType(of schema: JSONValue) -> String? {
        if let name = schema["type"]?.stringValue { return name }
        return schema["type"]?.arrayValue?.compactMap(\.stringValue).first { $0 != "null" } ?? schema["type"]?.arrayValue?.first?.stringValue
    }

    /// Every required property, and the others while not deep.
    private mutating func ownObject(_ schema: JSONValue) -> [(String, JSONValue)] {
        let required = Set(schema["required"]?.arrayValue?.compactMap(\.stringValue) ?? [])
        var members: [(String, JSONValue)] = []
        for (name, property) in schema["properties"]?.objectValue ?? [] where required.contains(name) || depth < 4 {
            members.append((name, value(for: property)))
        }
        for name in required where !members.contains(where: { $0.0 == name }) { members.append((name, .string(name))) }
        return members
    }

    private func integer(_ schema: JSONValue) -> Int {
        var low = schema["minimum"]?.doubleValue.map { Int($0.rounded(.up)) } ?? 1
        if let exclusive = schema["exclusiveMinimum"]?.doubleValue { low = max(low, Int(exclusive.rounded(.down)) + 1) }
        if let step = schema["multipleOf"]?.intValue, step > 0 { low = ((low + step - 1) / step) * step }
        if let maximum = schema["maximum"]?.doubleValue, Double(low) > maximum { return Int(maximum.rounded(.down)) }
        return low
    }

    private func number(_ schema: JSONValue) -> JSONValue {
        if let step = schema["multipleOf"]?.doubleValue, step > 0 {
            return .double(step * ((schema["minimum"]?.doubleValue ?? step) / step).rounded(.up))
        }
        if let minimum = schema["minimum"]?.doubleValue { return .double(minimum) }
        if let minimum = schema["exclusiveMinimum"]?.doubleValue { return .double(minimum + 0.5) }
        if let maximum = schema["maximum"]?.doubleValue ?? schema["exclusiveMaximum"]?.doubleValue, maximum < 1.5 { return .double(maximum - 1) }
        return .double(1.5)
    }

    private func string(_ schema: JSONValue) -> String {
        var text: String
        switch schema["format"]?.stringValue {
        case "date-time": text = "2026-01-01T00:00:00Z"
        case "date": text = "2026-01-01"
        case "time": text = "00:00:00Z"
        case "email": text = "user@example.com"
        case "uuid": text = "00000000-0000-4000-8000-000000000000"
        case "uri", "url": text = "https://example.com/"
        case "uri-reference": text = "/example"
        case "hostname": text = "example.com"
        case "ipv4": text = "192.0.2.1"
        case "ipv6": text = "2001:db8::1"
        case "byte": text = "AA=="
        case "binary": text = "binary"
        case "password": text = "password"
        default: text = "string"
        }
        let minimum = schema["minLength"]?.intValue ?? 0
        if text.count < minimum { text += String(repeating: "x", count: minimum - text.count) }
        if let maximum = schema["maxLength"]?.intValue, text.count > maximum { text = String(text.prefix(maximum)) }
        return text
    }
}
