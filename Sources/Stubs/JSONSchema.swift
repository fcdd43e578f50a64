import Foundation
import JSON
import Templating
import WorkLimits

/// WireMock 3's `matchesJsonSchema`: a JSON Schema of draft 4, 6, 7, 2019-09 or 2020-12
/// (`schemaVersion` `V4` … `V202012`, the last by default), checked when the mapping loads and
/// applied to a body (or any value) read as JSON. Every assertion keyword of those drafts is
/// applied as the draft says; `format` is an annotation (as Python's `jsonschema` has it by
/// default), and `$ref` reaches only inside the schema: a remote one is refused when the mapping
/// loads, never fetched. Not supported: `$dynamicRef`/`$recursiveRef` (refused) and
/// `contentMediaType`-style annotations (ignored, as annotations). docs/stubs.md gives the
/// agreement with Python's `jsonschema` over every keyword.
public struct JSONSchema: Sendable {
    public enum Draft: String, Sendable, CaseIterable {
        case v4 = "V4", v6 = "V6", v7 = "V7", v201909 = "V201909", v202012 = "V202012"

        var isModern: Bool { self == .v201909 || self == .v202012 }
    }

    let root: JSONValue
    let draft: Draft
    /// Every `pattern` and `patternProperties` name, compiled once (ECMA 262 read as ICU, unanchored).
    private let regexes: [String: NSRegularExpressionBox]
    /// `$anchor`s and fragment `$id`s (`#name`), to the schema they name.
    private let anchors: [String: JSONValue]
    private let rootID: String?
    /// Every `$ref` of the schema, resolved once when it loads.
    private var targets: [String: JSONValue]

    /// Evaluation steps one instance may take: a schema cannot make a request's check unbounded.
    static let stepBudget = 50_000

    init(_ schema: JSONValue, draft: Draft, field: String) throws(StubError) {
        guard schema.objectValue != nil || schema.boolValue != nil else {
            throw StubError(field: field, message: "a JSON schema is an object (or true/false)")
        }
        root = schema
        self.draft = draft
        rootID = (schema["$id"] ?? schema["id"])?.stringValue.map { $0.split(separator: "#", maxSplits: 1).first.map(String.init) ?? $0 }
        var regexes: [String: NSRegularExpressionBox] = [:]
        var anchors: [String: JSONValue] = [:]
        var refs: [(String, String)] = []
        try Self.walk(schema, field: field, draft: draft) { node, at throws(StubError) in
            for source in [node["pattern"]?.stringValue].compactMap({ $0 }) + (node["patternProperties"]?.objectValue?.map(\.0) ?? []) {
                guard regexes[source] == nil else { continue }
                guard let compiled = try? NSRegularExpression(pattern: source, options: []) else {
                    throw StubError(field: at, message: "'\(source)' is not a regular expression this server reads")
                }
                regexes[source] = NSRegularExpressionBox(expression: compiled)
            }
            // Anchors: `$anchor` from 2019-09; before, an `$id` (draft 4: `id`) of `#name`.
            if draft.isModern, let anchor = node["$anchor"]?.stringValue { anchors[anchor] = node }
            if !draft.isModern, let id = node[draft == .v4 ? "id" : "$id"]?.stringValue, id.hasPrefix("#"), id.count > 1 {
                anchors[String(id.dropFirst())] = node
            }
            if let ref = node["$ref"]?.stringValue { refs.append((ref, at + ".$ref")) }
            for keyword in ["$dynamicRef", "$recursiveRef"] where node[keyword] != nil {
                throw StubError(field: "\(at).\(keyword)", message: "\(keyword) is not supported")
            }
        }
        self.regexes = regexes
        self.anchors = anchors
        targets = [:]
        var targets: [String: JSONValue] = [:]
        for (ref, at) in refs where targets[ref] == nil {
            guard let target = resolve(ref) else {
                let local = ref.hasPrefix("#") || (rootID.map { ref.hasPrefix($0 + "#") || ref == $0 } ?? false)
                throw StubError(
                    field: at,
                    message: local
                        ? "'\(ref)' points at nothing in the schema"
                        : "'\(ref)' is outside the schema: schemas are never fetched, so put what it names under $defs")
            }
            targets[ref] = target
        }
        self.targets = targets
    }

