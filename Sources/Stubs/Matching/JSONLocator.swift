import JSON

/// Finds the line of a field (`mappings[1].response.status`) in JSON text, so errors found
/// after parsing still point at a line. The text is known to be valid JSON, or JSON with the
/// comments and single quotes that mapping files may have (`JSONValue.parseLenient`).
enum JSONLocator {
    /// The line where the value at `field` starts, or of the deepest part of it that exists.
    static func line(of field: String, in bytes: [UInt8]) -> Int? {
        let target = parts(of: field)
        var scanner = Scanner(bytes: bytes, target: target)
        scanner.value(path: [])
        return scanner.bestLine
    }

    /// `a.b[2].c` → ["a", "b", "[2]", "c"].
    static func parts(of field: String) -> [String] {
        var parts: [String] = []
        for piece in field.split(separator: ".") {
            var rest = Substring(piece)
            if let bracket = rest.firstIndex(of: "[") {
                if bracket > rest.startIndex { parts.append(String(rest[..<bracket])) }
                rest = rest[bracket...]
                while let close = rest.firstIndex(of: "]") {
                    parts.append(String(rest[...close]))
                    rest = rest[rest.index(after: close)...]
                }
            } else {
                parts.append(String(rest))
            }
        }
        return parts
    }

    private struct Scanner {
        let bytes: [UInt8]
        let target: [String]
        var position = 0
        var line = 1
        var bestLine: Int?
        var bestDepth = -1

        init(bytes: [UInt8], target: [String]) {
            self.bytes = bytes
            self.target = target
        }

        mutating func skipSpace() {
            while position < bytes.count {
                let byte = bytes[position]
                let next = position + 1 < bytes.count ? bytes[position + 1] : 0
                if [0x20, 0x09, 0x0A, 0x0D].contains(byte) {
                    if byte == 0x0A { line += 1 }
                    position += 1
                } else if byte == UInt8(ascii: "/"), next == UInt8(ascii: "/") {
                    while position < bytes.count, bytes[position] != 0x0A { position += 1 }
                } else if byte == UInt8(ascii: "/"), next == UInt8(ascii: "*") {
                    position += 2
                    while position < bytes.count,
                        !(bytes[position] == UInt8(ascii: "*") && position + 1 < bytes.count && bytes[position + 1] == UInt8(ascii: "/"))
                    {
                        if bytes[position] == 0x0A { line += 1 }
                        position += 1
                    }
                    position += 2
                } else {
                    return
                }
            }
        }

        mutating func value(path: [String]) {
            skipSpace()
            guard position < bytes.count else { return }
            if path.count > bestDepth, path.count <= target.count, Array(target.prefix(path.count)) == path {
                bestDepth = path.count
                bestLine = line
            }
            switch bytes[position] {
            case UInt8(ascii: "{"):
                position += 1
                while true {
                    skipSpace()
                    guard position < bytes.count, bytes[position] != UInt8(ascii: "}") else {
                        position += 1
                        return
                    }
                    if bytes[position] == UInt8(ascii: ",") {
                        position += 1
                        continue
                    }
                    let key = string()
                    skipSpace()
                    position += 1  // ':'
                    value(path: path + [key])
                }
            case UInt8(ascii: "["):
                position += 1
                var index = 0
                while true {
                    skipSpace()
                    guard position < bytes.count, bytes[position] != UInt8(ascii: "]") else {
                        position += 1
                        return
                    }
                    if bytes[position] == UInt8(ascii: ",") {
                        position += 1
                        continue
                    }
                    value(path: path + ["[\(index)]"])
                    index += 1
                }
            case UInt8(ascii: "\""), UInt8(ascii: "'"):
                _ = string()
            default:
                while position < bytes.count,
                    ![UInt8(ascii: ","), UInt8(ascii: "}"), UInt8(ascii: "]"), 0x20, 0x09, 0x0A, 0x0D].contains(bytes[position])
                {
                    position += 1
                }
            }
        }

        /// Reads a string token, in double or single quotes (escapes kept as they are; keys
        /// rarely hold any).
        mutating func string() -> String {
            let quote = position < bytes.count ? bytes[position] : UInt8(ascii: "\"")
            position += 1
            let start = position
            while position < bytes.count, bytes[position] != quote {
                if bytes[position] == UInt8(ascii: "\\") { position += 1 }
                position += 1
            }
            defer { position += 1 }
            let end = min(position, bytes.count)
            return String(decoding: bytes[min(start, end)..<end], as: UTF8.self)
        }
    }
}
