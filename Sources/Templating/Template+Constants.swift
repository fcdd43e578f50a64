import WireFormat

extension Template {
    /// A copy in which what `constants` fixes is text already: each `{{path}}` whose first name is
    /// a member of `constants` is replaced by that member's text (escaped as the tag asks), where
    /// the path is read from the render's root — at the top level (outside `#each`, `#with` and
    /// sections, which change `this`) or after `@root`. For a page rendered many times whose context
    /// always holds the same values under some names (a store's ids and labels in one language):
    /// the caller promises that the context's first member of each such name is `constants`' one.
    public func folding(_ constants: TemplateObject) -> Template {
        Template(nodes: Self.fold(nodes, constants, atRoot: true), helpers: helpers, assignsVariables: assignsVariables)
    }

    private static func fold(_ nodes: [TemplateNode], _ constants: TemplateObject, atRoot: Bool) -> [TemplateNode] {
        var folded: [TemplateNode] = []
        // Neighbouring texts become one, written at once.
        func append(_ node: TemplateNode) {
            if case .text(let text) = node, case .text(let previous)? = folded.last {
                folded[folded.count - 1] = .text(previous + text)
            } else {
                folded.append(node)
            }
        }
        for node in nodes {
            switch node {
            case .text:
                append(node)
            case .output(let expression, let escaped):
                if let value = constant(expression, constants, atRoot: atRoot) {
                    append(.text(escaped ? TextEscaper.handlebars.escaped(value.text) : value.text))
                } else {
                    append(node)
                }
            case .block(let expression, let body, let inverse):
                // Conditions and helpers render their body in the same context; `#each`, `#with`
                // and sections in another. An inverse is always rendered in the same one.
                let bodyAtRoot =
                    switch expression.keyword {
                    case .if, .unless: true
                    case .each, .with, .arrayJoin: false
                    case nil: expression.takesBlock || expression.helper != nil
                    }
                append(
                    .block(
                        expression, body: fold(body, constants, atRoot: atRoot && bodyAtRoot),
                        inverse: fold(inverse, constants, atRoot: atRoot)))
            }
        }
        return folded
    }

    /// The value `expression` shows when it is a plain path into `constants`.
    private static func constant(_ expression: TemplateExpression, _ constants: TemplateObject, atRoot: Bool) -> TemplateValue? {
        guard expression.helper == nil, expression.params.isEmpty, expression.hash.isEmpty,
            case .path(let path) = expression.head, path.depth == 0, !path.isThis
        else { return nil }
        var keys = path.keys[...]
        if path.isData {
            guard keys.popFirst()?.name == "root" else { return nil }
        } else if !atRoot {
            return nil
        }
        guard let first = keys.popFirst(), var value = constants.member(first) else { return nil }
        for key in keys {
            guard let next = value.member(key) else { return .null }
            value = next
        }
        return value
    }
}
