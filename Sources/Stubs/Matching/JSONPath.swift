import JSON
import MockCore
import WorkLimits

/// The JSONPath that stubs use, read as Jayway JSONPath (WireMock's) reads it: `$`, `.name`,
/// `['name']`, `['a','b']`, `[n]` (negative from the end), `[n,m]`, `[start:end]`, `[*]`, `.*`,
/// `..name` (at any depth), filters `[?(…)]` (see `JSONPathFilter`), and a closing function:
/// `length()`/`size()`, `min()`, `max()`, `avg()`, `sum()`, `stddev()`, `keys()`.
public struct JSONPath: Sendable {
    enum Step: Sendable {
        case key(String)
        case keys([String])
        case index(Int)
        case indices([Int])
        case slice(start: Int?, end: Int?)
        case wildcard
        case descendant(String?)
        case filter(JSONPathFilter)
    }

    /// A function that ends a path: it turns what the path selects into one value.
    enum Function: String, Sendable, CaseIterable {
        case length, size, min, max, avg, sum, stddev, keys

        /// nil where Jayway fails (the length of a string, the sum of no numbers).
        func apply(_ value: JSONValue) -> JSONValue? {
            switch self {
            case .length, .size:
                return (value.arrayValue?.count ?? value.objectValue?.count).map(JSONValue.int)
            case .keys:
                return value.objectValue.map { .array($0.map { .string($0.0) }) }
            case .min, .max, .avg, .sum, .stddev:
                let numbers = (value.arrayValue ?? []).compactMap(\.doubleValue)
                guard !numbers.isEmpty else { return nil }
                let sum = numbers.reduce(0, +)
                let mean = sum / Double(numbers.count)
                // Jayway answers a double for each (a sum of integers is `9.0`).
                switch self {
                case .min: return .double(numbers.min() ?? 0)
                case .max: return .double(numbers.max() ?? 0)
                case .sum: return .double(sum)
                case .avg: return .double(mean)
                default: return .double((numbers.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(numbers.count)).squareRoot())
                }
            }
        }
    }

    let steps: [Step]
    let function: Function?
    public let source: String

    /// Whether the path names at most one value (no wildcard, descent or filter, or a function
    /// at its end): the `jsonPath` helper then answers the value itself rather than a list.
    var isDefinite: Bool {
        function != nil || Self.isDefinite(steps)
    }

    private static func isDefinite(_ steps: [Step]) -> Bool {
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
        do throws(ParseFailure) {
            var steps = try parseSteps(&scanner, inFilter: false)
            var function: Function?
            if case .key(let name)? = steps.last, name.hasSuffix("()") {
                guard let known = Function(rawValue: String(name.dropLast(2))) else {
                    throw ParseFailure(
                        message: "unknown function \(name) (supported: \(Function.allCases.map { $0.rawValue + "()" }.joined(separator: ", ")))")
                }
                function = known
                steps.removeLast()
            }
            if let misplaced = steps.first(where: { if case .key(let name) = $0 { name.hasSuffix("()") } else { false } }),
                case .key(let name) = misplaced
            {
                throw ParseFailure(message: "the function \(name) must end the path")
            }
            return JSONPath(steps: steps, function: function, source: source)
        } catch {
            throw StubError(field: field, message: "JSONPath '\(source)': \(error.message)")
        }
    }

    struct ParseFailure: Error { let message: String }

    /// Steps up to the end, or (in a filter) up to what ends an operand.
    static func parseSteps(_ text: inout Substring, inFilter: Bool) throws(ParseFailure) -> [Step] {
        var steps: [Step] = []
        while let next = text.first {
            if text.hasPrefix("..") {
                text.removeFirst(2)
                let name = readName(&text)
                steps.append(.descendant(name.isEmpty || name == "*" ? nil : name))
            } else if next == "." {
                text.removeFirst()
                // Jayway reads `$.[…]` as `$[…]` (WireMock's jsonRemove tests write `$.[?(@.id == 123)]`).
                if text.first == "[" { continue }
                let name = readName(&text)
                guard !name.isEmpty else { throw ParseFailure(message: "expected a name after '.'") }
                steps.append(name == "*" ? .wildcard : .key(name))
            } else if next == "[" {
                text.removeFirst()
                steps.append(try parseBracket(&text))
            } else if inFilter {
                break
            } else {
                throw ParseFailure(message: "unexpected '\(next)'")
            }
        }
        return steps
    }

