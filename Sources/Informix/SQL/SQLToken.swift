/// A lexical token of Informix SQL.
struct SQLToken: Equatable, Sendable {
    enum Kind: Equatable, Sendable {
        /// A name or keyword, as written.
        case word
        /// A string literal; `text` is its value (quotes removed, doubled quotes undone). Informix
        /// takes double-quoted strings as literals too (DELIMIDENT unset).
        case string
        case number
        /// The raw text between the parentheses of `DATETIME (…)` or `INTERVAL (…)`.
        case timeLiteral
        /// Operators and punctuation: `( ) , ; . : * = <> != <= >= || + - / < > ?`.
        case symbol
    }

    var kind: Kind
    var text: String
    /// Whitespace or a comment came before it (kept when the statement is written out again).
    var spaced: Bool
    /// Byte offset in the statement, for messages.
    var offset: Int

    func isWord(_ word: String) -> Bool {
        kind == .word && text.count == word.count && text.lowercased() == word
    }

    func isSymbol(_ symbol: String) -> Bool { kind == .symbol && text == symbol }

    var lowered: String { text.lowercased() }
}

/// Splits Informix SQL into tokens, dropping `{…}`, `--` and `/* */` comments.
enum SQLTokenizer {
    /// A quote or comment was left open: Informix's -282 / -201.
    enum Failure: Error, Equatable {
        case unmatchedQuote
        case unterminatedComment
    }

