extension Template {
    /// The template before and after its one `{{{name}}}`, for a caller that writes what `name`
    /// stands for itself (a page's body, rendered straight into the page inside its layout) instead
    /// of passing it in the context as text. Nil unless rendering the two halves around those bytes
    /// is the same as rendering the whole: `{{{name}}}` is at the top level, and nothing else can
    /// read `name` — no other path names it, none reads the context whole (`this`, `@root`,
    /// `../`), and no helper is called (a helper is given the context).
    public func split(around name: String) -> (head: Template, tail: Template)? {
        let isSlot = { (node: TemplateNode) -> Bool in
            guard case .output(let expression, escaped: false) = node, expression.helper == nil, !expression.takesBlock,
                expression.params.isEmpty, expression.hash.isEmpty, case .path(let path) = expression.head,
                !path.isData, !path.isThis, path.depth == 0
            else { return false }
            return path.segments == [name]
        }
        guard let index = nodes.firstIndex(where: isSlot) else { return nil }
        let others = nodes[..<index] + nodes[(index + 1)...]
        guard !Self.mayRead(name, in: Array(others)) else { return nil }
        return (
            Template(nodes: Array(nodes[..<index]), helpers: helpers, assignsVariables: assignsVariables),
            Template(nodes: Array(nodes[(index + 1)...]), helpers: helpers, assignsVariables: assignsVariables)
        )
    }

    private static func mayRead(_ name: String, in nodes: [TemplateNode]) -> Bool {
        nodes.contains { node in
            switch node {
            case .text: false
            case .output(let expression, _): mayRead(name, in: expression)
            case .block(let expression, let body, let inverse): mayRead(name, in: expression) || mayRead(name, in: body) || mayRead(name, in: inverse)
            }
        }
    }

    private static func mayRead(_ name: String, in expression: TemplateExpression) -> Bool {
        if expression.helper != nil || expression.takesBlock { return true }
        return ([expression.head] + expression.params + expression.hash.map(\.value)).contains { operand in
            switch operand {
            case .literal: false
            case .subexpression(let inner): mayRead(name, in: inner)
            case .path(let path):
                path.isThis || path.depth > 0 || (path.isData && path.segments.first == "root")
                    || (!path.isData && path.segments.first == name)
            }
        }
    }
}
