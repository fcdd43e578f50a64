import WireFormat
import WorkLimits

/// A compiled Handlebars template. Parsed once (when a stub or page loads, where syntax errors and
/// unknown helpers are reported with line and column), rendered per request.
public struct Template: Sendable {
    let nodes: [TemplateNode]
    /// The nodes lowered to the steps the renderer runs.
    let program: TemplateProgram
    public let helpers: TemplateHelpers
    /// Whether a helper may assign a variable (`assign`, `formData`…): only then does a render
    /// carry a variable store.
    let assignsVariables: Bool

    init(nodes: [TemplateNode], helpers: TemplateHelpers, assignsVariables: Bool) {
        self.nodes = nodes
        program = TemplateProgram(nodes)
        self.helpers = helpers
        self.assignsVariables = assignsVariables
    }

    public init(_ source: String, helpers: TemplateHelpers = .standard) throws(TemplateError) {
        var parser = TemplateParser(source, knownHelpers: Set(helpers.table.keys).union(Renderer.blockKeywords))
        let parsed = try parser.parse()
        nodes = Self.bind(parsed, to: helpers)
        program = TemplateProgram(nodes)
        self.helpers = helpers
        assignsVariables = !helpers.assigning.isEmpty && Self.names(in: parsed).contains { helpers.assigning.contains($0) }
    }

    /// Every helper name the nodes call, subexpressions included.
    private static func names(in nodes: [TemplateNode]) -> [String] {
        func names(_ expression: TemplateExpression) -> [String] {
            let inner = (expression.params + expression.hash.map(\.value)).flatMap { operand -> [String] in
                if case .subexpression(let sub) = operand { return names(sub) }
                return []
            }
            return (expression.helperName.map { [$0] } ?? []) + inner
        }
        return nodes.flatMap { node -> [String] in
            switch node {
            case .text: []
            case .output(let expression, _): names(expression)
            case .block(let expression, let body, let inverse): names(expression) + Self.names(in: body) + Self.names(in: inverse)
            }
        }
    }

    private static func bind(_ nodes: [TemplateNode], to helpers: TemplateHelpers) -> [TemplateNode] {
        nodes.map { node in
            switch node {
            case .text: node
            case .output(let expression, let escaped): .output(expression.bound(to: helpers), escaped: escaped && helpers.escapesHTML)
            case .block(let expression, let body, let inverse):
                .block(expression.bound(to: helpers), body: bind(body, to: helpers), inverse: bind(inverse, to: helpers))
            }
        }
    }

    /// Whether the source holds any tag at all; plain text need not be rendered.
    public var isConstant: Bool {
        nodes.allSatisfy { if case .text = $0 { true } else { false } }
    }

    public func render(_ context: TemplateValue) -> String {
        if let text = renderedAsValue(context) { return text }
        var out = ByteWriter(capacity: 256)
        render(context, into: &out)
        return String(decoding: out.bytes, as: UTF8.self)
    }

    /// A template that is one value and nothing else (`{{message.body}}`, a WebSocket echo's) is
    /// that value's text, escaped as the renderer would: found with no renderer made. Nil for
    /// every other template.
    private func renderedAsValue(_ context: TemplateValue) -> String? {
        guard let (path, escaped) = singleValue else { return nil }
        // As `Renderer.resolve` finds it with one frame and no variables (`assign` is a helper
        // call: such a template has no single path step).
        var value: TemplateValue? = context
        if !path.isThis {
            for key in path.keys { value = value?.member(key) }
        }
        return Self.text(of: value ?? .null, escaped: escaped)
    }

    /// For a template that is one value and nothing else, the text it renders when `lookup` knows
    /// that value by its path's names; nil when it does not or the template is more. For a caller
    /// whose context costs more to make than the value it holds (a message's body).
    public func renderedValue(_ lookup: ([String]) -> TemplateValue?) -> String? {
        guard let (path, escaped) = singleValue, !path.isThis, let value = lookup(path.segments) else { return nil }
        return Self.text(of: value, escaped: escaped)
    }

    /// The path of a template that is one value (no `../`, no `@data`), and whether it is escaped.
    private var singleValue: (path: TemplatePath, escaped: Bool)? {
        guard program.steps.count == 1, case .path(let path, let escaped) = program.steps[0], !path.isData, path.depth == 0 else {
            return nil
        }
        return (path, escaped)
    }

    private static func text(of value: TemplateValue, escaped: Bool) -> String {
        let text: String
        if case .string(let string) = value { text = string } else { text = value.text }
        return escaped ? TextEscaper.handlebars.escaped(text) : text
    }

