import WireFormat

/// Writes what the seed's scripts print: a document made with `simplexml_load_string` and
/// `addChild`, output by `asXML()` (declaration with double quotes and the encoding as loaded,
/// no indentation, a newline after the root element). Element values go through the scripts'
/// `htmlentities($v)` and then libxml2's parsing of `addChild` content, so the bytes are those
/// PHP sent: `&` `<` `>` escaped, quotes literal, and non-ASCII characters left as the HTML
/// entity references htmlentities made of them (`&eacute;`, or `&Atilde;&copy;` for é on PHP
/// 5.3, which took strings as ISO-8859-1) — undeclared in XML, so strict parsers stop there.
struct SimpleXMLWriter: ~Copyable {
    /// An element name with its tags as bytes, made once for all the rows of an answer.
    struct Element {
        let name: String
        let open: [UInt8]
        let close: [UInt8]
        let empty: [UInt8]

        init(_ name: String) {
            self.name = name
            open = Array("<\(name)>".utf8)
            close = Array("</\(name)>".utf8)
            empty = Array("<\(name)/>".utf8)
        }
    }

    let runtime: PHPRuntime
    private let root: Element
    private var rootOpen = false
    private var bytes: ByteWriter

    /// Starts the document `<?xml version='1.0' encoding='utf-8'?><root/>` (as loaded).
    init(runtime: PHPRuntime, root: String, capacity: Int = 256) {
        self.runtime = runtime
        self.root = Element(root)
        bytes = ByteWriter(capacity: capacity)
        bytes.write("<?xml version=\"1.0\" encoding=\"utf-8\"?>\n")
    }

    /// Opens a child of the root (`$xml->addChild($name)`).
    mutating func openRow(_ element: Element) {
        if !rootOpen {
            bytes.write(root.open)
            rootOpen = true
        }
        bytes.write(element.open)
    }

    mutating func closeRow(_ element: Element) {
        bytes.write(element.close)
    }

    /// `$node->addChild($name, $value)` with `$value` taken as addChild takes it (entity
    /// references in it are parsed). nil: PHP's NULL (no content).
    mutating func addChild(_ element: Element, raw value: [UInt8]?) {
        guard let value else {
            bytes.write(element.empty)
            return
        }
        addChild(element, parsed: Self.parsedContent(value, runtime: runtime))
    }

    /// `addChild` with `content` as it stores it (`parsedContent` of the value): for a value
    /// written on every row, parsed once.
    mutating func addChild(_ element: Element, parsed content: [UInt8]) {
        if content.isEmpty && runtime.emptyValueSelfCloses {
            bytes.write(element.empty)
        } else {
            bytes.write(element.open)
            bytes.write(content)
            bytes.write(element.close)
        }
    }

    /// `$node->addChild($name, htmlentities($value))`, written in one pass: the same bytes as
    /// `parsedContent(HTMLEntities.encode(value))`, without the text in between.
    mutating func addEscapedChild(_ element: Element, _ value: String, padding: Int = 0) {
        guard openChild(element, isEmpty: value.isEmpty && padding == 0) else { return }
        HTMLEntities.appendAsXMLContent(value, runtime: runtime, to: &bytes)
        closeChild(element, padding: padding)
    }

    /// The same for an ASCII value, where no character has an HTML entity: XML's escaping only.
    mutating func addEscapedChild(_ element: Element, ascii value: UnsafeBufferPointer<UInt8>, padding: Int) {
        guard openChild(element, isEmpty: value.isEmpty && padding == 0) else { return }
        TextEscaper.xmlText.append(value, to: &bytes)
        closeChild(element, padding: padding)
    }

    /// `addChild` of an integer's decimal text (which needs no escaping).
    mutating func addChild(_ element: Element, integer: Int64) {
        bytes.write(element.open)
        if integer < 0 { bytes.write(byte: UInt8(ascii: "-")) }
        bytes.decimal(integer.magnitude)
        bytes.write(element.close)
    }

    /// Opens a child for its content; an empty one is written whole (false).
    private mutating func openChild(_ element: Element, isEmpty: Bool) -> Bool {
        if isEmpty {
            addChild(element, parsed: [])
            return false
        }
        bytes.write(element.open)
        return true
    }

    /// Ends a child's content with `padding` blanks.
    private mutating func closeChild(_ element: Element, padding: Int) {
        var blanks = padding
        while blanks > 0 {
            bytes.spaces(blanks)  // at most twenty at a time
            blanks -= 20
        }
        bytes.write(element.close)
    }

    /// The finished document, as `print $xml->asXML()` sends it.
    mutating func finish() -> [UInt8] {
        bytes.write(rootOpen ? root.close : root.empty)
        bytes.write(byte: UInt8(ascii: "\n"))
        return bytes.bytes
    }