    /// The schema `$ref` names (resolved when the schema loaded).
    fileprivate func target(of ref: String) -> JSONValue? { targets[ref] }

    /// Whether `instance` is valid; false too when the check would take more than `stepBudget`
    /// steps or the request's budget runs out.
    func validates(_ instance: JSONValue) -> Bool {
        var run = Run(schema: self)
        // A run the budget cut short may have skipped a failing check: it proves nothing.
        return run.evaluate(root, instance, depth: 0).valid && run.steps <= Self.stepBudget && !RequestBudget.isExhausted
    }

    /// The schema a `$ref` names, nil when none.
    func resolve(_ ref: String) -> JSONValue? {
        var reference = Substring(ref)
        if let rootID, reference.hasPrefix(rootID) { reference = reference.dropFirst(rootID.count) }
        if reference.isEmpty || reference == "#" { return root }
        guard reference.hasPrefix("#") else { return nil }
        let fragment = (String(reference.dropFirst()).removingPercentEncoding ?? String(reference.dropFirst()))
        guard fragment.hasPrefix("/") else { return anchors[fragment] }
        var node = root
        for token in fragment.dropFirst().split(separator: "/", omittingEmptySubsequences: false) {
            let key = token.replacingOccurrences(of: "~1", with: "/").replacingOccurrences(of: "~0", with: "~")
            if case .array(let items) = node, let index = Int(key), items.indices.contains(index) {
                node = items[index]
            } else if let child = node[key] {
                node = child
            } else {
                return nil
            }
        }
        return node
    }

    fileprivate func regex(_ source: String) -> NSRegularExpression? { regexes[source]?.expression }

    /// Calls `visit` on every subschema object, depth first, with its field path.
    private static func walk(
        _ node: JSONValue, field: String, draft: Draft,
        _ visit: (JSONValue, String) throws(StubError) -> Void
    ) throws(StubError) {
        guard let members = node.objectValue else { return }
        try visit(node, field)
        for (key, value) in members {
            let at = "\(field).\(key)"
            switch key {
            case "properties", "patternProperties", "definitions", "$defs", "dependentSchemas", "dependencies":
                for (name, child) in value.objectValue ?? [] { try walk(child, field: "\(at).\(name)", draft: draft, visit) }
            case "items", "prefixItems", "allOf", "anyOf", "oneOf":
                if case .array(let children) = value {
                    for (index, child) in children.enumerated() { try walk(child, field: "\(at)[\(index)]", draft: draft, visit) }
                } else {
                    try walk(value, field: at, draft: draft, visit)
                }
            case "additionalProperties", "additionalItems", "contains", "propertyNames", "not", "if", "then", "else",
                "unevaluatedProperties", "unevaluatedItems":
                try walk(value, field: at, draft: draft, visit)
            default:
                continue
            }
        }
    }
}

/// NSRegularExpression is thread-safe for matching but not marked Sendable.
private struct NSRegularExpressionBox: @unchecked Sendable {
    let expression: NSRegularExpression
}

/// One validation: the steps taken, and what each subschema evaluated (for `unevaluated…`).
private struct Run {
    let schema: JSONSchema
    var steps = 0

    init(schema: JSONSchema) { self.schema = schema }

    /// Where a request's budget is said to have run out.
    static let place = "matchesJsonSchema"

    struct Result {
        var valid: Bool
        var properties: Set<String> = []
        var items: Set<Int> = []

        static let pass = Result(valid: true)
        static let fail = Result(valid: false)

        mutating func absorb(_ other: Result) {
            properties.formUnion(other.properties)
            items.formUnion(other.items)
        }
    }

    mutating func evaluate(_ node: JSONValue, _ instance: JSONValue, depth: Int) -> Result {
        steps += 1
        guard steps <= JSONSchema.stepBudget, depth < 128, RequestBudget.spend(in: Self.place) else { return .fail }
        if let flag = node.boolValue { return flag ? .pass : .fail }
        guard node.objectValue != nil else { return .pass }
        let draft = schema.draft
        // Up to draft 7 a $ref stands alone: its siblings are ignored.
        if let ref = node["$ref"]?.stringValue {
            guard let target = schema.target(of: ref) else { return .fail }
            let referred = evaluate(target, instance, depth: depth + 1)
            // From 2019-09 its siblings apply too, and what it evaluated counts for `unevaluated…`.
            return draft.isModern ? evaluateKeywords(node, instance, depth: depth, after: referred) : referred
        }
        return evaluateKeywords(node, instance, depth: depth, after: .pass)
    }

