import Foundation
import XML

/// An Atom entry a client sends (a status update, a board message, a blog entry or comment, a
/// saved story): the elements the services read.
struct AtomEntry {
    var id: String?
    var title: String?
    var content: String?
    var categories: [(scheme: String?, term: String)] = []

    func hasCategory(_ term: String) -> Bool { categories.contains { $0.term == term } }
    var tags: [String] { categories.filter { $0.scheme == nil }.map(\.term) }

    /// nil when the body is not XML with an `<entry>` root (read by the XML module: no entities,
    /// no network, bounded).
    static func parse(_ body: [UInt8]) -> AtomEntry? {
        guard let tree = try? XMLTree.parse(body), tree.root.localName == "entry" else { return nil }
        var entry = AtomEntry()
        for case .element(let child) in tree.root.children {
            switch child.localName {
            case "category":
                if let term = child.attribute("term") { entry.categories.append((child.attribute("scheme"), term)) }
            case "id": entry.id = innerText(child)
            case "title": entry.title = innerText(child)
            case "content": entry.content = innerText(child)
            default: break
            }
        }
        return entry
    }

    /// The element's text, with markup inside it (`<content type="xhtml">`) kept as bare tags.
    private static func innerText(_ element: XMLElementView) -> String {
        func append(_ element: XMLElementView, to text: inout String) {
            for child in element.children {
                switch child {
                case .text(let part): text += part
                case .element(let inner):
                    text += "<\(inner.localName)>"
                    append(inner, to: &text)
                    text += "</\(inner.localName)>"
                default: break
                }
            }
        }
        var text = ""
        append(element, to: &text)
        return text.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