    /// A name, with `()` kept when it calls a function.
    private static func readName(_ text: inout Substring) -> String {
        var name = String(text.prefix { !".[ =!<>()&|,]".contains($0) })
        text.removeFirst(name.count)
        if text.hasPrefix("()") {
            text.removeFirst(2)
            name += "()"
        }
        return name
    }

    private static func parseBracket(_ text: inout Substring) throws(ParseFailure) -> Step {
        let step = try parseBracketContents(&text)
        text = text.drop { $0 == " " }
        guard text.first == "]" else { throw ParseFailure(message: "expected ']'") }
        text.removeFirst()
        return step
    }

    private static func parseBracketContents(_ text: inout Substring) throws(ParseFailure) -> Step {
        text = text.drop { $0 == " " }
        if text.first == "*" {
            text.removeFirst()
            return .wildcard
        }
        if let quote = text.first, quote == "'" || quote == "\"" {
            var names: [String] = []
            while let quote = text.first, quote == "'" || quote == "\"" {
                text.removeFirst()
                guard let end = text.firstIndex(of: quote) else { throw ParseFailure(message: "unterminated quoted name") }
                names.append(String(text[..<end]))
                text = text[text.index(after: end)...].drop { $0 == " " }
                guard text.first == "," else { break }
                text = text.dropFirst().drop { $0 == " " }
            }
            return names.count == 1 ? .key(names[0]) : .keys(names)
        }
        if text.hasPrefix("?(") {
            text.removeFirst(2)
            let filter = try JSONPathFilter.parse(&text)
            text = text.drop { $0 == " " }
            guard text.first == ")" else { throw ParseFailure(message: "expected ')' closing the filter") }
            text.removeFirst()
            return .filter(filter)
        }
        let first = readInteger(&text)
        if text.first == ":" {
            text.removeFirst()
            return .slice(start: first, end: readInteger(&text))
        }
        guard let first else { throw ParseFailure(message: "expected an index, a slice, a quoted name, * or a filter in []") }
        var indices = [first]
        while text.first == "," {
            text = text.dropFirst().drop { $0 == " " }
            guard let next = readInteger(&text) else { throw ParseFailure(message: "expected an index after ','") }
            indices.append(next)
        }
        return indices.count == 1 ? .index(first) : .indices(indices)
    }

    private static func readInteger(_ text: inout Substring) -> Int? {
        let digits = text.prefix { $0 == "-" || $0.isASCII && $0.isNumber }
        guard let value = Int(digits) else { return nil }
        text.removeFirst(digits.count)
        text = text.drop { $0 == " " }
        return value
    }

    /// Every value the path selects in `document` (with a function: its one result, if any);
    /// nothing when it would select more than `selectionBudget` values along the way, or the
    /// request's budget runs out (a matcher: no match).
    public func evaluate(_ document: JSONValue) -> [JSONValue] {
        (try? evaluateWithinBudget(document)) ?? []
    }

    /// `evaluate`, which says when a budget stopped it (a helper: an error, never part of the answer).
    func evaluateWithinBudget(_ document: JSONValue) throws(SelectionBudgetExceeded) -> [JSONValue] {
        var budget = Self.selectionBudget
        let found = Self.select(steps, in: document, root: document, budget: &budget)
        guard budget >= 0 else { throw SelectionBudgetExceeded() }
        guard let function else { return found }
        // As Jayway: the function takes each value the path selects (on an indefinite path,
        // `$.items[*].tags.length()` is each item's count and `$.items[*].qty.sum()` nothing —
        // checked against WireMock 2.35).
        return found.compactMap(function.apply)
    }

    /// How many values one evaluation may select along the way. Each `..` selects every value
    /// below each one selected so far, so a client's `$......` grows exponentially with its steps;
    /// past the budget it selects nothing.
    static let selectionBudget = 100_000

    /// Where a request's budget is said to have run out.
    static let place = "a JSONPath"

    static func select(_ steps: [Step], in value: JSONValue, root: JSONValue, budget: inout Int) -> [JSONValue] {
        apply(steps[...], to: [value], root: root, budget: &budget)
    }

