/// Writes XML as bytes: compact (Profiles and News write feeds on one line) or indented (Blogs
/// pretty-prints), with text and attribute values escaped.
struct XMLWriter {
    private(set) var bytes: [UInt8] = []
    private let indented: Bool
    private var depth = 0

    init(indented: Bool = false, capacity: Int = 4096) {
        self.indented = indented
        bytes.reserveCapacity(capacity)
    }

    mutating func declaration() {
        raw("<?xml version=\"1.0\" encoding=\"UTF-8\"?>")
    }

    mutating func open(_ name: String, _ attributes: KeyValuePairs<String, String> = [:]) {
        newline()
        start(name, attributes)
        raw(">")
        depth += 1
    }

    mutating func close(_ name: String) {
        depth -= 1
        newline()
        raw("</\(name)>")
    }

    /// `<name attr="…">text</name>`; an empty element without text.
    mutating func element(_ name: String, _ attributes: KeyValuePairs<String, String> = [:], text: String? = nil) {
        newline()
        start(name, attributes)
        guard let text else {
            raw("/>")
            return
        }
        raw(">")
        escape(text, attribute: false)
        raw("</\(name)>")
    }

    /// Already-formed markup.
    mutating func raw(_ text: String) {
        bytes.append(contentsOf: text.utf8)
    }

    private mutating func start(_ name: String, _ attributes: KeyValuePairs<String, String>) {
        raw("<" + name)
        for (key, value) in attributes {
            raw(" \(key)=\"")
            escape(value, attribute: true)
            raw("\"")
        }
    }

    private mutating func newline() {
        guard indented, !bytes.isEmpty else { return }
        bytes.append(UInt8(ascii: "\n"))
        bytes.append(contentsOf: repeatElement(UInt8(ascii: " "), count: depth))
    }

    private mutating func escape(_ text: String, attribute: Bool) {
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "&"): raw("&amp;")
            case UInt8(ascii: "<"): raw("&lt;")
            case UInt8(ascii: ">"): raw("&gt;")
            case UInt8(ascii: "\"") where attribute: raw("&quot;")
            // Kept as a reference: parsers turn a literal CR into LF.
            case UInt8(ascii: "\r"): raw("&#13;")
            default: bytes.append(byte)
            }
        }
    }

    /// Text escaped for XML, as a string (HTML content embedded in an Atom element).
    static func escaped(_ text: String) -> String {
        var writer = XMLWriter(capacity: text.utf8.count + 16)
        writer.escape(text, attribute: true)
        return String(decoding: writer.bytes, as: UTF8.self)
    }
}
