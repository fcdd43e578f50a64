import GraphQL
import WorkLimits

/// A GraphQL document read for comparison: parsed with GraphQLSwift's parser (a port of
/// graphql-js) and written out again in one canonical form, where whitespace, commas, comments,
/// the order of fields, arguments, object fields and definitions, and string quoting do not show; so two documents that ask the same are equal, as wiremock-graphql-extension compares
/// them (graphql-java's `AstSorter` and `AstComparator`). Fragments stay where they are written
/// and are compared by name (as the extension does from v0.8), not inlined. Nothing is executed:
/// there is no schema.
public struct GraphQLDocument: Sendable, Equatable {
    /// The canonical form; equal for documents that ask the same.
    public let canonical: String
    /// Each operation's type and name (nil for an anonymous one), in the order written.
    public let operations: [(type: String, name: String?)]
    /// Every field asked for, as a dotted path from its operation or fragment
    /// (`query Hero.hero.friends.name`, `fragment HeroFields.name`), sorted: what a near miss names.
    public let fieldPaths: [String]

    public static func == (lhs: GraphQLDocument, rhs: GraphQLDocument) -> Bool { lhs.canonical == rhs.canonical }

    /// Documents over this size are not read (a request's body may be up to `--max-body`).
    public static let maxBytes = 256 * 1024
    /// Nesting deeper than this (selections, lists, objects) is refused before parsing: the
    /// parser recurses once per level.
    public static let maxDepth = 128

    public init(parsing text: String) throws(GraphQLProblem) {
        let size = text.utf8.count
        guard size <= Self.maxBytes else { throw GraphQLProblem("the query has \(size) bytes; at most \(Self.maxBytes) are read") }
        // A step of the request's budget for each KiB, as other body matchers spend.
        guard RequestBudget.spend(1 + size >> 10, in: "graphql") else { throw GraphQLProblem("the request's work budget ran out reading the query") }
        let (depth, cutEscape) = Self.scan(text)
        guard depth <= Self.maxDepth else { throw GraphQLProblem("the query nests \(depth) levels deep; at most \(Self.maxDepth) are read") }
        // GraphQLSwift's lexer reads a `\u` escape's four bytes without looking for the end, and
        // traps there: refused before it reads.
        guard !cutEscape else { throw GraphQLProblem("the query is not GraphQL: a \\u escape is cut short by the end of the document") }
        let document: Document
        do {
            document = try parse(source: text, noLocation: true)
        } catch {
            throw GraphQLProblem("the query is not GraphQL: \(Self.firstLine(of: error))")
        }
        var writer = CanonicalWriter()
        var operations: [(type: String, name: String?)] = []
        var definitions: [Sortable] = []
        for definition in document.definitions {
            if let operation = definition as? OperationDefinition {
                operations.append((operation.operation.rawValue, operation.name?.value))
                let group = OperationType.allCases.firstIndex(of: operation.operation) ?? 0
                definitions.append(Sortable(group: group, key: operation.name?.value ?? "", text: writer.operation(operation)))
            } else if let fragment = definition as? FragmentDefinition {
                definitions.append(Sortable(group: OperationType.allCases.count, key: fragment.name.value, text: writer.fragment(fragment)))
            } else {
                throw GraphQLProblem("the document defines a type or a schema, not an operation")
            }
        }
        guard !operations.isEmpty else { throw GraphQLProblem("the document has no operation") }
        canonical = Sortable.ordered(definitions).joined(separator: "\n")
        self.operations = operations
        fieldPaths = writer.paths.sorted()
    }

    /// The deepest nesting of `{`, `(` and `[` outside strings (block strings included).
    static func nesting(of text: String) -> Int { scan(text).depth }

