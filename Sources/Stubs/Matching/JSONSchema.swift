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
        try self.init(root: schema, schemas: [(schema, field)], draft: draft, walkingReferenced: false)
    }

    /// The schemas a larger document holds at `pointers` (an OpenAPI document's), checked once:
    /// their `$ref`s (`#/components/schemas/Pet`) are pointers into the whole document.
    public init(document: JSONValue, schemasAt pointers: [String], draft: Draft = .v202012) throws(StubError) {
        var schemas: [(JSONValue, String)] = []
        for pointer in pointers {
            guard let node = Self.node(at: pointer, in: document) else { throw StubError(field: pointer, message: "points at nothing") }
            schemas.append((node, pointer))
        }
        try self.init(root: document, schemas: schemas, draft: draft, walkingReferenced: true)
    }

    /// `walkingReferenced`: what `#/…` references lead to lies outside `schemas` (in a larger
    /// document) and is walked too.
    private init(root: JSONValue, schemas: [(JSONValue, String)], draft: Draft, walkingReferenced: Bool) throws(StubError) {
        self.root = root
        self.draft = draft
        rootID = (root["$id"] ?? root["id"])?.stringValue.map { $0.split(separator: "#", maxSplits: 1).first.map(String.init) ?? $0 }
        var regexes: [String: NSRegularExpressionBox] = [:]
        var anchors: [String: JSONValue] = [:]
        var refs: [(String, String)] = []
        var schemas = schemas
        var walked = Set<String>()
        var followed = 0
        while let (schema, field) = schemas.popLast() {
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
            guard walkingReferenced else { continue }
            for (ref, _) in refs[followed...] where ref.hasPrefix("#/") && walked.insert(ref).inserted {
                if let target = Self.node(at: ref, in: root) { schemas.append((target, ref)) }
            }
            followed = refs.count
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

    /// The first thing `instance` breaks in the schema at `pointer` (`#/…`, one of the document's
    /// schemas; the root by default), nil when it is valid. A check the step or request budget cut
    /// short is a violation too: it proved nothing.
    public func firstViolation(of instance: JSONValue, against pointer: String = "#") -> SchemaViolation? {
        guard let node = pointer == "#" ? root : Self.node(at: pointer, in: root) else {
            return SchemaViolation(instancePointer: "", schemaPointer: pointer, rule: "the schema is not in the document")
        }
        var run = Run(schema: self, explains: true, at: pointer)
        let result = run.evaluate(node, instance, depth: 0)
        if run.steps > Self.stepBudget || RequestBudget.isExhausted {
            return SchemaViolation(instancePointer: "", schemaPointer: pointer, rule: "not checked: the check took more work than a request may")
        }
        guard !result.valid else { return nil }
        return result.failure ?? SchemaViolation(instancePointer: "", schemaPointer: pointer, rule: "does not match the schema")
    }

    /// The schema, or the document that holds the schemas.
    public var document: JSONValue { root }

    /// The schema a `$ref` names, nil when none.
    func resolve(_ ref: String) -> JSONValue? {
        var reference = Substring(ref)
        if let rootID, reference.hasPrefix(rootID) { reference = reference.dropFirst(rootID.count) }
        if reference.isEmpty || reference == "#" { return root }
        guard reference.hasPrefix("#") else { return nil }
        let fragment = (String(reference.dropFirst()).removingPercentEncoding ?? String(reference.dropFirst()))
        guard fragment.hasPrefix("/") else { return anchors[fragment] }
        return Self.node(at: "#" + fragment, in: root)
    }

    /// The value a `#/…` JSON Pointer names in `document`, nil when none.
    public static func node(at pointer: String, in document: JSONValue) -> JSONValue? {
        guard pointer.hasPrefix("#") else { return nil }
        let fragment = pointer.dropFirst()
        if fragment.isEmpty { return document }
        guard fragment.hasPrefix("/") else { return nil }
        var node = document
        for token in fragment.dropFirst().split(separator: "/", omittingEmptySubsequences: false) {
            let key = JSONPointer.unescaped(token)
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

/// What a value breaks in a schema: where in the value, where in the schema (the keyword), and why.
public struct SchemaViolation: Sendable, Equatable {
    /// A JSON Pointer into the value ("" for the value itself, `/items/0/id`).
    public let instancePointer: String
    /// `#/…`: the failing keyword, from the schema's root or from the `$ref` that led to it.
    public let schemaPointer: String
    public let rule: String

    public init(instancePointer: String, schemaPointer: String, rule: String) {
        self.instancePointer = instancePointer
        self.schemaPointer = schemaPointer
        self.rule = rule
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
    /// Whether a failure says where (`SchemaViolation`); off for a plain yes or no, which then
    /// keeps no paths.
    let explains: Bool
    /// Where the evaluation is, as JSON Pointer tokens: in the instance, and in the schema from
    /// its root or from the `$ref` last followed (its first token that reference, `#…`).
    private var instancePath: [String] = []
    private var schemaPath: [String]

    init(schema: JSONSchema, explains: Bool = false, at base: String = "#") {
        self.schema = schema
        self.explains = explains
        schemaPath = [base]
    }

    /// Where a request's budget is said to have run out.
    static let place = "matchesJsonSchema"

    struct Result {
        var valid: Bool
        var properties: Set<String> = []
        var items: Set<Int> = []
        /// The first failure, when the run explains.
        var failure: SchemaViolation?

        static let pass = Result(valid: true)
        static let fail = Result(valid: false)

        mutating func absorb(_ other: Result) {
            properties.formUnion(other.properties)
            items.formUnion(other.items)
        }

        mutating func fail(_ violation: SchemaViolation?) {
            valid = false
            if failure == nil { failure = violation }
        }

        /// Fails as `other` failed, with its reason.
        mutating func fail(as other: Result) { fail(other.failure) }
    }

    /// A failure of `keyword` here, nil when the run does not explain.
    func violation(_ keyword: String, _ rule: @autoclosure () -> String) -> SchemaViolation? {
        guard explains else { return nil }
        return SchemaViolation(
            instancePointer: instancePath.map { "/" + JSONPointer.escaped($0) }.joined(),
            schemaPointer: schemaPath[0] + (schemaPath.dropFirst() + [keyword]).map { "/" + JSONPointer.escaped($0) }.joined(), rule: rule())
    }

    /// Evaluates the subschema at `keys` under this one against the instance's member `member`
    /// (the instance itself when nil).
    mutating func descend(
        _ keys: @autoclosure () -> [String], member: @autoclosure () -> String? = nil, _ node: JSONValue, _ instance: JSONValue, depth: Int
    ) -> Result {
        guard explains else { return evaluate(node, instance, depth: depth + 1) }
        let keys = keys()
        let member = member()
        schemaPath += keys
        if let member { instancePath.append(member) }
        defer {
            schemaPath.removeLast(keys.count)
            if member != nil { instancePath.removeLast() }
        }
        return evaluate(node, instance, depth: depth + 1)
    }

    mutating func evaluate(_ node: JSONValue, _ instance: JSONValue, depth: Int) -> Result {
        steps += 1
        guard steps <= JSONSchema.stepBudget, depth < 128, RequestBudget.spend(in: Self.place) else {
            var result = Result.fail
            result.fail(violation("", "the check took more steps than a request may"))
            return result
        }
        if let flag = node.boolValue {
            var result = Result.pass
            if !flag { result.fail(violation("", "the schema false allows nothing")) }
            return result
        }
        guard node.objectValue != nil else { return .pass }
        let draft = schema.draft
        // Up to draft 7 a $ref stands alone: its siblings are ignored.
        if let ref = node["$ref"]?.stringValue {
            guard let target = schema.target(of: ref) else { return .fail }
            // Where the reference leads, the schema's place is the reference's.
            let outer = schemaPath
            if explains { schemaPath = [ref] }
            let referred = evaluate(target, instance, depth: depth + 1)
            schemaPath = outer
            // From 2019-09 its siblings apply too, and what it evaluated counts for `unevaluated…`.
            return draft.isModern ? evaluateKeywords(node, instance, depth: depth, after: referred) : referred
        }
        return evaluateKeywords(node, instance, depth: depth, after: .pass)
    }

    private mutating func evaluateKeywords(_ node: JSONValue, _ instance: JSONValue, depth: Int, after earlier: Result) -> Result {
        let draft = schema.draft
        var result = earlier

        if let type = node["type"] {
            let names = type.arrayValue?.compactMap(\.stringValue) ?? type.stringValue.map { [$0] } ?? []
            if !names.contains(where: { Self.isType(instance, $0, draft: draft) }) {
                result.fail(violation("type", "expected \(names.joined(separator: " or ")), found \(instance.schemaTypeName)"))
            }
        }
        if let options = node["enum"]?.arrayValue, !options.contains(where: { Self.equal($0, instance) }) {
            result.fail(violation("enum", "\(Self.shortText(instance)) is not one of \(Self.shortText(.array(options)))"))
        }
        if draft != .v4, let constant = node["const"], !Self.equal(constant, instance) {
            result.fail(violation("const", "expected \(Self.shortText(constant))"))
        }

        if let number = Self.number(instance), let (keyword, rule) = checkNumber(node, number, draft: draft) {
            result.fail(violation(keyword, rule))
        }
        if case .string(let text) = instance {
            let length = text.unicodeScalars.count
            if let maximum = node["maxLength"]?.doubleValue, Double(length) > maximum {
                result.fail(violation("maxLength", "\(length) characters, more than \(Self.shortText(node["maxLength"] ?? .null))"))
            }
            if let minimum = node["minLength"]?.doubleValue, Double(length) < minimum {
                result.fail(violation("minLength", "\(length) characters, fewer than \(Self.shortText(node["minLength"] ?? .null))"))
            }
            if let source = node["pattern"]?.stringValue, !Self.search(schema.regex(source), text) {
                result.fail(violation("pattern", "does not match \(source)"))
            }
        }
        if case .array(let items) = instance {
            evaluateArray(node, items, depth: depth, into: &result)
        }
        if case .object(let members) = instance {
            evaluateObject(node, members, depth: depth, into: &result)
        }

        // Combinators: what a passing branch evaluated counts as evaluated here.
        if let all = node["allOf"]?.arrayValue {
            for (index, branch) in all.enumerated() {
                let outcome = descend(["allOf", String(index)], branch, instance, depth: depth)
                if outcome.valid { result.absorb(outcome) } else { result.fail(as: outcome) }
            }
        }
        if let any = node["anyOf"]?.arrayValue {
            var passed = false
            for (index, branch) in any.enumerated() {
                let outcome = descend(["anyOf", String(index)], branch, instance, depth: depth)
                if outcome.valid {
                    passed = true
                    result.absorb(outcome)
                }
            }
            if !passed { result.fail(violation("anyOf", "matches none of its \(any.count) schemas")) }
        }
        if let one = node["oneOf"]?.arrayValue {
            var passes = 0
            for (index, branch) in one.enumerated() {
                let outcome = descend(["oneOf", String(index)], branch, instance, depth: depth)
                if outcome.valid {
                    passes += 1
                    result.absorb(outcome)
                }
            }
            if passes != 1 { result.fail(violation("oneOf", "matches \(passes) of its \(one.count) schemas, not exactly one")) }
        }
        if let not = node["not"], descend(["not"], not, instance, depth: depth).valid {
            result.fail(violation("not", "matches the schema it must not"))
        }
        if draft != .v4 && draft != .v6, let condition = node["if"] {
            let test = descend(["if"], condition, instance, depth: depth)
            if test.valid {
                result.absorb(test)
                if let then = node["then"] {
                    let outcome = descend(["then"], then, instance, depth: depth)
                    if outcome.valid { result.absorb(outcome) } else { result.fail(as: outcome) }
                }
            } else if let otherwise = node["else"] {
                let outcome = descend(["else"], otherwise, instance, depth: depth)
                if outcome.valid { result.absorb(outcome) } else { result.fail(as: outcome) }
            }
        }
        if draft.isModern, let dependents = node["dependentSchemas"]?.objectValue, case .object(let members) = instance {
            let names = Set(members.map(\.0))
            for (name, dependent) in dependents where names.contains(name) {
                let outcome = descend(["dependentSchemas", name], dependent, instance, depth: depth)
                if outcome.valid { result.absorb(outcome) } else { result.fail(as: outcome) }
            }
        }

        // Last, as the drafts say: what nothing above evaluated.
        if draft.isModern, case .array(let items) = instance, let unevaluated = node["unevaluatedItems"] {
            for (index, item) in items.enumerated() where !result.items.contains(index) {
                let outcome = descend(["unevaluatedItems"], member: String(index), unevaluated, item, depth: depth)
                if outcome.valid { result.items.insert(index) } else { result.fail(as: outcome) }
            }
        }
        if draft.isModern, case .object(let members) = instance, let unevaluated = node["unevaluatedProperties"] {
            for (name, value) in members where !result.properties.contains(name) {
                let outcome = descend(["unevaluatedProperties"], member: name, unevaluated, value, depth: depth)
                if outcome.valid { result.properties.insert(name) } else { result.fail(as: outcome) }
            }
        }
        if !result.valid {
            result.properties = []
            result.items = []
        }
        return result
    }

    /// The first numeric keyword `number` breaks, and why.
    private func checkNumber(_ node: JSONValue, _ number: Double, draft: JSONSchema.Draft) -> (String, String)? {
        let shown = Self.shortText(number == number.rounded() && abs(number) < 1e15 ? .int(Int(number)) : .double(number))
        func text(_ keyword: String) -> String { node[keyword].map(Self.shortText) ?? "" }
        if let step = node["multipleOf"]?.doubleValue, step > 0 {
            let quotient = number / step
            if !quotient.isFinite || quotient != quotient.rounded(.towardZero) {
                return ("multipleOf", "\(shown) is not a multiple of \(text("multipleOf"))")
            }
        }
        if draft == .v4 {
            // Draft 4: exclusiveMaximum/exclusiveMinimum are flags on maximum/minimum.
            if let maximum = node["maximum"]?.doubleValue {
                let exclusive = node["exclusiveMaximum"]?.boolValue == true
                if exclusive ? number >= maximum : number > maximum { return ("maximum", "\(shown) is above the maximum \(text("maximum"))") }
            }
            if let minimum = node["minimum"]?.doubleValue {
                let exclusive = node["exclusiveMinimum"]?.boolValue == true
                if exclusive ? number <= minimum : number < minimum { return ("minimum", "\(shown) is below the minimum \(text("minimum"))") }
            }
            return nil
        }
        if let maximum = node["maximum"]?.doubleValue, number > maximum { return ("maximum", "\(shown) is above the maximum \(text("maximum"))") }
        if let minimum = node["minimum"]?.doubleValue, number < minimum { return ("minimum", "\(shown) is below the minimum \(text("minimum"))") }
        if let maximum = node["exclusiveMaximum"]?.doubleValue, number >= maximum {
            return ("exclusiveMaximum", "\(shown) is not below \(text("exclusiveMaximum"))")
        }
        if let minimum = node["exclusiveMinimum"]?.doubleValue, number <= minimum {
            return ("exclusiveMinimum", "\(shown) is not above \(text("exclusiveMinimum"))")
        }
        return nil
    }

    private mutating func evaluateArray(_ node: JSONValue, _ items: [JSONValue], depth: Int, into result: inout Result) {
        let draft = schema.draft
        if let maximum = node["maxItems"]?.doubleValue, Double(items.count) > maximum {
            result.fail(violation("maxItems", "\(items.count) items, more than \(Int(maximum))"))
        }
        if let minimum = node["minItems"]?.doubleValue, Double(items.count) < minimum {
            result.fail(violation("minItems", "\(items.count) items, fewer than \(Int(minimum))"))
        }
        if node["uniqueItems"]?.boolValue == true {
            // By each item's canonical text, hashed: linear in the array's size, not quadratic.
            var seen = Set<String>(minimumCapacity: items.count)
            for item in items {
                guard let key = Self.canonicalText(item), seen.insert(key).inserted else {
                    result.fail(violation("uniqueItems", "items repeat"))
                    break
                }
            }
        }
        // Positional schemas: `prefixItems` (2020-12) or an array of `items` (earlier), then the rest.
        var prefix: [JSONValue] = []
        var prefixKeyword = "items"
        var rest: JSONValue?
        var restKeyword = "items"
        if draft == .v202012 {
            prefix = node["prefixItems"]?.arrayValue ?? []
            prefixKeyword = "prefixItems"
            rest = node["items"]
        } else if let tuple = node["items"]?.arrayValue {
            prefix = tuple
            rest = node["additionalItems"]
            restKeyword = "additionalItems"
        } else {
            rest = node["items"]
        }
        for (index, item) in items.enumerated() {
            let keys = index < prefix.count ? [prefixKeyword, String(index)] : [restKeyword]
            guard let itemSchema = index < prefix.count ? prefix[index] : rest else { continue }
            let outcome = descend(keys, member: String(index), itemSchema, item, depth: depth)
            if outcome.valid { result.items.insert(index) } else { result.fail(as: outcome) }
        }
        if draft != .v4, let contains = node["contains"] {
            var matched: [Int] = []
            for (index, item) in items.enumerated() where evaluate(contains, item, depth: depth + 1).valid { matched.append(index) }
            let minimum = draft.isModern ? (node["minContains"]?.doubleValue ?? 1) : 1
            if Double(matched.count) < minimum { result.fail(violation("contains", "\(matched.count) items match it, fewer than \(Int(minimum))")) }
            if draft.isModern, let maximum = node["maxContains"]?.doubleValue, Double(matched.count) > maximum {
                result.fail(violation("maxContains", "\(matched.count) items match contains, more than \(Int(maximum))"))
            }
            // What `contains` matched counts as evaluated (as Python's jsonschema has it for 2019-09 too).
            if draft.isModern { result.items.formUnion(matched) }
        }
    }

    private mutating func evaluateObject(_ node: JSONValue, _ members: [(String, JSONValue)], depth: Int, into result: inout Result) {
        let draft = schema.draft
        let names = Set(members.map(\.0))
        if let maximum = node["maxProperties"]?.doubleValue, Double(members.count) > maximum {
            result.fail(violation("maxProperties", "\(members.count) members, more than \(Int(maximum))"))
        }
        if let minimum = node["minProperties"]?.doubleValue, Double(members.count) < minimum {
            result.fail(violation("minProperties", "\(members.count) members, fewer than \(Int(minimum))"))
        }
        if let required = node["required"]?.arrayValue?.compactMap(\.stringValue), let missing = required.first(where: { !names.contains($0) }) {
            result.fail(violation("required", "'\(missing)' is missing"))
        }
        let properties = Dictionary(node["properties"]?.objectValue ?? [], uniquingKeysWith: { _, last in last })
        let patterns = node["patternProperties"]?.objectValue ?? []
        for (name, value) in members {
            var covered = false
            if let property = properties[name] {
                covered = true
                let outcome = descend(["properties", name], member: name, property, value, depth: depth)
                if !outcome.valid { result.fail(as: outcome) }
            }
            for (source, patternSchema) in patterns where Self.search(schema.regex(source), name) {
                covered = true
                let outcome = descend(["patternProperties", source], member: name, patternSchema, value, depth: depth)
                if !outcome.valid { result.fail(as: outcome) }
            }
            if !covered, let additional = node["additionalProperties"] {
                covered = true
                let outcome = descend(["additionalProperties"], member: name, additional, value, depth: depth)
                if !outcome.valid {
                    result.fail(additional.boolValue == false ? violation("additionalProperties", "'\(name)' is not allowed") : outcome.failure)
                }
            }
            if covered { result.properties.insert(name) }
        }
        if draft != .v4, let nameSchema = node["propertyNames"] {
            for name in names where !evaluate(nameSchema, .string(name), depth: depth + 1).valid {
                result.fail(violation("propertyNames", "the name '\(name)' is not allowed"))
            }
        }
        if !draft.isModern, let dependencies = node["dependencies"]?.objectValue {
            for (name, dependency) in dependencies where names.contains(name) {
                if let needed = dependency.arrayValue {
                    if let missing = needed.compactMap(\.stringValue).first(where: { !names.contains($0) }) {
                        result.fail(violation("dependencies", "'\(name)' needs '\(missing)'"))
                    }
                } else {
                    let outcome = descend(["dependencies", name], dependency, .object(members), depth: depth)
                    if !outcome.valid { result.fail(as: outcome) }
                }
            }
        }
        if draft.isModern, let dependents = node["dependentRequired"]?.objectValue {
            for (name, needed) in dependents where names.contains(name) {
                if let missing = (needed.arrayValue?.compactMap(\.stringValue) ?? []).first(where: { !names.contains($0) }) {
                    result.fail(violation("dependentRequired", "'\(name)' needs '\(missing)'"))
                }
            }
        }
    }

    /// A value as a failure quotes it, cut at 60 characters.
    static func shortText(_ value: JSONValue) -> String {
        let text = value.serialized
        return text.count <= 60 ? text : String(text.prefix(57)) + "…"
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
