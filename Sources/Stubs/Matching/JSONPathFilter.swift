import JSON
import MockCore

/// The condition of a JSONPath filter `[?(…)]`, as Jayway JSONPath (WireMock's) reads it: `@.a`
/// (exists), `!`, `&&`, `||`, parentheses, and comparisons `== != < <= > >=`, `=~ /regex/i`, `in`,
/// `nin`, `subsetof`, `anyof`, `noneof`, `size`, `empty`, `contains` between the current item
/// (`@…`), the document (`$…`) and literals (numbers, strings, `true`, `false`, `null`, `[…]`).
indirect enum JSONPathFilter: Sendable {
    case exists(Operand)
    case not(JSONPathFilter)
    case and(JSONPathFilter, JSONPathFilter)
    case or(JSONPathFilter, JSONPathFilter)
    case compare(Operand, Operator, Operand)

    enum Operand: Sendable {
        case current([JSONPath.Step])
        case root([JSONPath.Step])
        case literal(JSONValue)
        case regex(ContentPattern.Regex)
    }

    enum Operator: String, Sendable, CaseIterable {
        // Longer spellings first: the parser takes the first that fits.
        case lessOrEqual = "<=", greaterOrEqual = ">=", equal = "==", notEqual = "!=", regex = "=~", less = "<", greater = ">"
        case notIn = "nin", `in` = "in", subsetOf = "subsetof", anyOf = "anyof", noneOf = "noneof", size, empty, contains
    }

    /// Whether `item` passes, `root` being the whole document.
    func test(_ item: JSONValue, root: JSONValue, budget: inout Int) -> Bool {
        switch self {
        case .exists(let operand): return operand.value(item, root: root, budget: &budget) != nil
        case .not(let inner): return !inner.test(item, root: root, budget: &budget)
        case .and(let a, let b): return a.test(item, root: root, budget: &budget) && b.test(item, root: root, budget: &budget)
        case .or(let a, let b): return a.test(item, root: root, budget: &budget) || b.test(item, root: root, budget: &budget)
        case .compare(let left, let op, let right):
            if case .regex(let regex) = right {
                guard let text = left.value(item, root: root, budget: &budget)?.stringValue else { return false }
                return regex.matches(text, in: "a JSONPath =~ filter") == true
            }
            guard let b = right.value(item, root: root, budget: &budget) else { return false }
            // A missing value is unequal to anything and in no list, as in Jayway.
            guard let a = left.value(item, root: root, budget: &budget) else { return [.notEqual, .notIn, .noneOf].contains(op) }
            return Self.apply(op, a, b)
        }
    }

    private static func apply(_ op: Operator, _ a: JSONValue, _ b: JSONValue) -> Bool {
        switch op {
        case .equal, .notEqual, .less, .lessOrEqual, .greater, .greaterOrEqual: return compare(a, op, b)
        case .regex: return false
        case .in: return b.arrayValue?.contains { compare(a, .equal, $0) } ?? false
        case .notIn: return !(b.arrayValue?.contains { compare(a, .equal, $0) } ?? false)
        case .subsetOf:
            guard let left = a.arrayValue, let right = b.arrayValue else { return false }
            return left.allSatisfy { item in right.contains { compare(item, .equal, $0) } }
        case .anyOf, .noneOf:
            guard let left = a.arrayValue, let right = b.arrayValue else { return false }
            let any = left.contains { item in right.contains { compare(item, .equal, $0) } }
            return op == .anyOf ? any : !any
        case .size:
            guard let expected = b.intValue else { return false }
            return (a.arrayValue?.count ?? a.stringValue?.count) == expected
        case .empty:
            guard let expected = b.boolValue, let count = a.arrayValue?.count ?? a.stringValue?.count else { return false }
            return (count == 0) == expected
        case .contains:
            if let items = a.arrayValue { return items.contains { compare($0, .equal, b) } }
            if let text = a.stringValue, let part = b.stringValue { return text.contains(part) }
            return false
        }
    }

    /// Numbers compare as numbers, strings as strings; otherwise only (in)equality holds.
    static func compare(_ a: JSONValue, _ op: Operator, _ b: JSONValue) -> Bool {
        if let x = a.doubleValue, let y = b.doubleValue { return order(x, op, y) }
        if let x = a.stringValue, let y = b.stringValue { return order(x, op, y) }
        switch op {
        case .equal: return a == b
        case .notEqual: return a != b
        default: return false
        }
    }

    private static func order<T: Comparable>(_ a: T, _ op: Operator, _ b: T) -> Bool {
        switch op {
        case .equal: a == b
        case .notEqual: a != b
        case .less: a < b
        case .lessOrEqual: a <= b
        case .greater: a > b
        case .greaterOrEqual: a >= b
        default: false
        }
    }
}