    /// What libxml2 stores for addChild content, written back out: character references and
    /// the five predefined entities become characters (escaped again as libxml2 writes text:
    /// `TextEscaper.xmlText`), other named references stay references. A `&` with no `;` after it ends the
    /// content there (libxml2 2.7 warns "unterminated entity reference"; later versions keep
    /// nothing of it).
    static func parsedContent(_ value: [UInt8], runtime: PHPRuntime) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(value.count + 8)
        let xml = TextEscaper.xmlText  // read once: a global's accessor per byte costs a call
        var index = 0
        while index < value.count {
            let byte = value[index]
            guard byte == UInt8(ascii: "&") else {
                xml.append(byte: byte, to: &out)
                index += 1
                continue
            }
            guard let semicolon = value[index...].firstIndex(of: UInt8(ascii: ";")) else {
                return runtime.version == .php53 ? out : []
            }
            let name = value[(index + 1)..<semicolon]
            switch String(decoding: name, as: UTF8.self) {
            case "amp": out += Array("&amp;".utf8)
            case "lt": out += Array("&lt;".utf8)
            case "gt": out += Array("&gt;".utf8)
            case "quot": out.append(UInt8(ascii: "\""))
            case "apos": out.append(UInt8(ascii: "'"))
            case let text:
                if text.hasPrefix("#"), let scalar = characterReference(text.dropFirst()) {
                    for character in String(Character(scalar)).utf8 { xml.append(byte: character, to: &out) }
                } else {
                    out.append(UInt8(ascii: "&"))
                    out += name
                    out.append(UInt8(ascii: ";"))
                }
            }
            index = semicolon + 1
        }
        return out
    }

    private static func characterReference(_ digits: Substring) -> Unicode.Scalar? {
        let value = digits.first == "x" || digits.first == "X" ? UInt32(digits.dropFirst(), radix: 16) : UInt32(digits)
        return value.flatMap(Unicode.Scalar.init)
    }
}

/// PHP's `htmlentities($string)` with the default flags and charset of each version: 5.3
/// (ENT_COMPAT, ISO-8859-1: every byte of a UTF-8 character is taken as a Latin-1 character),
/// 5.4–8.0 (ENT_COMPAT, UTF-8), 8.1+ (ENT_QUOTES | ENT_SUBSTITUTE, UTF-8).
enum HTMLEntities {
    /// `htmlentities($value)` as addChild stores it and asXML writes it: `&` `<` `>` and CR
    /// escaped, quotes literal (their entities are predefined in XML), characters with an HTML
    /// entity as that entity's reference (undeclared in XML), everything else as is.
    static func appendAsXMLContent(_ text: String, runtime: PHPRuntime, to out: inout [UInt8]) {
        var writer = ByteWriter(capacity: text.utf8.count + 16)
        appendAsXMLContent(text, runtime: runtime, to: &writer)
        out += writer.bytes
    }

    static func appendAsXMLContent(_ text: String, runtime: PHPRuntime, to out: inout ByteWriter) {
        // Long native strings are read in place; short ones live inside the String value itself.
        if text.utf8.withContiguousStorageIfAvailable({ appendAsXMLContent($0, runtime: runtime, to: &out) }) == nil {
            var text = text
            text.withUTF8 { appendAsXMLContent($0, runtime: runtime, to: &out) }
        }
    }

    private static func appendAsXMLContent(_ bytes: UnsafeBufferPointer<UInt8>, runtime: PHPRuntime, to out: inout ByteWriter) {
        let xml = TextEscaper.xmlText  // read once: a global's accessor per byte costs a call
        // Most values are ASCII: escaped in runs, copied whole when nothing needs it.
        guard bytes.contains(where: { $0 >= 0x80 }) else { return xml.append(bytes, to: &out) }
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case 0..<0x80:
                if let replacement = xml.replacement(for: byte) { out.write(replacement) } else { out.write(byte: byte) }
            default:
                if runtime.version == .php53 {
                    // Each byte a Latin-1 character: 0xA0-0xFF have entities, 0x80-0x9F stay raw.
                    if byte >= 0xA0, let name = HTMLEntityTable.names[UInt32(byte)] { appendReference(name, to: &out) } else { out.write(byte: byte) }
                } else {
                    let length = byte >= 0xF0 ? 4 : byte >= 0xE0 ? 3 : 2
                    let end = min(index + length, bytes.count)
                    var scalar = UInt32(byte) & (length == 2 ? 0x1F : length == 3 ? 0x0F : 0x07)
                    for next in bytes[(index + 1)..<end] { scalar = scalar << 6 | UInt32(next & 0x3F) }
                    if let name = HTMLEntityTable.names[scalar] {
                        appendReference(name, to: &out)
                    } else {
                        out.write(UnsafeBufferPointer(rebasing: bytes[index..<end]))
                    }
                    index = end
                    continue
                }
            }
            index += 1
        }
    }

    private static func appendReference(_ name: String, to out: inout ByteWriter) {
        out.write(byte: UInt8(ascii: "&"))
        out.write(name)
        out.write(byte: UInt8(ascii: ";"))
    }

    static func encode(_ text: String, runtime: PHPRuntime) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count + 8)
        func entity(_ name: String) {
            out.append(UInt8(ascii: "&"))
            out += Array(name.utf8)
            out.append(UInt8(ascii: ";"))
        }
        if runtime.version == .php53 {
            for byte in text.utf8 {
                switch byte {
                case UInt8(ascii: "&"): entity("amp")
                case UInt8(ascii: "\""): entity("quot")
                case UInt8(ascii: "<"): entity("lt")
                case UInt8(ascii: ">"): entity("gt")
                case 0xA0...0xFF: entity(HTMLEntityTable.names[UInt32(byte)] ?? "#\(byte)")
                default: out.append(byte)  // 0x80-0x9F have no entity in Latin-1: the raw byte
                }
            }
            return out
        }
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": entity("amp")
            case "\"": entity("quot")
            case "<": entity("lt")
            case ">": entity("gt")
            case "'" where runtime.version == .php8: entity("#039")
            default:
                if scalar.value >= 0xA0, let name = HTMLEntityTable.names[scalar.value] {
                    entity(name)
                } else {
                    out += Array(String(scalar).utf8)
                }
            }
        }
        return out
    }
}
