/// A linear pass over the raw bytes before libxml2 sees them: refuses what the parser would spend
/// too long on or what could reach outside the document. Deliberately coarse: an `<!ENTITY` or a
/// crowded tag inside a comment or CDATA section is refused too.
enum XMLScreen {
    static func check(_ bytes: UnsafeBufferPointer<UInt8>, limits: XMLLimits) throws(XMLReadError) {
        guard bytes.count <= limits.maxBytes else {
            throw XMLReadError("the document is \(bytes.count) bytes, more than the \(limits.maxBytes) accepted")
        }
        var index = 0
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { index = 3 }
        while index < bytes.count, bytes[index] == 0x20 || bytes[index] == 0x09 || bytes[index] == 0x0A || bytes[index] == 0x0D {
            index += 1
        }
        guard index < bytes.count else { throw XMLReadError("the document is empty") }
        // UTF-16, UCS-4 and EBCDIC documents start otherwise; only ASCII-compatible ones are read,
        // so that the checks below see the markup.
        guard bytes[index] == UInt8(ascii: "<") else {
            throw XMLReadError("not XML: a document starts with '<' (UTF-8 or another ASCII-compatible encoding)")
        }
        var inStartTag = false
        var quote: UInt8 = 0
        var attributes = 0
        while index < bytes.count {
            let byte = bytes[index]
            if quote != 0 {
                if byte == quote { quote = 0 }
            } else if inStartTag {
                switch byte {
                case UInt8(ascii: "\""), UInt8(ascii: "'"): quote = byte
                case UInt8(ascii: ">"): inStartTag = false
                case UInt8(ascii: "="):
                    attributes += 1
                    if attributes > limits.maxAttributesPerElement {
                        throw XMLReadError("an element has more than \(limits.maxAttributesPerElement) attributes")
                    }
                default: break
                }
            } else if byte == UInt8(ascii: "<"), index + 1 < bytes.count {
                let next = bytes[index + 1]
                if next == UInt8(ascii: "!"), startsEntityDeclaration(bytes, at: index) {
                    throw XMLReadError("entity declarations are not accepted")
                }
                inStartTag = isNameStart(next)
                attributes = 0
            }
            index += 1
        }
    }

    private static let entityDeclaration = Array("<!ENTITY".utf8)

    private static func startsEntityDeclaration(_ bytes: UnsafeBufferPointer<UInt8>, at index: Int) -> Bool {
        guard index + entityDeclaration.count <= bytes.count else { return false }
        for offset in 0..<entityDeclaration.count where bytes[index + offset] != entityDeclaration[offset] { return false }
        return true
    }

    private static func isNameStart(_ byte: UInt8) -> Bool {
        (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z")
            || byte == UInt8(ascii: "_") || byte == UInt8(ascii: ":") || byte >= 0x80
    }
}