    /// Appends the rendered bytes to `out`, for pages built from several templates.
    public func render(_ context: TemplateValue, into out: inout ByteWriter) {
        var renderer = Renderer(program: program, root: context, variables: assignsVariables ? TemplateVariables() : nil, output: out)
        renderer.render(0..<program.steps.count)
        out = renderer.takeOutput()
    }
}

/// What a helper is given: its positional and `key=value` arguments and the current context.
public struct HelperCall {
    public let name: String
    public let params: [TemplateValue]
    public let hash: [String: TemplateValue]
    /// `this` where the helper is called.
    public let context: TemplateValue
    /// The rendered body when called as a block by a helper that takes one (`{{#trim}}…{{/trim}}`).
    public var block: String? = nil
    let variables: TemplateVariables?

    /// Makes `name` readable by the rest of the template (`{{name}}`), as WireMock's `assign` does.
    public func assign(_ name: String, _ value: TemplateValue) {
        variables?.values[name] = value
    }

    public func param(_ index: Int) -> TemplateValue {
        params.indices.contains(index) ? params[index] : .null
    }

    /// The positional argument `index` as text, or an error naming what is missing.
    public func text(_ index: Int, _ what: String) throws(HelperError) -> String {
        guard params.indices.contains(index) else { throw HelperError("\(name) needs \(what)") }
        return params[index].text
    }
}

/// The helpers templates may call, by name.
public struct TemplateHelpers: Sendable {
    public typealias Helper = @Sendable (HelperCall) throws(HelperError) -> TemplateValue

    var table: [String: Helper]
    /// Helpers that, as blocks, are given their rendered body rather than choosing a branch.
    var takingBlocks: Set<String>
    /// Helpers that may call `HelperCall.assign`.
    var assigning: Set<String>
    /// Whether `{{x}}` HTML-escapes what it prints (Handlebars' rule, and WireMock 2's); when not,
    /// it prints as `{{{x}}}` does (WireMock 3's default).
    public private(set) var escapesHTML = true

    public init(_ table: [String: Helper] = [:], takingBlocks: Set<String> = [], assigning: Set<String> = []) {
        self.table = table
        self.takingBlocks = takingBlocks
        self.assigning = assigning
    }

    /// A copy with `helper` added (or replacing one of the same name).
    public func adding(_ name: String, takesBlock: Bool = false, assigns: Bool = false, _ helper: @escaping Helper) -> TemplateHelpers {
        var copy = self
        copy.table[name] = helper
        if takesBlock { copy.takingBlocks.insert(name) }
        if assigns { copy.assigning.insert(name) }
        return copy
    }

    /// A copy whose templates escape `{{x}}` output, or print it as it is.
    public func escapingHTML(_ escapes: Bool) -> TemplateHelpers {
        var copy = self
        copy.escapesHTML = escapes
        return copy
    }

    /// All of `self`'s helpers and all of `other`'s (which win on a shared name).
    public func merging(_ other: TemplateHelpers) -> TemplateHelpers {
        TemplateHelpers(
            table.merging(other.table) { $1 }, takingBlocks: takingBlocks.union(other.takingBlocks),
            assigning: assigning.union(other.assigning))
    }
}

/// The variables a render's helpers assign; shared by the calls of one render.
final class TemplateVariables {
    var values: [String: TemplateValue] = [:]
}

/// Runs a template's steps with a stack of contexts (`this`, `../`) and data variables (`@index`).
/// A value, so its output and frames are checked for exclusive access when compiled, not at run
/// time; it writes bytes, as appending to a String costs several times more.
struct Renderer: ~Copyable {
    static let blockKeywords = Set(TemplateExpression.BlockKeyword.allCases.map(\.rawValue))

    private struct Frame {
        var this: TemplateValue
        /// Inside `#each`: the item's place, for `@index`, `@first`, `@last` and `@key`.
        var each: (index: Int, count: Int, key: String?)?
        /// `as |item index|` names, bound to the item and its index or key.
        var blockParams: [(name: String, value: TemplateValue)] = []
    }

    private let program: TemplateProgram
    private let root: TemplateValue
    private var frames: [Frame]
    private let variables: TemplateVariables?
    private var output: ByteWriter

    init(program: TemplateProgram, root: TemplateValue, variables: TemplateVariables?, output: consuming ByteWriter) {
        self.program = program
        self.root = root
        self.variables = variables
        self.output = output
        frames = [Frame(this: root)]
        frames.reserveCapacity(8)
    }

    consuming func takeOutput() -> ByteWriter { output }

