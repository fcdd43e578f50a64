/// A parsed document written out again, as WireMock 3's `formatXml` helper writes it (the JDK's
/// transformer after whitespace-only text is dropped): no XML declaration; `pretty` puts each
/// element on a line of its own, indented by two spaces per level, an element whose content is
/// text on one line, and ends with a newline; `compact` writes it all on one line. Comments are
/// kept, processing instructions dropped, CDATA written as text.
/// Unverified against the JDK: mixed content (text beside elements) is written on one line, and
/// namespace declarations come before the other attributes.
extension XMLTree {
    public func formatted(pretty: Bool) -> String {
        var out = ""
        write(root, depth: 0, pretty: pretty, into: &out)
        return out
    }

    private func write(_ element: XMLElementView, depth: Int, pretty: Bool, into out: inout String) {
        let indent = pretty ? String(repeating: " ", count: depth * 2) : ""
        out += indent + "<" + element.qualifiedName
        for (name, value) in element.namespaceDeclarationAttributes + element.qualifiedAttributes {
            out += " " + name + "=\"" + Self.escaped(value, attribute: true) + "\""
        }
        let children = element.children.filter { child in
            if case .text(let text) = child { return !text.allSatisfy(\.isWhitespace) }
            return true
        }
        guard !children.isEmpty else {
            out += pretty ? "/>\n" : "/>"
            return
        }
        out += ">"
        let inline = !pretty || children.contains { if case .text = $0 { true } else { false } }
        if !inline { out += "\n" }
        for child in children {
            switch child {
            case .element(let inner):
                if inline {
                    write(inner, depth: 0, pretty: false, into: &out)
                } else {
                    write(inner, depth: depth + 1, pretty: true, into: &out)
                }
            case .text(let text):
                out += Self.escaped(text, attribute: false)
            case .comment(let text):
                out += (inline ? "" : indent + "  ") + "<!--" + text + "-->" + (inline ? "" : "\n")
            case .other:
                continue
            }
        }
        out += (inline ? "" : indent) + "</" + element.qualifiedName + ">" + (pretty ? "\n" : "")
    }

    private static func escaped(_ text: String, attribute: Bool) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for character in text.unicodeScalars {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"" where attribute: out += "&quot;"
            case "\n" where attribute: out += "&#10;"
            default: out.unicodeScalars.append(character)
            }
        }
        return out
    }
}