    private static func apply(_ steps: ArraySlice<Step>, to values: [JSONValue], root: JSONValue, budget: inout Int) -> [JSONValue] {
        guard let step = steps.first else { return values }
        var next: [JSONValue] = []
        for value in values {
            guard next.count < budget, RequestBudget.spend(in: place) else {
                budget = -1
                return []
            }
            switch step {
            case .key(let name):
                if let found = value[name] { next.append(found) }
            case .keys(let names):
                next += names.compactMap { value[$0] }
            case .index(let index):
                if let found = element(index, of: value) { next.append(found) }
            case .indices(let indices):
                next += indices.compactMap { element($0, of: value) }
            case .slice(let start, let end):
                if let items = value.arrayValue {
                    let clamp = { (bound: Int) in Swift.min(Swift.max(bound < 0 ? items.count + bound : bound, 0), items.count) }
                    let from = clamp(start ?? 0)
                    let to = clamp(end ?? items.count)
                    if from < to { next += items[from..<to] }
                }
            case .wildcard:
                next += children(of: value)
            case .descendant(let name):
                next += descendants(of: value).compactMap { candidate in name.map { candidate[$0] } ?? candidate }
            case .filter(let filter):
                for child in children(of: value) where filter.test(child, root: root, budget: &budget) {
                    next.append(child)
                }
            }
        }
        budget -= next.count
        return apply(steps.dropFirst(), to: next, root: root, budget: &budget)
    }

    /// `document` with every value the path selects given to `change`: its answer replaces the
    /// value, nil removes it from its object or array (Jayway's `delete`, `set`). nil when the
    /// path cannot change values: it selects the root, ends in a function, or descends (`..`).
    func modifying(_ document: JSONValue, _ change: (JSONValue) -> JSONValue?) throws(SelectionBudgetExceeded) -> JSONValue? {
        guard function == nil, !steps.isEmpty,
            !steps.contains(where: { if case .descendant = $0 { true } else { false } })
        else { return nil }
        var budget = Self.selectionBudget
        let changed = Self.modify(steps[...], document, root: document, budget: &budget, change)
        // A change made to only part of what the path selects would be wrong data, said nowhere.
        guard budget >= 0 else { throw SelectionBudgetExceeded() }
        return changed
    }

    /// The path selects more than `selectionBudget` values, or the request's budget ran out first.
    struct SelectionBudgetExceeded: Error {}

    private static func modify(
        _ steps: ArraySlice<Step>, _ value: JSONValue, root: JSONValue, budget: inout Int,
        _ change: (JSONValue) -> JSONValue?
    ) -> JSONValue {
        guard let step = steps.first else { return value }
        guard budget > 0, RequestBudget.spend(in: Self.place) else {
            budget = -1
            return value
        }
        budget -= 1
        let last = steps.count == 1
        func visit(_ child: JSONValue, _ budget: inout Int) -> JSONValue? {
            last ? change(child) : modify(steps.dropFirst(), child, root: root, budget: &budget, change)
        }
        switch value {
        case .object(let members):
            var kept: [(String, JSONValue)] = []
            for (name, child) in members {
                let selected: Bool
                switch step {
                case .key(let key): selected = key == name
                case .keys(let keys): selected = keys.contains(name)
                case .wildcard: selected = true
                case .filter(let filter): selected = filter.test(child, root: root, budget: &budget)
                default: selected = false
                }
                guard selected else {
                    kept.append((name, child))
                    continue
                }
                if let changed = visit(child, &budget) { kept.append((name, changed)) }
            }
            return .object(kept)
        case .array(let items):
            let count = items.count
            let position = { (index: Int) in index < 0 ? count + index : index }
            var chosen = Set<Int>()
            switch step {
            case .index(let index): chosen = [position(index)]
            case .indices(let indices): chosen = Set(indices.map(position))
            case .slice(let start, let end):
                let clamp = { (bound: Int) in Swift.min(Swift.max(position(bound), 0), count) }
                let from = clamp(start ?? 0)
                let to = clamp(end ?? count)
                if from < to { chosen = Set(from..<to) }
            case .wildcard: chosen = Set(items.indices)
            case .filter(let filter): chosen = Set(items.indices.filter { filter.test(items[$0], root: root, budget: &budget) })
            default: break
            }
            var kept: [JSONValue] = []
            for (index, item) in items.enumerated() {
                guard chosen.contains(index) else {
                    kept.append(item)
                    continue
                }
                if let changed = visit(item, &budget) { kept.append(changed) }
            }
            return .array(kept)
        default:
            return value
        }
    }

    private static func element(_ index: Int, of value: JSONValue) -> JSONValue? {
        guard let items = value.arrayValue else { return nil }
        let position = index < 0 ? items.count + index : index
        return items.indices.contains(position) ? items[position] : nil
    }

    private static func children(of value: JSONValue) -> [JSONValue] {
        value.arrayValue ?? value.objectValue?.map(\.1) ?? []
    }

    /// The value and everything below it, depth first.
    private static func descendants(of value: JSONValue) -> [JSONValue] {
        [value] + children(of: value).flatMap(descendants)
    }
}
