import WireFormat

/// Writes XML as bytes: compact (Profiles and News write feeds on one line) or indented (Blogs
/// pretty-prints), with text and attribute values escaped.
struct XMLWriter: ~Copyable {
    private var out: ByteWriter
    private let indented: Bool
    private var depth = 0

    init(indented: Bool = false, capacity: Int = 4096) {
        self.indented = indented
        out = ByteWriter(capacity: capacity)
    }

    /// The document written so far.
    var bytes: [UInt8] { out.bytes }

    /// How many bytes have been written.
    var count: Int { out.byteCount }

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
        TextEscaper.xmlText.append(text, to: &out)
        raw("</" as StaticString)
        raw(name)
        raw(">" as StaticString)
    }

    /// Already-formed markup.
    mutating func raw(_ text: String) {
        out.write(text)
    }

    mutating func raw(_ text: StaticString) {
        out.write(text)
    }

    mutating func raw(_ bytes: [UInt8]) {
        out.write(bytes)
    }

    mutating func raw(_ bytes: UnsafeBufferPointer<UInt8>) {
        out.write(bytes)
    }

    private mutating func start(_ name: String, _ attributes: KeyValuePairs<String, String>) {
        raw("<" as StaticString)
        raw(name)
        for (key, value) in attributes {
            raw(" " as StaticString)
            raw(key)
            raw("=\"" as StaticString)
            TextEscaper.xmlAttribute.append(value, to: &out)
            raw("\"" as StaticString)
        }
    }

    private mutating func newline() {
        guard indented, !out.isEmpty else { return }
        out.write(byte: UInt8(ascii: "\n"))
        for _ in 0..<depth { out.write(byte: UInt8(ascii: " ")) }
    }

    /// Text escaped for XML, as a string (HTML content embedded in an Atom element).
    static func escaped(_ text: String) -> String {
        TextEscaper.xmlAttribute.escaped(text)
    }
}
