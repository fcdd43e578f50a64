/// A parsed template: text and tags, blocks holding their bodies.
indirect enum TemplateNode: Sendable {
    case text(String)
    /// `{{expr}}` (escaped) or `{{{expr}}}` / `{{& expr}}` (raw).
    case output(TemplateExpression, escaped: Bool)
    /// `{{#name …}}body{{else}}inverse{{/name}}`; `{{^name}}…{{/name}}` has the roles swapped.
    case block(TemplateExpression, body: [TemplateNode], inverse: [TemplateNode])
}

/// `helper param… key=value…`, or a bare path.
struct TemplateExpression: Sendable {
    var head: TemplateOperand
    var params: [TemplateOperand] = []
    var hash: [(key: String, value: TemplateOperand)] = []
    /// Where the tag starts, for messages.
    var line: Int
    var column: Int
    /// The helper the head names, found once when the template is made (not per render).
    var helper: TemplateHelpers.Helper?
    /// Whether that helper, as a block, is given its rendered body.
    var takesBlock = false
    /// A block's `as |name index|` names.
    var blockParams: [String] = []
    /// The built-in block the head names (`#if`, `#each`…), found once.
    var keyword: BlockKeyword?

    enum BlockKeyword: String, Sendable, CaseIterable {
        case `if`, unless, each, with
    }

    /// With its helper, and those of its subexpressions, looked up in `helpers`.
    func bound(to helpers: TemplateHelpers) -> TemplateExpression {
        var bound = self
        bound.helper = helperName.flatMap { helpers.table[$0] }
        bound.takesBlock = helperName.map { helpers.takingBlocks.contains($0) } ?? false
        bound.keyword = helperName.flatMap(BlockKeyword.init)
        bound.params = params.map { $0.bound(to: helpers) }
        bound.hash = hash.map { ($0.key, $0.value.bound(to: helpers)) }
        return bound
    }

    /// The helper name when the head is a plain identifier.
    var helperName: String? {
        if case .path(let path) = head, path.depth == 0, !path.isData, !path.isThis, path.segments.count == 1 {
            return path.segments[0]
        }
        return nil
    }
}

indirect enum TemplateOperand: Sendable {
    case path(TemplatePath)
    case literal(TemplateValue)
    case subexpression(TemplateExpression)

    func bound(to helpers: TemplateHelpers) -> TemplateOperand {
        if case .subexpression(let inner) = self { return .subexpression(inner.bound(to: helpers)) }
        return self
    }
}

/// `a.b.[c]`, `../x`, `this`, `@index`.
struct TemplatePath: Sendable {
    /// How many `../` lead it.
    var depth = 0
    /// `@name` data variables (`@index`, `@key`, `@first`, `@last`, `@root`).
    var isData = false
    /// `this` or `.` leads it.
    var isThis = false
    var segments: [String] = [] {
        didSet { keys = segments.map(TemplateKey.init) }
    }
    /// The segments with their hashes, for lookups.
    private(set) var keys: [TemplateKey] = []
}

/// A template that cannot be parsed or names an unknown helper, with where.
public struct TemplateError: Error, CustomStringConvertible, Equatable {
    public var line: Int
    public var column: Int
    public var message: String

    public init(line: Int, column: Int, message: String) {
        self.line = line
        self.column = column
        self.message = message
    }

    public var description: String { "line \(line), column \(column): \(message)" }
}

/// A helper's complaint while rendering; printed in place as `[ERROR: message]`, as WireMock does.
public struct HelperError: Error {
    public var message: String
    public init(_ message: String) { self.message = message }
}