    /// Runs the program's steps in `range` (a whole template, or a block's body or inverse).
    mutating func render(_ range: Range<Int>) {
        var index = range.lowerBound
        while index < range.upperBound {
            switch program.steps[index] {
            case .text(let start, let end):
                output.write(UnsafeBufferPointer(rebasing: program.text[start..<end]))
            case .path(let path, let escaped):
                write(resolve(path), escaped: escaped)
            case .output(let expression, let escaped):
                do {
                    write(try evaluate(expression), escaped: escaped)
                } catch {
                    // Escaped like the value it stands for: a message may quote the request.
                    write("[ERROR: \(error.message)]", escaped: escaped)
                }
            case .block(let expression, let inverse, let end):
                do {
                    try renderBlock(expression, body: index + 1..<inverse, inverse: inverse..<end)
                } catch {
                    output.write("[ERROR: \(error.message)]")
                }
                index = end
                continue
            }
            index += 1
        }
    }

    private mutating func renderBlock(_ expression: TemplateExpression, body: Range<Int>, inverse: Range<Int>) throws(HelperError) {
        switch expression.keyword {
        case .if, .unless:
            let value = try argument(expression, "a condition")
            var truthy = value.isTruthy
            if case .number(0) = value, try hashValue(expression, "includeZero")?.isTruthy == true { truthy = true }
            render(truthy == (expression.keyword == .if) ? body : inverse)
        case .with:
            let value = try argument(expression, "a value")
            if value.isTruthy {
                renderWithin(value, body, blockParams: expression.blockParams.prefix(1).map { ($0, value) })
            } else {
                render(inverse)
            }
        case .each:
            try renderEach(argument(expression, "a list"), body: body, inverse: inverse, blockParams: expression.blockParams)
        case .arrayJoin:
            var parameters: [TemplateValue] = []
            for operand in expression.params { parameters.append(try value(of: operand)) }
            let join = try ArrayJoin(parameters, prefix: hashValue(expression, "prefix"), suffix: hashValue(expression, "suffix"))
            guard !join.items.isEmpty else { return }
            output.write(join.prefix)
            frames.append(Frame(this: .null))
            defer { frames.removeLast() }
            for index in join.items.indices {
                guard RequestBudget.spend(in: "#arrayJoin") else { throw HelperError.budgetExceeded(in: "#arrayJoin") }
                if index > 0 { output.write(join.separator) }
                renderItem(join.items[index], key: nil, index: index, count: join.items.count, body: body, blockParams: expression.blockParams)
            }
            output.write(join.suffix)
        case nil where expression.takesBlock:
            var enclosing = ByteWriter(capacity: 256)
            swap(&output, &enclosing)
            render(body)
            swap(&output, &enclosing)
            output.write(try evaluate(expression, block: String(decoding: enclosing.bytes, as: UTF8.self)).text)
        case nil where expression.helper != nil:
            // Other helpers as blocks are conditions: eq, contains, matches…
            render(try evaluate(expression).isTruthy ? body : inverse)
        case nil:
            // A path as a block (Mustache sections): lists repeat, objects become the context.
            let value = try evaluate(expression)
            switch value {
            case .array: try renderEach(value, body: body, inverse: inverse)
            case .object(let object) where object.elements != nil: try renderEach(value, body: body, inverse: inverse)
            case .object: renderWithin(value, body)
            default: render(value.isTruthy ? body : inverse)
            }
        }
    }

    private mutating func write(_ value: TemplateValue, escaped: Bool) {
        if case .string(let text) = value { write(text, escaped: escaped) } else { write(value.text, escaped: escaped) }
    }

    private mutating func write(_ text: String, escaped: Bool) {
        if escaped { TextEscaper.handlebars.append(text, to: &output) } else { output.write(text) }
    }

    private mutating func renderEach(
        _ value: TemplateValue, body: Range<Int>, inverse: Range<Int>,
        blockParams: [String] = []
    ) throws(HelperError) {
        // Lists, the usual case, are walked as they are: no list of (key, value) pairs is made.
        // One frame serves every item: it is pushed once and its item replaced in place.
        if case .array(let items) = value {
            guard !items.isEmpty else { return render(inverse) }
            frames.append(Frame(this: .null))
            defer { frames.removeLast() }
            for index in items.indices {
                guard RequestBudget.spend(in: "#each") else { throw HelperError.budgetExceeded(in: "#each") }
                renderItem(items[index], key: nil, index: index, count: items.count, body: body, blockParams: blockParams)
            }
            return
        }
        let items = value.eachItems
        guard !items.isEmpty else { return render(inverse) }
        frames.append(Frame(this: .null))
        defer { frames.removeLast() }
        for (index, item) in items.enumerated() {
            guard RequestBudget.spend(in: "#each") else { throw HelperError.budgetExceeded(in: "#each") }
            renderItem(item.value, key: item.key, index: index, count: items.count, body: body, blockParams: blockParams)
        }
    }

