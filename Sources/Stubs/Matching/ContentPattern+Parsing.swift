import Foundation
import JSON
import MockCore

extension ContentPattern {
    /// Reads a pattern object such as `{"equalTo": "en", "caseInsensitive": true}`.
    static func parse(_ json: JSONValue, field: String) throws(StubError) -> ContentPattern {
        guard let members = json.objectValue else {
            throw StubError(field: field, message: "expected a pattern object such as {\"equalTo\": \"…\"}")
        }
        func string(_ key: String) throws(StubError) -> String {
            guard let value = json[key] else { throw StubError(field: field, message: "missing \(key)") }
            if let text = value.stringValue { return text }
            // WireMock refuses a number as much as a null (422), in its words.
            throw StubError(field: "\(field).\(key)", message: "\(key) operand must be a non-null string")
        }
        func regex(_ key: String) throws(StubError) -> Regex {
            let source = try string(key)
            do { return try Regex(source) } catch {
                throw StubError(field: "\(field).\(key)", message: "invalid regular expression '\(source)'")
            }
        }
        let flag = { (key: String) in json[key]?.boolValue ?? false }

        for (key, value) in members {
            switch key {
            case "equalTo": return .equalTo(try string(key), caseInsensitive: flag("caseInsensitive"))
            case "contains": return .contains(try string(key))
            case "doesNotContain": return .doesNotContain(try string(key))
            case "matches": return .matches(try regex(key))
            case "doesNotMatch": return .doesNotMatch(try regex(key))
            case "absent": return value.boolValue == false ? .not(.absent) : .absent
            case "binaryEqualTo":
                guard let bytes = Data(base64Encoded: try string(key)) else {
                    throw StubError(field: "\(field).binaryEqualTo", message: "expected base64")
                }
                return .binaryEqualTo(Array(bytes))
            case "equalToJson":
                // Either the JSON itself or a string holding it.
                var expected = value
                if let text = value.stringValue {
                    do { expected = try JSONValue.parse(text) } catch {
                        throw StubError(field: "\(field).equalToJson", message: "not JSON: \(error)")
                    }
                }
                return .equalToJson(expected, ignoreArrayOrder: flag("ignoreArrayOrder"), ignoreExtraElements: flag("ignoreExtraElements"))
            case "matchesJsonPath":
                if let expression = value.stringValue {
                    return .matchesJsonPath(try JSONPath.parse(expression, field: "\(field).matchesJsonPath"), nested: nil)
                }
                guard let expression = value["expression"]?.stringValue else {
                    throw StubError(field: "\(field).matchesJsonPath", message: "expected a path or {\"expression\": …}")
                }
                let inner = try Self.parse(.object((value.objectValue ?? []).filter { $0.0 != "expression" }), field: "\(field).matchesJsonPath")
                return .matchesJsonPath(try JSONPath.parse(expression, field: "\(field).matchesJsonPath"), nested: inner)
            case "matchesJsonSchema":
                // WireMock writes the schema as a string of JSON; 3.x also takes it as JSON.
                var schema = value
                if let text = value.stringValue {
                    do { schema = try JSONValue.parse(text) } catch {
                        throw StubError(field: "\(field).matchesJsonSchema", message: "not JSON: \(error)")
                    }
                }
                let versionName = json["schemaVersion"]?.stringValue ?? JSONSchema.Draft.v202012.rawValue
                guard let draft = JSONSchema.Draft(rawValue: versionName.uppercased()) else {
                    let known = JSONSchema.Draft.allCases.map(\.rawValue).joined(separator: ", ")
                    throw StubError(field: "\(field).schemaVersion", message: "'\(versionName)' is not one of \(known)")
                }
                // WireMock's validator (networknt 1.5) refuses `id` after draft 4 ("No suitable validator for id").
                if draft != .v4, schema["id"] != nil { return .invalidJsonSchema(reason: "No suitable validator for id") }
                do throws(StubError) {
                    return .matchesJsonSchema(try JSONSchema(schema, draft: draft, field: "\(field).matchesJsonSchema"))
                } catch {
                    let place = error.field.components(separatedBy: ".matchesJsonSchema").last ?? ""
                    return .invalidJsonSchema(reason: place.isEmpty ? error.message : "\(place.dropFirst()): \(error.message)")
                }
            case "equalToXml":
                var options = EqualToXmlOptions()
                if let ignore = json["ignoreOrderOfSameNode"] {
                    guard let flag = ignore.boolValue else {
                        throw StubError(field: "\(field).ignoreOrderOfSameNode", message: "expected true or false")
                    }
                    options.ignoreOrderOfSameNode = flag
                }
                if let awareness = json["namespaceAwareness"] {
                    guard let name = awareness.stringValue, let mode = EqualToXmlOptions.NamespaceAwareness(rawValue: name) else {
                        let known = EqualToXmlOptions.NamespaceAwareness.allCases.map(\.rawValue).joined(separator: ", ")
                        throw StubError(field: "\(field).namespaceAwareness", message: "expected one of \(known)")
                    }
                    options.namespaceAwareness = mode
                }
                let expected = try string(key)
                try XMLComparison.checkExpected(expected, options, field: "\(field).equalToXml")
                return .equalToXml(expected, options)
            case "matchesXPath":
                var namespaces: [String: String] = [:]
                for (prefix, uri) in json["xPathNamespaces"]?.objectValue ?? [] { namespaces[prefix] = uri.stringValue ?? "" }
                if let expression = value.stringValue { return .matchesXPath(expression, namespaces: namespaces, nested: nil) }
                guard let expression = value["expression"]?.stringValue else {
                    throw StubError(field: "\(field).matchesXPath", message: "expected an XPath or {\"expression\": …}")
                }
                let inner = try Self.parse(.object((value.objectValue ?? []).filter { $0.0 != "expression" }), field: "\(field).matchesXPath")
                return .matchesXPath(expression, namespaces: namespaces, nested: inner)
            case "before": return .dateTime(try DateTimePattern.parse(json, comparison: .before, field: field))
            case "after": return .dateTime(try DateTimePattern.parse(json, comparison: .after, field: field))
            case "equalToDateTime": return .dateTime(try DateTimePattern.parse(json, comparison: .equalToDateTime, field: field))
            case _ where NumberPattern.Comparison(rawValue: key) != nil:
                return .number(try NumberPattern.parse(NumberPattern.Comparison(rawValue: key)!, value, field: field))
            case "not": return .not(try parse(value, field: "\(field).not"))
            case "and", "or":
                guard let items = value.arrayValue else { throw StubError(field: "\(field).\(key)", message: "expected an array of patterns") }
                var patterns: [ContentPattern] = []
                for (index, item) in items.enumerated() { patterns.append(try parse(item, field: "\(field).\(key)[\(index)]")) }
                return key == "and" ? .and(patterns) : .or(patterns)
            default:
                continue
            }
        }
        let known =
            "equalTo, contains, doesNotContain, matches, doesNotMatch, absent, binaryEqualTo, equalToJson, matchesJsonPath, matchesJsonSchema, equalToXml, matchesXPath, before, after, equalToDateTime, equalToNumber, greaterThanNumber, greaterThanEqualNumber, lessThanNumber, lessThanEqualNumber, not, and, or"
        throw StubError(field: field, message: "no supported operator in \(json.serialized) (supported: \(known))")
    }
}
