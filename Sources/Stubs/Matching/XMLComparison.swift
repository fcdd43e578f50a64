import WorkLimits
import XML

/// How `equalToXml` compares, as its options say (WireMock 3.7's `ignoreOrderOfSameNode`,
/// 3.12's `namespaceAwareness`).
public struct EqualToXmlOptions: Sendable, Hashable {
    public enum NamespaceAwareness: String, Sendable, CaseIterable {
        /// Names by namespace URI and local name; prefixes and `xmlns` declarations do not count.
        case strict = "STRICT"
        /// 2.x's: elements by local name (prefix dropped) and default namespace; attributes by the name written.
        case legacy = "LEGACY"
        /// Names as written; `xmlns` declarations are attributes like any other.
        case unaware = "NONE"
    }

    /// Siblings of the same name may come in any order (siblings of different names always may).
    var ignoreOrderOfSameNode = false
    /// nil: as `strict`, but a prefix no declaration binds is taken as part of the name
    /// instead of refusing the document (what 2.35 accepted).
    var namespaceAwareness: NamespaceAwareness?
}

/// `equalToXml` and `matchesXPath` over the XML module (libxml2, no entities, no network): a body
/// that is not XML never matches.
enum XMLComparison {
    /// Semantic equality as XMLUnit's, which WireMock uses: the same elements, attributes (any
    /// order) and text, ignoring whitespace-only text between elements and comments; sibling
    /// elements matched by name whatever their order among other names.
    static func equal(_ expected: String, _ actual: String, _ options: EqualToXmlOptions = EqualToXmlOptions()) -> Bool {
        guard let want = try? XMLTree.parse(expected), let have = try? XMLTree.parse(actual) else { return false }
        if options.namespaceAwareness == .strict, want.hasUnboundPrefixes || have.hasUnboundPrefixes { return false }
        return same(want.root, have.root, options)
    }

    /// An `equalToXml` operand must be XML (WireMock refuses the mapping with `422` otherwise), with
    /// every prefix bound under `STRICT`.
    static func checkExpected(_ expected: String, _ options: EqualToXmlOptions, field: String) throws(StubError) {
        let tree: XMLTree
        do throws(XMLReadError) {
            tree = try XMLTree.parse(expected)
        } catch {
            throw StubError(field: field, message: "\(error)")
        }
        if options.namespaceAwareness == .strict, tree.hasUnboundPrefixes {
            throw StubError(field: field, message: "a namespace prefix no xmlns declaration binds (namespaceAwareness STRICT)")
        }
    }

    private static func name(_ element: XMLElementView, _ options: EqualToXmlOptions) -> String {
        switch options.namespaceAwareness {
        case nil, .strict: element.localName
        case .legacy: String(element.localName.split(separator: ":").last ?? "")
        case .unaware: element.qualifiedName
        }
    }

    private static func same(_ a: XMLElementView, _ b: XMLElementView, _ options: EqualToXmlOptions) -> Bool {
        guard name(a, options) == name(b, options) else { return false }
        switch options.namespaceAwareness {
        case nil, .strict:
            guard a.namespaceURI == b.namespaceURI else { return false }
            let attributes = { (element: XMLElementView) in
                Dictionary(element.attributes.map { ("\($0.namespaceURI ?? "") \($0.name)", $0.value) }, uniquingKeysWith: { x, _ in x })
            }
            guard attributes(a) == attributes(b) else { return false }
        case .legacy:
            let defaultNamespace = { (element: XMLElementView) in element.namespaceDeclarationAttributes.first { $0.name == "xmlns" }?.value }
            guard defaultNamespace(a) == defaultNamespace(b) else { return false }
            let attributes = { (element: XMLElementView) in Dictionary(element.qualifiedAttributes, uniquingKeysWith: { x, _ in x }) }
            guard attributes(a) == attributes(b) else { return false }
        case .unaware:
            let attributes = { (element: XMLElementView) in
                Dictionary(element.qualifiedAttributes + element.namespaceDeclarationAttributes, uniquingKeysWith: { x, _ in x })
            }
            guard attributes(a) == attributes(b) else { return false }
        }
        var left = Significant(a)
        var right = Significant(b)
        guard left.count == right.count, left.texts == right.texts, left.others == right.others else { return false }
        left.sort(by: options)
        right.sort(by: options)
        return zip(left.elements, right.elements).allSatisfy { same($0, $1, options) }
    }

    /// An element's children that count: elements, text that is not only whitespace, and the rest
    /// (processing instructions); comments never count.
    private struct Significant {
        var elements: [XMLElementView] = []
        var texts: [String] = []
        var others = 0

        init(_ element: XMLElementView) {
            for child in element.children {
                switch child {
                case .comment: continue
                case .text(let text): if !text.allSatisfy(\.isWhitespace) { texts.append(text) }
                case .element(let child): elements.append(child)
                case .other: others += 1
                }
            }
        }

        var count: Int { elements.count + texts.count + others }

        /// XMLUnit matches siblings by name after WireMock sorts them by name (stably), and by
        /// their text too with `ignoreOrderOfSameNode`.
        mutating func sort(by options: EqualToXmlOptions) {
            let keyed = elements.enumerated().map {
                (
                    offset: $0.offset, element: $0.element, name: XMLComparison.name($0.element, options),
                    text: options.ignoreOrderOfSameNode ? $0.element.text : ""
                )
            }
            elements = keyed.sorted { x, y in
                if x.name != y.name { return x.name < y.name }
                if x.text != y.text { return x.text < y.text }
                return x.offset < y.offset
            }.map(\.element)
        }
    }

    /// The string values of the nodes `expression` selects, or nil when the document or the
    /// expression is invalid.
    static func evaluate(xPath expression: String, namespaces: [String: String], in xml: String) -> [String]? {
        // libxml2 bounds each evaluation's steps; the request's budget bounds how many run.
        guard RequestBudget.spend(in: "matchesXPath"), let document = try? XMLTree.parse(xml) else { return nil }
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
        // Too costly (libxml2's step limit) prints nothing, as WireMock prints for no match.
        // A prefix the expression names finds nothing once names have no namespace (as in WireMock).
        return (try? document.evaluate(xPath: expression)) ?? []
    }
}