    private mutating func evaluateKeywords(_ node: JSONValue, _ instance: JSONValue, depth: Int, after earlier: Result) -> Result {
        let draft = schema.draft
        var result = earlier
        func fail() { result.valid = false }

        if let type = node["type"] {
            let names = type.arrayValue?.compactMap(\.stringValue) ?? type.stringValue.map { [$0] } ?? []
            if !names.contains(where: { Self.isType(instance, $0, draft: draft) }) { fail() }
        }
        if let options = node["enum"]?.arrayValue, !options.contains(where: { Self.equal($0, instance) }) { fail() }
        if draft != .v4, let constant = node["const"], !Self.equal(constant, instance) { fail() }

        if let number = Self.number(instance) {
            checkNumber(node, number, draft: draft, fail: fail)
        }
        if case .string(let text) = instance {
            let length = text.unicodeScalars.count
            if let maximum = node["maxLength"]?.doubleValue, Double(length) > maximum { fail() }
            if let minimum = node["minLength"]?.doubleValue, Double(length) < minimum { fail() }
            if let source = node["pattern"]?.stringValue, !Self.search(schema.regex(source), text) { fail() }
        }
        if case .array(let items) = instance {
            evaluateArray(node, items, depth: depth, into: &result)
        }
        if case .object(let members) = instance {
            evaluateObject(node, members, depth: depth, into: &result)
        }

        // Combinators: what a passing branch evaluated counts as evaluated here.
        if let all = node["allOf"]?.arrayValue {
            for branch in all {
                let outcome = evaluate(branch, instance, depth: depth + 1)
                if outcome.valid { result.absorb(outcome) } else { fail() }
            }
        }
        if let any = node["anyOf"]?.arrayValue {
            var passed = false
            for branch in any {
                let outcome = evaluate(branch, instance, depth: depth + 1)
                if outcome.valid {
                    passed = true
                    result.absorb(outcome)
                }
            }
            if !passed { fail() }
        }
        if let one = node["oneOf"]?.arrayValue {
            var passes = 0
            for branch in one {
                let outcome = evaluate(branch, instance, depth: depth + 1)
                if outcome.valid {
                    passes += 1
                    result.absorb(outcome)
                }
            }
            if passes != 1 { fail() }
        }
        if let not = node["not"], evaluate(not, instance, depth: depth + 1).valid { fail() }
        if draft != .v4 && draft != .v6, let condition = node["if"] {
            let test = evaluate(condition, instance, depth: depth + 1)
            if test.valid {
                result.absorb(test)
                if let then = node["then"] {
                    let outcome = evaluate(then, instance, depth: depth + 1)
                    if outcome.valid { result.absorb(outcome) } else { fail() }
                }
            } else if let otherwise = node["else"] {
                let outcome = evaluate(otherwise, instance, depth: depth + 1)
                if outcome.valid { result.absorb(outcome) } else { fail() }
            }
        }
        if draft.isModern, let dependents = node["dependentSchemas"]?.objectValue, case .object(let members) = instance {
            let names = Set(members.map(\.0))
            for (name, dependent) in dependents where names.contains(name) {
                let outcome = evaluate(dependent, instance, depth: depth + 1)
                if outcome.valid { result.absorb(outcome) } else { fail() }
            }
        }

        // Last, as the drafts say: what nothing above evaluated.
        if draft.isModern, case .array(let items) = instance, let unevaluated = node["unevaluatedItems"] {
            for (index, item) in items.enumerated() where !result.items.contains(index) {
                if evaluate(unevaluated, item, depth: depth + 1).valid { result.items.insert(index) } else { fail() }
            }
        }
        if draft.isModern, case .object(let members) = instance, let unevaluated = node["unevaluatedProperties"] {
            for (name, value) in members where !result.properties.contains(name) {
                if evaluate(unevaluated, value, depth: depth + 1).valid { result.properties.insert(name) } else { fail() }
            }
        }
        if !result.valid {
            result.properties = []
            result.items = []
        }
        return result
    }

