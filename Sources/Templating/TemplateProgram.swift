/// A template's nodes lowered once, when the template is made, to the flat list of steps the
/// renderer runs: literal text as runs of one byte buffer (written with one copy, no String and
/// no reference count), tags as steps holding their expression, and a block as one step followed
/// by its body and then its inverse, which the step finds by offsets. Walking it copies no node
/// and recurses into no array of nodes; the nodes stay as the parsed form that `folding` and
/// `split` rewrite (each rewrite is lowered again).
final class TemplateProgram: @unchecked Sendable {
    enum Step {
        /// The bytes `text[start..<end]`.
        case text(start: Int, end: Int)
        /// `{{path}}` or `{{{path}}}`: a path alone, resolved without evaluating an expression.
        case path(TemplatePath, escaped: Bool)
        /// `{{helper …}}` and any other tag that is evaluated.
        case output(TemplateExpression, escaped: Bool)
        /// `{{#…}}`: the body is the steps from the next one to `inverse`, the inverse (`{{else}}`)
        /// those from `inverse` to `end`, where the steps after the block start.
        case block(TemplateExpression, inverse: Int, end: Int)
    }

    let steps: [Step]
    /// Every literal text, one after the other. Never written after `init`, so the renderer reads
    /// it through this pointer for the program's lifetime.
    let text: UnsafeMutableBufferPointer<UInt8>

    init(_ nodes: [TemplateNode]) {
        var steps: [Step] = []
        var text: [UInt8] = []
        /// Whether the last step is text that the next text may extend (not across a block's edge).
        var extendable = false
        func lower(_ nodes: [TemplateNode]) {
            for node in nodes {
                switch node {
                case .text(let literal):
                    if extendable, case .text(let start, _) = steps[steps.count - 1] {
                        text.append(contentsOf: literal.utf8)
                        steps[steps.count - 1] = .text(start: start, end: text.count)
                    } else {
                        let start = text.count
                        text.append(contentsOf: literal.utf8)
                        steps.append(.text(start: start, end: text.count))
                        extendable = true
                    }
                case .output(let expression, let escaped):
                    steps.append(expression.plainPath.map { .path($0, escaped: escaped) } ?? .output(expression, escaped: escaped))
                    extendable = false
                case .block(let expression, let body, let inverse):
                    let at = steps.count
                    steps.append(.text(start: 0, end: 0))  // replaced below, once the offsets are known
                    extendable = false
                    lower(body)
                    let inverseAt = steps.count
                    extendable = false
                    lower(inverse)
                    steps[at] = .block(expression, inverse: inverseAt, end: steps.count)
                    extendable = false
                }
            }
        }
        lower(nodes)
        self.steps = steps
        self.text = .allocate(capacity: text.count)
        _ = self.text.initialize(from: text)
    }

    deinit { text.deallocate() }
}