    /// What the parser must not be given: the deepest nesting (as `nesting(of:)`), and whether a
    /// string's `\u` escape has fewer than four bytes after it before the document ends.
    static func scan(_ text: String) -> (depth: Int, cutEscape: Bool) {
        var depth = 0
        var deepest = 0
        var cutEscape = false
        var bytes = text.utf8[...]
        while let byte = bytes.popFirst() {
            switch byte {
            case UInt8(ascii: "{"), UInt8(ascii: "("), UInt8(ascii: "["):
                depth += 1
                deepest = max(deepest, depth)
            case UInt8(ascii: "}"), UInt8(ascii: ")"), UInt8(ascii: "]"): depth = max(0, depth - 1)
            case UInt8(ascii: "#"): bytes = bytes.drop { $0 != UInt8(ascii: "\n") }
            case UInt8(ascii: "\""):
                if bytes.starts(with: [UInt8(ascii: "\""), UInt8(ascii: "\"")]) {
                    bytes = bytes.dropFirst(2)
                    // To the closing `"""`, past escaped `\"""`.
                    while !bytes.isEmpty, !bytes.starts(with: Array(#"""""#.utf8)) {
                        bytes = bytes.starts(with: Array(#"\""""#.utf8)) ? bytes.dropFirst(4) : bytes.dropFirst()
                    }
                    bytes = bytes.dropFirst(3)
                } else {
                    while let inner = bytes.popFirst(), inner != UInt8(ascii: "\""), inner != UInt8(ascii: "\n") {
                        guard inner == UInt8(ascii: "\\") else { continue }
                        if bytes.first == UInt8(ascii: "u"), bytes.dropFirst().prefix(4).count < 4 { cutEscape = true }
                        _ = bytes.popFirst()
                    }
                }
            default: break
            }
        }
        return (deepest, cutEscape)
    }

    private static func firstLine(of error: any Error) -> String {
        let text = (error as? GraphQLError)?.message ?? "\(error)"
        return String(text.prefix { $0 != "\n" }.prefix(200))
    }
}

/// Why a body or a stub's query could not be read as GraphQL.
public struct GraphQLProblem: Error, Sendable, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// A written node and what it sorts by: as graphql-java's `AstSorter`, which the extension
/// sorts with, by group (fields, then fragment spreads, then inline fragments; queries, mutations,
/// subscriptions, then fragment definitions), then by name, keeping the written order of equal
/// keys (a stable sort): `a: hero(id: 1)` and `b: hero(id: 2)` swapped are another query.
private struct Sortable {
    let group: Int
    let key: String
    let text: String

    static func ordered(_ items: [Sortable]) -> [String] {
        items.enumerated().sorted { left, right in
            let (a, b) = (left.element, right.element)
            if a.group != b.group { return a.group < b.group }
            if a.key != b.key { return a.key.utf16.lexicographicallyPrecedes(b.key.utf16) }
            return left.offset < right.offset
        }.map(\.element.text)
    }
}

/// Writes the canonical form of each node, its children in `AstSorter`'s order (selections,
/// arguments, object fields, variable definitions and directives by name; lists as written),
/// and collects the field paths on the way.
private struct CanonicalWriter {
    var paths: [String] = []

    mutating func operation(_ operation: OperationDefinition) -> String {
        let name = operation.name?.value ?? ""
        let variables = Sortable.ordered(
            operation.variableDefinitions.map { definition in
                Sortable(
                    group: 0, key: definition.variable.name.value,
                    text: "$\(definition.variable.name.value):\(type(definition.type))" + (definition.defaultValue.map { "=" + value($0) } ?? "")
                        + directives(definition.directives))
            })
        let head = operation.operation.rawValue + " " + name + (variables.isEmpty ? "" : "(" + variables.joined(separator: ",") + ")")
        return head + directives(operation.directives) + selections(operation.selectionSet, at: "\(operation.operation.rawValue) \(name)")
    }

    mutating func fragment(_ fragment: FragmentDefinition) -> String {
        "fragment \(fragment.name.value) on \(fragment.typeCondition.name.value)" + directives(fragment.directives)
            + selections(fragment.selectionSet, at: "fragment \(fragment.name.value)")
    }

    private mutating func selections(_ set: SelectionSet, at path: String) -> String {
        var written: [Sortable] = []
        for selection in set.selections {
            if let field = selection as? Field {
                let name = (field.alias.map { $0.value + ":" } ?? "") + field.name.value
                let here = path + "." + name
                paths.append(here)
                let text =
                    name + arguments(field.arguments) + directives(field.directives) + (field.selectionSet.map { selections($0, at: here) } ?? "")
                written.append(Sortable(group: 0, key: field.name.value, text: text))
            } else if let spread = selection as? FragmentSpread {
                paths.append(path + "...\(spread.name.value)")
                written.append(Sortable(group: 1, key: spread.name.value, text: "..." + spread.name.value + directives(spread.directives)))
            } else if let inline = selection as? InlineFragment {
                let type = inline.typeCondition?.name.value
                let condition = type.map { " on " + $0 } ?? ""
                let text = "..." + condition + directives(inline.directives) + selections(inline.selectionSet, at: path + "(..." + condition + ")")
                written.append(Sortable(group: 2, key: type ?? "", text: text))
            }
        }
        return "{" + Sortable.ordered(written).joined(separator: ",") + "}"
    }

    private func arguments(_ arguments: [Argument]) -> String {
        guard !arguments.isEmpty else { return "" }
        return "("
            + Sortable.ordered(arguments.map { Sortable(group: 0, key: $0.name.value, text: $0.name.value + ":" + value($0.value)) })
            .joined(separator: ",") + ")"
    }

    private func directives(_ directives: [Directive]) -> String {
        Sortable.ordered(directives.map { Sortable(group: 0, key: $0.name.value, text: "@" + $0.name.value + arguments($0.arguments)) }).joined()
    }

    private func value(_ value: Value) -> String {
        switch value {
        case let variable as Variable: "$" + variable.name.value
        case let number as IntValue: number.value
        // As BigDecimal compares them: `1.0` is not `1.00`, `1e2` is `1E2`.
        case let number as FloatValue: number.value.lowercased()
        case let text as StringValue: quoted(text.value)
        case let flag as BooleanValue: flag.value ? "true" : "false"
        case is NullValue: "null"
        case let name as EnumValue: name.value
        case let list as ListValue: "[" + list.values.map { self.value($0) }.joined(separator: ",") + "]"
        case let object as ObjectValue:
            "{"
                + Sortable.ordered(object.fields.map { Sortable(group: 0, key: $0.name.value, text: $0.name.value + ":" + self.value($0.value)) })
                .joined(separator: ",") + "}"
        default: "?"
        }
    }

    private func type(_ type: any GraphQL.`Type`) -> String {
        switch type {
        case let named as NamedType: named.name.value
        case let list as ListType: "[" + self.type(list.type) + "]"
        case let required as NonNullType: self.type(required.type) + "!"
        default: "?"
        }
    }

    /// A string as JSON writes it, whatever quotes the document used (`"…"` or `"""…"""`).
    private func quoted(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