    private func checkNumber(_ node: JSONValue, _ number: Double, draft: JSONSchema.Draft, fail: () -> Void) {
        if let step = node["multipleOf"]?.doubleValue, step > 0 {
            let quotient = number / step
            if !quotient.isFinite || quotient != quotient.rounded(.towardZero) { fail() }
        }
        if draft == .v4 {
            // Draft 4: exclusiveMaximum/exclusiveMinimum are flags on maximum/minimum.
            if let maximum = node["maximum"]?.doubleValue {
                if node["exclusiveMaximum"]?.boolValue == true ? number >= maximum : number > maximum { fail() }
            }
            if let minimum = node["minimum"]?.doubleValue {
                if node["exclusiveMinimum"]?.boolValue == true ? number <= minimum : number < minimum { fail() }
            }
            return
        }
        if let maximum = node["maximum"]?.doubleValue, number > maximum { fail() }
        if let minimum = node["minimum"]?.doubleValue, number < minimum { fail() }
        if let maximum = node["exclusiveMaximum"]?.doubleValue, number >= maximum { fail() }
        if let minimum = node["exclusiveMinimum"]?.doubleValue, number <= minimum { fail() }
    }

    private mutating func evaluateArray(_ node: JSONValue, _ items: [JSONValue], depth: Int, into result: inout Result) {
        let draft = schema.draft
        if let maximum = node["maxItems"]?.doubleValue, Double(items.count) > maximum { result.valid = false }
        if let minimum = node["minItems"]?.doubleValue, Double(items.count) < minimum { result.valid = false }
        if node["uniqueItems"]?.boolValue == true {
            // By each item's canonical text, hashed: linear in the array's size, not quadratic.
            var seen = Set<String>(minimumCapacity: items.count)
            for item in items {
                guard let key = Self.canonicalText(item), seen.insert(key).inserted else {
                    result.valid = false
                    break
                }
            }
        }
        // Positional schemas: `prefixItems` (2020-12) or an array of `items` (earlier), then the rest.
        var prefix: [JSONValue] = []
        var rest: JSONValue?
        if draft == .v202012 {
            prefix = node["prefixItems"]?.arrayValue ?? []
            rest = node["items"]
        } else if let tuple = node["items"]?.arrayValue {
            prefix = tuple
            rest = node["additionalItems"]
        } else {
            rest = node["items"]
        }
        for (index, item) in items.enumerated() {
            let itemSchema: JSONValue? = index < prefix.count ? prefix[index] : rest
            guard let itemSchema else { continue }
            if evaluate(itemSchema, item, depth: depth + 1).valid { result.items.insert(index) } else { result.valid = false }
        }
        if draft != .v4, let contains = node["contains"] {
            var matched: [Int] = []
            for (index, item) in items.enumerated() where evaluate(contains, item, depth: depth + 1).valid { matched.append(index) }
            let minimum = draft.isModern ? (node["minContains"]?.doubleValue ?? 1) : 1
            if Double(matched.count) < minimum { result.valid = false }
            if draft.isModern, let maximum = node["maxContains"]?.doubleValue, Double(matched.count) > maximum { result.valid = false }
            // What `contains` matched counts as evaluated (as Python's jsonschema has it for 2019-09 too).
            if draft.isModern { result.items.formUnion(matched) }
        }
    }

