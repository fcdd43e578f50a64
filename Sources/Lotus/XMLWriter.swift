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
        raw("<?xml version=\"1.0\" encoding=\"UTF-8\"?>" as StaticString)
    }

    mutating func open(_ name: String, _ attributes: KeyValuePairs<String, String> = [:]) {
        newline()
        start(name, attributes)
        raw(">" as StaticString)
        depth += 1
    }

    mutating func close(_ name: String) {
        depth -= 1
        newline()
        raw("</" as StaticString)
        raw(name)
        raw(">" as StaticString)
    }

    /// `<name attr="…">text</name>`; an empty element without text.
    mutating func element(_ name: String, _ attributes: KeyValuePairs<String, String> = [:], text: String? = nil) {
        newline()
        start(name, attributes)
        guard let text else {
            raw("/>" as StaticString)
            return
        }
        raw(">" as StaticString)
        escape(text, attribute: false)
        raw("</" as StaticString)
        raw(name)
        raw(">" as StaticString)
    }

    /// Already-formed markup.
    mutating func raw(_ text: String) {
        var text = text
        text.withUTF8 { bytes.append(contentsOf: $0) }
    }

    mutating func raw(_ text: StaticString) {
        bytes.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    private mutating func start(_ name: String, _ attributes: KeyValuePairs<String, String>) {
        raw("<" as StaticString)
        raw(name)
        for (key, value) in attributes {
            raw(" " as StaticString)
            raw(key)
            raw("=\"" as StaticString)
            escape(value, attribute: true)
            raw("\"" as StaticString)
        }
    }

    private mutating func newline() {
        guard indented, !bytes.isEmpty else { return }
        bytes.append(UInt8(ascii: "\n"))
        bytes.append(contentsOf: repeatElement(UInt8(ascii: " "), count: depth))
    }

    /// Appends `text` escaped: runs without a special character are copied whole.
    private mutating func escape(_ text: String, attribute: Bool) {
        var text = text
        text.withUTF8 { source in
            var start = 0
            for index in 0..<source.count {
                let replacement: StaticString
                switch source[index] {
                case UInt8(ascii: "&"): replacement = "&amp;"
                case UInt8(ascii: "<"): replacement = "&lt;"
                case UInt8(ascii: ">"): replacement = "&gt;"
                case UInt8(ascii: "\"") where attribute: replacement = "&quot;"
                // Kept as a reference: parsers turn a literal CR into LF.
                case UInt8(ascii: "\r"): replacement = "&#13;"
                default: continue
                }
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: source[start..<index]))
                bytes.append(contentsOf: UnsafeBufferPointer(start: replacement.utf8Start, count: replacement.utf8CodeUnitCount))
                start = index + 1
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: source[start...]))
        }
    }

    /// Text escaped for XML, as a string (HTML content embedded in an Atom element).
    static func escaped(_ text: String) -> String {
        var writer = XMLWriter(capacity: text.utf8.count + 16)
        writer.escape(text, attribute: true)
        return String(decoding: writer.bytes, as: UTF8.self)
    }
}