    static func tokenize(_ sql: String) throws(Failure) -> [SQLToken] {
        let bytes = Array(sql.utf8)
        var tokens: [SQLToken] = []
        var index = 0
        var spaced = false

        func text(_ range: Range<Int>) -> String { String(decoding: bytes[range], as: UTF8.self) }

        while index < bytes.count {
            let byte = bytes[index]
            let start = index
            switch byte {
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"), 0x0C:
                index += 1
                spaced = true
                continue
            case UInt8(ascii: "{"):
                guard let close = bytes[index...].firstIndex(of: UInt8(ascii: "}")) else { throw .unterminatedComment }
                index = close + 1
                spaced = true
                continue
            case UInt8(ascii: "-") where index + 1 < bytes.count && bytes[index + 1] == UInt8(ascii: "-"):
                index = bytes[index...].firstIndex(of: UInt8(ascii: "\n")) ?? bytes.count
                spaced = true
                continue
            case UInt8(ascii: "/") where index + 1 < bytes.count && bytes[index + 1] == UInt8(ascii: "*"):
                var end = index + 2
                while end + 1 < bytes.count && !(bytes[end] == UInt8(ascii: "*") && bytes[end + 1] == UInt8(ascii: "/")) { end += 1 }
                guard end + 1 < bytes.count else { throw .unterminatedComment }
                index = end + 2
                spaced = true
                continue
            case UInt8(ascii: "'"), UInt8(ascii: "\""):
                var value: [UInt8] = []
                index += 1
                var closed = false
                while index < bytes.count {
                    if bytes[index] == byte {
                        if index + 1 < bytes.count && bytes[index + 1] == byte {
                            value.append(byte)
                            index += 2
                            continue
                        }
                        index += 1
                        closed = true
                        break
                    }
                    value.append(bytes[index])
                    index += 1
                }
                guard closed else { throw .unmatchedQuote }
                tokens.append(SQLToken(kind: .string, text: String(decoding: value, as: UTF8.self), spaced: spaced, offset: start))
            case UInt8(ascii: "0")...UInt8(ascii: "9"):
                index = numberEnd(bytes, from: index)
                tokens.append(SQLToken(kind: .number, text: text(start..<index), spaced: spaced, offset: start))
            case UInt8(ascii: ".") where index + 1 < bytes.count && isDigit(bytes[index + 1]):
                index = numberEnd(bytes, from: index)
                tokens.append(SQLToken(kind: .number, text: text(start..<index), spaced: spaced, offset: start))
            case _ where isWordStart(byte):
                while index < bytes.count && isWordPart(bytes[index]) { index += 1 }
                let word = text(start..<index)
                tokens.append(SQLToken(kind: .word, text: word, spaced: spaced, offset: start))
                // DATETIME (2008-06-12 08:20) and INTERVAL (5) hold free-form text.
                let lowered = word.lowercased()
                if lowered == "datetime" || lowered == "interval" {
                    var open = index
                    while open < bytes.count && (bytes[open] == UInt8(ascii: " ") || bytes[open] == UInt8(ascii: "\t")) { open += 1 }
                    if open < bytes.count && bytes[open] == UInt8(ascii: "("),
                        let close = bytes[open...].firstIndex(of: UInt8(ascii: ")"))
                    {
                        let literal = text((open + 1)..<close).trimmingSpaces
                        tokens.append(SQLToken(kind: .timeLiteral, text: literal, spaced: true, offset: open))
                        index = close + 1
                    }
                }
            default:
                let two = index + 1 < bytes.count ? text(index..<(index + 2)) : ""
                if ["<>", "!=", "<=", ">=", "||", "::"].contains(two) {
                    index += 2
                    tokens.append(SQLToken(kind: .symbol, text: two, spaced: spaced, offset: start))
                } else {
                    // One byte, or one whole UTF-8 character when it is not ASCII.
                    index += 1
                    while index < bytes.count && bytes[index] & 0xC0 == 0x80 { index += 1 }
                    tokens.append(SQLToken(kind: .symbol, text: text(start..<index), spaced: spaced, offset: start))
                }
            }
            spaced = false
        }
        return tokens
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    private static func isWordStart(_ byte: UInt8) -> Bool {
        (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z") || byte == UInt8(ascii: "_") || byte >= 0x80
    }

    private static func isWordPart(_ byte: UInt8) -> Bool {
        isWordStart(byte) || isDigit(byte) || byte == UInt8(ascii: "$")
    }

    /// Digits, one decimal point, an exponent.
    private static func numberEnd(_ bytes: [UInt8], from start: Int) -> Int {
        var index = start
        var seenPoint = false
        while index < bytes.count {
            let byte = bytes[index]
            if isDigit(byte) {
                index += 1
            } else if byte == UInt8(ascii: "."), !seenPoint {
                seenPoint = true
                index += 1
            } else if byte | 0x20 == UInt8(ascii: "e"), index + 1 < bytes.count,
                isDigit(bytes[index + 1])
                    || ((bytes[index + 1] == UInt8(ascii: "+") || bytes[index + 1] == UInt8(ascii: "-"))
                        && index + 2 < bytes.count && isDigit(bytes[index + 2]))
            {
                index += 2
                while index < bytes.count && isDigit(bytes[index]) { index += 1 }
                break
            } else {
                break
            }
        }
        return index
    }
}

extension String {
    var trimmingSpaces: String {
        var scalars = Substring(self)
        while scalars.first == " " || scalars.first == "\t" { scalars.removeFirst() }
        while scalars.last == " " || scalars.last == "\t" { scalars.removeLast() }
        return String(scalars)
    }
}

extension [SQLToken] {
    /// Writes tokens back as SQLite SQL: strings single-quoted, spacing kept where it was.
    func sqliteText() -> String {
        var out = ""
        for token in self {
            if token.spaced && !out.isEmpty { out += " " }
            switch token.kind {
            case .string, .timeLiteral:
                out += "'" + token.text.replacingOccurrences(of: "'", with: "''") + "'"
            default:
                out += token.text
            }
        }
        return out
    }

    /// Statements separated by `;` at the top level (empty ones dropped).
    func splitStatements() -> [[SQLToken]] {
        var statements: [[SQLToken]] = []
        var current: [SQLToken] = []
        var depth = 0
        for token in self {
            if token.isSymbol("(") { depth += 1 }
            if token.isSymbol(")") { depth -= 1 }
            if token.isSymbol(";") && depth <= 0 {
                if !current.isEmpty { statements.append(current) }
                current = []
            } else {
                current.append(token)
            }
        }
        if !current.isEmpty { statements.append(current) }
        return statements
    }
}
