import XML

/// `equalToXml` and `matchesXPath` over the XML module (libxml2, no entities, no network): a body
/// that is not XML never matches.
enum XMLComparison {
    /// Semantic equality: same elements, attributes (any order) and text, ignoring whitespace-only
    /// text between elements and comments.
    static func equal(_ expected: String, _ actual: String) -> Bool {
        guard let want = try? XMLTree.parse(expected), let have = try? XMLTree.parse(actual) else { return false }
        return same(want.root, have.root)
    }

    private static func same(_ a: XMLElementView, _ b: XMLElementView) -> Bool {
        guard a.localName == b.localName, a.namespaceURI == b.namespaceURI else { return false }
        let attributes = { (element: XMLElementView) in
            Dictionary(element.attributes.map { ("\($0.namespaceURI ?? "") \($0.name)", $0.value) }, uniquingKeysWith: { x, _ in x })
        }
        guard attributes(a) == attributes(b) else { return false }
        let significant = { (element: XMLElementView) -> [XMLElementView.Child] in
            element.children.filter { child in
                switch child {
                case .comment: false
                case .text(let text): !text.allSatisfy(\.isWhitespace)
                default: true
                }
            }
        }
        let left = significant(a), right = significant(b)
        guard left.count == right.count else { return false }
        for (x, y) in zip(left, right) {
            switch (x, y) {
            case (.element(let x), .element(let y)): if !same(x, y) { return false }
            case (.text(let x), .text(let y)): if x != y { return false }
            case (.other, .other): continue
            default: return false
            }
        }
        return true
    }

    /// The string values of the nodes `expression` selects, or nil when the document or the
    /// expression is invalid.
    static func evaluate(xPath expression: String, namespaces: [String: String], in xml: String) -> [String]? {
        guard let document = try? XMLTree.parse(xml) else { return nil }
        return try? document.evaluate(xPath: expression, namespaces: namespaces)
    }

    /// Why a template's XPath gives nothing to print, in WireMock's words.
    enum TemplateFailure: Error {
        case notXML(String), invalidXPath(String)

        var message: String {
            switch self {
            case .notXML(let input): "\(input) is not valid XML"
            case .invalidXPath(let expression): "\(expression) is not a valid XPath expression"
            }
        }
    }

    /// The template helpers' XPath: names match by their local part whatever their namespace,
    /// as in WireMock's `xPath` and `soapXPath`.
    static func evaluateForTemplate(xPath expression: String, in xml: String) throws(TemplateFailure) -> [String] {
        guard let document = try? XMLTree.parse(xml) else { throw .notXML(xml) }
        guard document.isValidXPath(expression) else { throw .invalidXPath(expression) }
        document.forgetNamespaces()
        // A prefix the expression names finds nothing once names have no namespace (as in WireMock).
        return (try? document.evaluate(xPath: expression)) ?? []
    }
}