    private mutating func evaluateObject(_ node: JSONValue, _ members: [(String, JSONValue)], depth: Int, into result: inout Result) {
        let draft = schema.draft
        let names = Set(members.map(\.0))
        if let maximum = node["maxProperties"]?.doubleValue, Double(members.count) > maximum { result.valid = false }
        if let minimum = node["minProperties"]?.doubleValue, Double(members.count) < minimum { result.valid = false }
        if let required = node["required"]?.arrayValue?.compactMap(\.stringValue), !required.allSatisfy(names.contains) {
            result.valid = false
        }
        let properties = Dictionary(node["properties"]?.objectValue ?? [], uniquingKeysWith: { _, last in last })
        let patterns = node["patternProperties"]?.objectValue ?? []
        for (name, value) in members {
            var covered = false
            if let property = properties[name] {
                covered = true
                if !evaluate(property, value, depth: depth + 1).valid { result.valid = false }
            }
            for (source, patternSchema) in patterns where Self.search(schema.regex(source), name) {
                covered = true
                if !evaluate(patternSchema, value, depth: depth + 1).valid { result.valid = false }
            }
            if !covered, let additional = node["additionalProperties"] {
                covered = true
                if !evaluate(additional, value, depth: depth + 1).valid { result.valid = false }
            }
            if covered { result.properties.insert(name) }
        }
        if draft != .v4, let nameSchema = node["propertyNames"] {
            for name in names where !evaluate(nameSchema, .string(name), depth: depth + 1).valid { result.valid = false }
        }
        if !draft.isModern, let dependencies = node["dependencies"]?.objectValue {
            for (name, dependency) in dependencies where names.contains(name) {
                if let needed = dependency.arrayValue {
                    if !needed.compactMap(\.stringValue).allSatisfy(names.contains) { result.valid = false }
                } else if !evaluate(dependency, .object(members), depth: depth + 1).valid {
                    result.valid = false
                }
            }
        }
        if draft.isModern, let dependents = node["dependentRequired"]?.objectValue {
            for (name, needed) in dependents where names.contains(name) {
                if !(needed.arrayValue?.compactMap(\.stringValue) ?? []).allSatisfy(names.contains) { result.valid = false }
            }
        }
    }

    // MARK: Values

    static func isType(_ value: JSONValue, _ name: String, draft: JSONSchema.Draft) -> Bool {
        switch (name, value) {
        case ("null", .null), ("boolean", .bool), ("string", .string), ("array", .array), ("object", .object): return true
        case ("number", .int), ("number", .double): return true
        case ("integer", .int): return true
        // From draft 6 a number with a zero fraction is an integer (1.0); in draft 4 it is not.
        case ("integer", .double(let number)): return draft != .v4 && number.isFinite && number == number.rounded()
        default: return false
        }
    }

    static func number(_ value: JSONValue) -> Double? {
        switch value {
        case .int(let number): Double(number)
        case .double(let number): number
        default: nil
        }
    }

    /// JSON equality as the drafts define it: numbers by value (1 == 1.0), objects by members in
    /// any order (found by hashing, so that comparing large objects stays linear). False when the
    /// request's budget runs out.
    static func equal(_ left: JSONValue, _ right: JSONValue) -> Bool {
        guard RequestBudget.spend(in: place) else { return false }
        if let a = number(left), let b = number(right) { return a == b }
        switch (left, right) {
        case (.array(let a), .array(let b)): return a.count == b.count && zip(a, b).allSatisfy { equal($0, $1) }
        case (.object(let a), .object(let b)):
            guard a.count == b.count else { return false }
            // Keys are unique in a parsed object (the last of duplicates wins).
            let others = Dictionary(b, uniquingKeysWith: { _, last in last })
            return a.allSatisfy { key, value in others[key].map { equal(value, $0) } ?? false }
        default: return left == right
        }
    }

    /// Text that two values share exactly when `equal` holds for them: numbers as doubles, object
    /// members sorted by key. nil when the request's budget runs out.
    static func canonicalText(_ value: JSONValue) -> String? {
        var text = ""
        return appendCanonical(value, to: &text) ? text : nil
    }

    private static func appendCanonical(_ value: JSONValue, to text: inout String) -> Bool {
        guard RequestBudget.spend(in: place) else { return false }
        switch value {
        case .int, .double:
            // -0 equals 0.
            let number = number(value) ?? 0
            text += number == 0 ? "0.0" : String(number)
        case .array(let items):
            text += "["
            for item in items {
                guard appendCanonical(item, to: &text) else { return false }
                text += ","
            }
            text += "]"
        case .object(let members):
            text += "{"
            for (key, member) in members.sorted(by: { $0.0 < $1.0 }) {
                text += JSONValue.string(key).serialized + ":"
                guard appendCanonical(member, to: &text) else { return false }
                text += ","
            }
            text += "}"
        default:
            text += value.serialized
        }
        return true
    }

    /// A pattern matches anywhere in the text (JSON Schema patterns are not anchored); one that
    /// gives up (too slow to say) does not match.
    static func search(_ expression: NSRegularExpression?, _ text: String) -> Bool {
        guard let expression else { return false }
        if case .matched = expression.firstMatch(in: text, for: place) { return true }
        return false
    }
}
