import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

/// An Atom entry a client sends (a status update, a board message, a blog entry or comment, a
/// saved story): the elements the services read.
struct AtomEntry {
    var id: String?
    var title: String?
    var content: String?
    var categories: [(scheme: String?, term: String)] = []

    func hasCategory(_ term: String) -> Bool { categories.contains { $0.term == term } }
    var tags: [String] { categories.filter { $0.scheme == nil }.map(\.term) }

    /// nil when the body is not XML with an `<entry>` root.
    static func parse(_ body: [UInt8]) -> AtomEntry? {
        let reader = Reader()
        let parser = XMLParser(data: Data(body))
        parser.shouldProcessNamespaces = true
        parser.delegate = reader
        guard parser.parse(), reader.sawEntry else { return nil }
        return reader.entry
    }

    private final class Reader: NSObject, XMLParserDelegate {
        var entry = AtomEntry()
        var sawEntry = false
        private var depth = 0
        private var text = ""
        /// Markup inside `<content type="xhtml">` is kept as text.
        private var field: String?

        func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
                    attributes: [String: String] = [:]) {
            depth += 1
            if depth == 1 {
                sawEntry = name == "entry"
                return
            }
            guard depth == 2 else {
                text += "<\(name)>"
                return
            }
            switch name {
            case "category":
                if let term = attributes["term"] { entry.categories.append((attributes["scheme"], term)) }
            case "id", "title", "content":
                field = name
                text = ""
            default:
                field = nil
            }
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) {
            if field != nil { text += string }
        }

        func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
            defer { depth -= 1 }
            if depth > 2, field != nil {
                text += "</\(name)>"
                return
            }
            guard depth == 2, let field else { return }
            let value = text.trimmingCharacters(in: .whitespacesAndNewlines)
            switch field {
            case "id": entry.id = value
            case "title": entry.title = value
            default: entry.content = value
            }
            self.field = nil
        }
    }
}