extension JSONPathFilter.Operand {
    /// The operand's value for `item`: a path's first selection, nil when it selects nothing.
    func value(_ item: JSONValue, root: JSONValue, budget: inout Int) -> JSONValue? {
        switch self {
        case .current(let steps): JSONPath.select(steps, in: item, root: root, budget: &budget).first
        case .root(let steps): JSONPath.select(steps, in: root, root: root, budget: &budget).first
        case .literal(let value): value
        case .regex: nil
        }
    }
}

// MARK: Reading a filter

extension JSONPathFilter {
    typealias ParseFailure = JSONPath.ParseFailure

    /// Reads the condition up to (not including) the `)` that closes the filter.
    static func parse(_ text: inout Substring) throws(ParseFailure) -> JSONPathFilter {
        var left = try parseAnd(&text)
        while skipSpaces(&text), text.hasPrefix("||") {
            text.removeFirst(2)
            left = .or(left, try parseAnd(&text))
        }
        return left
    }

    private static func parseAnd(_ text: inout Substring) throws(ParseFailure) -> JSONPathFilter {
        var left = try parseUnary(&text)
        while skipSpaces(&text), text.hasPrefix("&&") {
            text.removeFirst(2)
            left = .and(left, try parseUnary(&text))
        }
        return left
    }

    private static func parseUnary(_ text: inout Substring) throws(ParseFailure) -> JSONPathFilter {
        skipSpaces(&text)
        if text.first == "!", !text.hasPrefix("!=") {
            text.removeFirst()
            return .not(try parseUnary(&text))
        }
        if text.first == "(" {
            text.removeFirst()
            let inner = try parse(&text)
            skipSpaces(&text)
            guard text.first == ")" else { throw ParseFailure(message: "expected ')' in the filter") }
            text.removeFirst()
            return inner
        }
        let left = try parseOperand(&text)
        skipSpaces(&text)
        guard let op = Operator.allCases.first(where: { text.hasPrefix($0.rawValue) }) else {
            if case .literal = left { throw ParseFailure(message: "a filter needs a condition on @ or $, e.g. [?(@.price < 10)]") }
            return .exists(left)
        }
        text.removeFirst(op.rawValue.count)
        skipSpaces(&text)
        let right = try parseOperand(&text)
        let isRegex = if case .regex = right { true } else { false }
        guard isRegex == (op == .regex) else { throw ParseFailure(message: "=~ goes with a /regular expression/, and only it") }
        return .compare(left, op, right)
    }

    private static func parseOperand(_ text: inout Substring) throws(ParseFailure) -> Operand {
        skipSpaces(&text)
        switch text.first {
        case "@":
            text.removeFirst()
            return .current(try JSONPath.parseSteps(&text, inFilter: true))
        case "$":
            text.removeFirst()
            return .root(try JSONPath.parseSteps(&text, inFilter: true))
        case "/":
            text.removeFirst()
            var source = ""
            while let next = text.first, next != "/" {
                text.removeFirst()
                if next == "\\", let escaped = text.first, escaped == "/" {
                    text.removeFirst()
                    source.append("/")
                    continue
                }
                source.append(next)
            }
            guard text.first == "/" else { throw ParseFailure(message: "unterminated /regular expression/") }
            text.removeFirst()
            let flags = text.prefix { $0.isLetter }
            text.removeFirst(flags.count)
            do {
                return .regex(try ContentPattern.Regex((flags.contains("i") ? "(?i)" : "") + source))
            } catch {
                throw ParseFailure(message: "invalid regular expression /\(source)/")
            }
        default:
            return .literal(try parseLiteral(&text))
        }
    }

    private static func parseLiteral(_ text: inout Substring) throws(ParseFailure) -> JSONValue {
        skipSpaces(&text)
        if let quote = text.first, quote == "'" || quote == "\"" {
            text.removeFirst()
            guard let end = text.firstIndex(of: quote) else { throw ParseFailure(message: "unterminated string in the filter") }
            let value = String(text[..<end])
            text = text[text.index(after: end)...]
            return .string(value)
        }
        if text.first == "[" {
            text.removeFirst()
            var items: [JSONValue] = []
            while skipSpaces(&text), let next = text.first, next != "]" {
                items.append(try parseLiteral(&text))
                skipSpaces(&text)
                if text.first == "," { text.removeFirst() } else if text.first != "]" { throw ParseFailure(message: "expected ',' or ']' in a list") }
            }
            guard text.first == "]" else { throw ParseFailure(message: "unterminated list in the filter") }
            text.removeFirst()
            return .array(items)
        }
        let word = text.prefix { !" )&|,]".contains($0) }
        text.removeFirst(word.count)
        switch word {
        case "true": return .bool(true)
        case "false": return .bool(false)
        case "null": return .null
        default:
            if let integer = Int(word) { return .int(integer) }
            if let number = Double(word) { return .double(number) }
            throw ParseFailure(message: "cannot read the value '\(word)'")
        }
    }

    @discardableResult
    private static func skipSpaces(_ text: inout Substring) -> Bool {
        text = text.drop { $0 == " " }
        return true
    }
}
