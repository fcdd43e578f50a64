import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

/// `equalToXml` and `matchesXPath` on FoundationXML's XMLDocument.
enum XMLComparison {
    /// Semantic equality: same elements, attributes (any order) and text, ignoring whitespace-only
    /// text between elements and comments.
    static func equal(_ expected: String, _ actual: String) -> Bool {
        guard let want = try? XMLDocument(xmlString: expected, options: []),
              let have = try? XMLDocument(xmlString: actual, options: []),
              let a = want.rootElement(), let b = have.rootElement() else { return false }
        return same(a, b)
    }

    private static func same(_ a: XMLElement, _ b: XMLElement) -> Bool {
        guard a.localName == b.localName, a.uri == b.uri else { return false }
        let attributes = { (element: XMLElement) in
            Dictionary((element.attributes ?? []).map { ($0.name ?? "", $0.stringValue ?? "") }, uniquingKeysWith: { x, _ in x })
        }
        guard attributes(a) == attributes(b) else { return false }
        let significant = { (element: XMLElement) -> [XMLNode] in
            (element.children ?? []).filter { node in
                switch node.kind {
                case .comment: false
                case .text: !(node.stringValue ?? "").allSatisfy(\.isWhitespace)
                default: true
                }
            }
        }
        let left = significant(a), right = significant(b)
        guard left.count == right.count else { return false }
        for (x, y) in zip(left, right) {
            if let x = x as? XMLElement, let y = y as? XMLElement {
                if !same(x, y) { return false }
            } else if x.kind != y.kind || x.stringValue != y.stringValue {
                return false
            }
        }
        return true
    }

    /// The string values of the nodes `expression` selects, or nil when the document or the
    /// expression is invalid. Namespace prefixes are declared on the root for the query.
    static func evaluate(xPath expression: String, namespaces: [String: String], in xml: String) -> [String]? {
        guard let document = try? XMLDocument(xmlString: xml, options: []) else { return nil }
        if let root = document.rootElement() {
            for (prefix, uri) in namespaces {
                if let namespace = XMLNode.namespace(withName: prefix, stringValue: uri) as? XMLNode { root.addNamespace(namespace) }
            }
        }
        guard let nodes = try? document.nodes(forXPath: expression) else { return nil }
        return nodes.map { $0.stringValue ?? "" }
    }
}
