import WorkLimits

/// A parsed template: text and tags, blocks holding their bodies.
///
/// Expressions and paths are immutable class instances: the renderer binds one with a single
/// retain per tag, where copying them out as values retained each of their arrays, names and
/// helper (about half of a page's rendering went on that).
enum TemplateNode: Sendable {
    case text(String)
    /// `{{expr}}` (escaped) or `{{{expr}}}` / `{{& expr}}` (raw).
    case output(TemplateExpression, escaped: Bool)
    /// `{{#name …}}body{{else}}inverse{{/name}}`; `{{^name}}…{{/name}}` has the roles swapped.
    case block(TemplateExpression, body: [TemplateNode], inverse: [TemplateNode])
}

/// `helper param… key=value…`, or a bare path.
final class TemplateExpression: Sendable {
    let head: TemplateOperand
    let params: [TemplateOperand]
    let hash: [(key: String, value: TemplateOperand)]
    /// Where the tag starts, for messages.
    let line: Int
    let column: Int
    /// The helper the head names, found once when the template is made (not per render).
    let helper: TemplateHelpers.Helper?
    /// Whether that helper, as a block, is given its rendered body.
    let takesBlock: Bool
    /// A block's `as |name index|` names.
    let blockParams: [String]
    /// The built-in block the head names (`#if`, `#each`…), found once.
    let keyword: BlockKeyword?
    /// The head's path when the tag is that path alone (no helper, no arguments): the usual tag,
    /// which the renderer resolves without evaluating an expression.
    let plainPath: TemplatePath?

    enum BlockKeyword: String, Sendable, CaseIterable {
        case `if`, unless, each, with
        /// WireMock 3's `{{#arrayJoin ',' list as |item|}}…{{/arrayJoin}}`: the body per item, the separator between.
        case arrayJoin
    }

    init(
        head: TemplateOperand, params: [TemplateOperand] = [], hash: [(key: String, value: TemplateOperand)] = [], line: Int, column: Int,
        helper: TemplateHelpers.Helper? = nil, takesBlock: Bool = false, blockParams: [String] = [], keyword: BlockKeyword? = nil
    ) {
        self.head = head
        self.params = params
        self.hash = hash
        self.line = line
        self.column = column
        self.helper = helper
        self.takesBlock = takesBlock
        self.blockParams = blockParams
        self.keyword = keyword
        if helper == nil, params.isEmpty, hash.isEmpty, case .path(let path) = head { plainPath = path } else { plainPath = nil }
    }

    /// With its helper, and those of its subexpressions, looked up in `helpers`.
    func bound(to helpers: TemplateHelpers) -> TemplateExpression {
        TemplateExpression(
            head: head, params: params.map { $0.bound(to: helpers) }, hash: hash.map { ($0.key, $0.value.bound(to: helpers)) },
            line: line, column: column, helper: helperName.flatMap { helpers.table[$0] },
            takesBlock: helperName.map { helpers.takingBlocks.contains($0) } ?? false, blockParams: blockParams,
            keyword: helperName.flatMap(BlockKeyword.init))
    }

    /// The same expression with a block's `as |…|` names.
    func with(blockParams: [String]) -> TemplateExpression {
        TemplateExpression(
            head: head, params: params, hash: hash, line: line, column: column, helper: helper, takesBlock: takesBlock,
            blockParams: blockParams, keyword: keyword)
    }

    /// The helper name when the head is a plain identifier.
    var helperName: String? {
        if case .path(let path) = head, path.depth == 0, !path.isData, !path.isThis, path.segments.count == 1 {
            return path.segments[0]
        }
        return nil
    }
}

enum TemplateOperand: Sendable {
    case path(TemplatePath)
    case literal(TemplateValue)
    case subexpression(TemplateExpression)

    func bound(to helpers: TemplateHelpers) -> TemplateOperand {
        if case .subexpression(let inner) = self { return .subexpression(inner.bound(to: helpers)) }
        return self
    }
}

/// `a.b.[c]`, `../x`, `this`, `@index`.
final class TemplatePath: Sendable {
    /// How many `../` lead it.
    let depth: Int
    /// `@name` data variables (`@index`, `@key`, `@first`, `@last`, `@root`).
    let isData: Bool
    /// `this` or `.` leads it.
    let isThis: Bool
    let segments: [String]
    /// The segments with their hashes, for lookups.
    let keys: [TemplateKey]

    init(depth: Int = 0, isData: Bool = false, isThis: Bool = false, segments: [String] = []) {
        self.depth = depth
        self.isData = isData
        self.isThis = isThis
        self.segments = segments
        keys = segments.map(TemplateKey.init)
    }
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

    /// The request's work budget ran out in `place` (a helper's name): what the template prints
    /// there, and the stub engine answers 500 with.
    public static func budgetExceeded(in place: String) -> HelperError {
        HelperError("\(place): the request's work budget ran out (\(RequestBudget.limitDescription))")
    }
}