    /// Renders `body` for one item, in the frame `renderEach` pushed for the list.
    private mutating func renderItem(_ item: TemplateValue, key: String?, index: Int, count: Int, body: Range<Int>, blockParams: [String]) {
        let top = frames.count - 1
        frames[top].this = item
        frames[top].each = (index, count, key)
        if !blockParams.isEmpty {
            frames[top].blockParams.removeAll(keepingCapacity: true)
            frames[top].blockParams.append((blockParams[0], item))
            if blockParams.count > 1 { frames[top].blockParams.append((blockParams[1], key.map(TemplateValue.string) ?? .number(Double(index)))) }
        }
        render(body)
    }

    private mutating func renderWithin(_ value: TemplateValue, _ body: Range<Int>, blockParams: [(name: String, value: TemplateValue)] = []) {
        frames.append(Frame(this: value, blockParams: blockParams))
        render(body)
        frames.removeLast()
    }

    private func argument(_ expression: TemplateExpression, _ what: String) throws(HelperError) -> TemplateValue {
        guard let first = expression.params.first else { throw HelperError("\(expression.helperName ?? "block") needs \(what)") }
        return try value(of: first)
    }

    private func hashValue(_ expression: TemplateExpression, _ key: String) throws(HelperError) -> TemplateValue? {
        guard let operand = expression.hash.first(where: { $0.key == key })?.value else { return nil }
        return try value(of: operand)
    }

    private func evaluate(_ expression: TemplateExpression, block: String? = nil) throws(HelperError) -> TemplateValue {
        if let helper = expression.helper, let name = expression.helperName {
            var params: [TemplateValue] = []
            for operand in expression.params { params.append(try value(of: operand)) }
            var hash: [String: TemplateValue] = [:]
            for (key, operand) in expression.hash { hash[key] = try value(of: operand) }
            // Each call is a step of the request's budget; a helper that loops over its input
            // spends more as it goes, and one that ran out is named as where it did.
            let budget = RequestBudget.current
            guard budget?.spend(in: name) ?? true else { throw HelperError.budgetExceeded(in: name) }
            let result = try helper(
                HelperCall(
                    name: name, params: params, hash: hash, context: frames[frames.count - 1].this,
                    block: block, variables: variables))
            if let budget, budget.exhaustedIn != nil {
                budget.attribute(to: name)
                throw HelperError.budgetExceeded(in: name)
            }
            return result
        }
        return try value(of: expression.head)
    }

    private func value(of operand: TemplateOperand) throws(HelperError) -> TemplateValue {
        switch operand {
        case .literal(let value): return value
        case .subexpression(let inner): return try evaluate(inner)
        case .path(let path): return resolve(path)
        }
    }

    private func resolve(_ path: TemplatePath) -> TemplateValue {
        let keys = path.keys
        // The keys before `rest` have been used to find the start.
        var rest = 0
        var value: TemplateValue?
        if path.isData {
            guard let name = keys.first?.name else { return .null }
            rest = 1
            value = name == "root" ? root : eachData(name)
        } else {
            let frameIndex = max(0, frames.count - 1 - path.depth)
            if path.isThis || keys.isEmpty {
                value = frames[frameIndex].this
            } else {
                let first = keys[0]
                rest = 1
                // Like Handlebars.java (WireMock's engine), a name not found in the current
                // context is looked up in the enclosing ones.
                var index = frameIndex
                while index >= 0, value == nil {
                    if !frames[index].blockParams.isEmpty {
                        value = frames[index].blockParams.first { $0.name == first.name }?.value
                    }
                    if value == nil { value = frames[index].this.member(first) }
                    if path.depth > 0 { break }
                    index -= 1
                }
                if value == nil, let variables { value = variables.values[first.name] }
            }
        }
        for index in rest..<keys.count {
            value = value?.member(keys[index])
        }
        return value ?? .null
    }

    /// `@index`, `@first`, `@last`, `@key` of the innermost `#each`.
    private func eachData(_ name: String) -> TemplateValue? {
        guard let each = frames.last(where: { $0.each != nil })?.each else { return nil }
        switch name {
        case "index": return .number(Double(each.index))
        case "first": return .bool(each.index == 0)
        case "last": return .bool(each.index == each.count - 1)
        case "key": return each.key.map(TemplateValue.string) ?? .number(Double(each.index))
        default: return nil
        }
    }
}
