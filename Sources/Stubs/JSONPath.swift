import MockCore

/// The JSONPath subset stubs use: `$`, `.name`, `['name']`, `[n]` (negative from the end), `[*]`,
/// `.*`, `..name` (at any depth), and filters `[?(@.a.b)]`, `[?(@.a op value)]` with
/// `== != < <= > >=` against a number, string, `true`, `false` or `null`.
public struct JSONPath: Sendable {
    enum Step: Sendable {
        case key(String)
        case index(Int)
        case wildcard
        case descendant(String?)
        case filter(path: [Step], comparison: (String, JSONValue)?)
    }

    let steps: [Step]
    public let source: String

    /// Whether the path names at most one value (no wildcard, descent or filter): the
    /// `jsonPath` helper then answers the value itself rather than a list.
    var isDefinite: Bool {
        steps.allSatisfy { step in
            switch step {
            case .key, .index: true
            default: false
            }
        }
    }

    static func parse(_ source: String, field: String) throws(StubError) -> JSONPath {
        var scanner = Substring(source.trimmingCharacters(in: .whitespaces))
        guard scanner.first == "$" else { throw StubError(field: field, message: "JSONPath '\(source)' must start with $") }
        scanner.removeFirst()
        do {
            return JSONPath(steps: try parseSteps(&scanner, stopAt: nil), source: source)
        } catch {
            throw StubError(field: field, message: "JSONPath '\(source)': \(error.message)")
        }
    }

    struct ParseFailure: Error { let message: String }

    private static func parseSteps(_ text: inout Substring, stopAt stop: Character?) throws(ParseFailure) -> [Step] {
        var steps: [Step] = []
        while let next = text.first, next != stop {
            if text.hasPrefix("..") {
                text.removeFirst(2)
                let name = readName(&text)
                steps.append(.descendant(name.isEmpty || name == "*" ? nil : name))
            } else if next == "." {
                text.removeFirst()
                let name = readName(&text)
                guard !name.isEmpty else { throw ParseFailure(message: "expected a name after '.'") }
                steps.append(name == "*" ? .wildcard : .key(name))
            } else if next == "[" {
                text.removeFirst()
                steps.append(try parseBracket(&text))
            } else if stop != nil, " =!<>)".contains(next) {
                break
            } else {
                throw ParseFailure(message: "unexpected '\(next)'")
            }
        }
        return steps
    }

    private static func readName(_ text: inout Substring) -> String {
        let name = text.prefix { !".[ =!<>)".contains($0) }
        text.removeFirst(name.count)
        return String(name)
    }

    private static func parseBracket(_ text: inout Substring) throws(ParseFailure) -> Step {
        defer { if text.first == "]" { text.removeFirst() } }
        if text.first == "*" {
            text.removeFirst()
            return .wildcard
        }
        if let quote = text.first, quote == "'" || quote == "\"" {
            text.removeFirst()
            guard let end = text.firstIndex(of: quote) else { throw ParseFailure(message: "unterminated quoted name") }
            let name = String(text[..<end])
            text = text[text.index(after: end)...]
            return .key(name)
        }
        if text.hasPrefix("?(") {
            text.removeFirst(2)
            guard text.first == "@" else { throw ParseFailure(message: "a filter must start with @") }
            text.removeFirst()
            let path = try parseSteps(&text, stopAt: ")")
            text = text.drop { $0 == " " }
            var comparison: (String, JSONValue)?
            if let op = ["==", "!=", "<=", ">=", "<", ">"].first(where: { text.hasPrefix($0) }) {
                text.removeFirst(op.count)
                text = text.drop { $0 == " " }
                let literal = text.prefix { $0 != ")" }.trimmingCharacters(in: .whitespaces)
                text.removeFirst(text.prefix { $0 != ")" }.count)
                comparison = (op, try literalValue(literal))
            }
            guard text.first == ")" else { throw ParseFailure(message: "expected ')' closing the filter") }
            text.removeFirst()
            return .filter(path: path, comparison: comparison)
        }
        let digits = text.prefix { $0 == "-" || $0.isNumber }
        guard let index = Int(digits) else { throw ParseFailure(message: "expected an index, a quoted name, * or a filter in []") }
        text.removeFirst(digits.count)
        return .index(index)
    }

    private static func literalValue(_ text: String) throws(ParseFailure) -> JSONValue {
        if let first = text.first, first == "'" || first == "\"", text.count >= 2, text.last == first {
            return .string(String(text.dropFirst().dropLast()))
        }
        switch text {
        case "true": return .bool(true)
        case "false": return .bool(false)
        case "null": return .null
        default:
            if let integer = Int(text) { return .int(integer) }
            if let number = Double(text) { return .double(number) }
            throw ParseFailure(message: "cannot read the value '\(text)'")
        }
    }

    /// Every value the path selects in `document`.
    public func evaluate(_ document: JSONValue) -> [JSONValue] {
        var budget = Self.selectionBudget
        return Self.apply(steps[...], to: [document], budget: &budget)
    }

    /// How many values one evaluation may select along the way. Each `..` selects every value
    /// below each one selected so far, so a client's `$......` grows exponentially with its steps;
    /// past the budget it selects nothing.
    static let selectionBudget = 100_000

    private static func apply(_ steps: ArraySlice<Step>, to values: [JSONValue], budget: inout Int) -> [JSONValue] {
        guard let step = steps.first else { return values }
        var next: [JSONValue] = []
        for value in values {
            guard next.count < budget else { return [] }
            switch step {
            case .key(let name):
                if let found = value[name] { next.append(found) }
            case .index(let index):
                if let items = value.arrayValue {
                    let position = index < 0 ? items.count + index : index
                    if items.indices.contains(position) { next.append(items[position]) }
                }
            case .wildcard:
                next += children(of: value)
            case .descendant(let name):
                next += descendants(of: value).compactMap { candidate in name.map { candidate[$0] } ?? candidate }
            case .filter(let path, let comparison):
                for child in children(of: value) {
                    let selected = apply(path[...], to: [child], budget: &budget)
                    guard let (op, literal) = comparison else {
                        if !selected.isEmpty { next.append(child) }
                        continue
                    }
                    if selected.contains(where: { compare($0, op, literal) }) { next.append(child) }
                }
            }
        }
        budget -= next.count
        return apply(steps.dropFirst(), to: next, budget: &budget)
    }

    private static func children(of value: JSONValue) -> [JSONValue] {
        value.arrayValue ?? value.objectValue?.map(\.1) ?? []
    }

    /// The value and everything below it, depth first.
    private static func descendants(of value: JSONValue) -> [JSONValue] {
        [value] + children(of: value).flatMap(descendants)
    }

    private static func compare(_ value: JSONValue, _ op: String, _ literal: JSONValue) -> Bool {
        if let a = value.doubleValue, let b = literal.doubleValue { return order(a, op, b) }
        if let a = value.stringValue, let b = literal.stringValue { return order(a, op, b) }
        switch op {
        case "==": return value == literal
        case "!=": return value != literal
        default: return false
        }
    }

    private static func order<T: Comparable>(_ a: T, _ op: String, _ b: T) -> Bool {
        switch op {
        case "==": a == b
        case "!=": a != b
        case "<": a < b
        case "<=": a <= b
        case ">": a > b
        default: a >= b
        }
    }
}
