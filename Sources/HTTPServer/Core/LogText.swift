/// Values a client chose (host names, SNI, paths, scope names, headers) as they go into a log
/// line: control characters written as escapes (`\r`, `\n`, `\t`, `\x1b`, `\u{9b}`), so a client
/// can neither forge a line nor drive the terminal that shows it, and at most `limit` characters.
public enum LogText {
    public static func escaped(_ text: some StringProtocol, limit: Int = 300) -> String {
        var out = ""
        for (index, scalar) in text.unicodeScalars.enumerated() {
            guard index < limit else {
                out += "…"
                break
            }
            switch scalar.value {
            case 0x0A: out += "\\n"
            case 0x0D: out += "\\r"
            case 0x09: out += "\\t"
            case 0x5C: out += "\\\\"
            case 0..<0x20, 0x7F: out += "\\x" + hex(scalar.value)
            case 0x80...0x9F: out += "\\u{" + hex(scalar.value) + "}"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    private static func hex(_ value: UInt32) -> String {
        let digits = String(value, radix: 16)
        return digits.count == 1 ? "0" + digits : digits
    }
}
