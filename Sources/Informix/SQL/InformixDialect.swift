/// Rewrites the Informix dialect a client sends into SQL SQLite runs, token by token:
/// `SELECT SKIP n FIRST m` / `LIMIT m` / `UNIQUE`, `MATCHES` (as GLOB), `TODAY`, `CURRENT`,
/// `USER`, `DATETIME (…) q TO q` literals, DATE literals written per DBDATE, `LIKE` with
/// Informix's default `\` escape, `x::type` and `CAST(x AS type)`, and owner or database
/// prefixes on names (`informix.systables`, `stores_demo:customer`). Double-quoted strings are
/// already literals after tokenizing.
struct InformixDialect: Sendable {
    var dateFormat: DBDateFormat
    /// Owner names dropped as prefixes (lower case).
    var owners: Set<String>

    func translate(_ tokens: [SQLToken]) throws(InformixError) -> [SQLToken] {
        var input = tokens
        var out: [SQLToken] = []
        out.reserveCapacity(input.count + 8)
        var index = 0
        /// For each open parenthesis: whether it opened `CAST(`.
        var castDepths: [Bool] = []

        func next(_ offset: Int = 1) -> SQLToken? {
            index + offset < input.count ? input[index + offset] : nil
        }

        while index < input.count {
            var token = input[index]
            switch token.kind {
            case .string:
                // Owner in quotes: "informix".customer
                if next()?.isSymbol(".") == true, next(2)?.kind == .word, owners.contains(token.lowered) {
                    index += 2
                    carrySpacing(token, &input[index])
                    continue
                }
                if dateFormat != .iso, let iso = dateFormat.isoDate(from: token.text) { token.text = iso }
                out.append(token)
                if out.count >= 2, out[out.count - 2].isWord("like"), next()?.isWord("escape") != true, token.text.contains("\\") {
                    out.append(SQLToken(kind: .word, text: "ESCAPE", spaced: true, offset: token.offset))
                    out.append(SQLToken(kind: .string, text: "\\", spaced: true, offset: token.offset))
                }
            case .timeLiteral:
                // DATETIME (2008-06-12 08:20) YEAR TO MINUTE: the value as text; the qualifier goes.
                if out.last?.isWord("datetime") == true || out.last?.isWord("interval") == true { out.removeLast() }
                token.kind = .string
                out.append(token)
                index += 1
                skipQualifier(input, &index)
                continue
            case .symbol:
                if token.text == "(" {
                    castDepths.append(out.last?.isWord("cast") == true)
                } else if token.text == ")" {
                    _ = castDepths.popLast()
                } else if token.text == "::" {
                    // x::type → CAST(x AS type), for a single-token x.
                    guard let operand = out.popLast() else { throw .syntax() }
                    var cursor = SQLTokenCursor(Array(input[(index + 1)...]))
                    let type = try cursor.columnType()
                    out.append(SQLToken(kind: .word, text: "CAST", spaced: operand.spaced, offset: operand.offset))
                    out.append(SQLToken(kind: .symbol, text: "(", spaced: false, offset: operand.offset))
                    out.append(SQLToken(kind: operand.kind, text: operand.text, spaced: false, offset: operand.offset))
                    out.append(SQLToken(kind: .word, text: "AS", spaced: true, offset: operand.offset))
                    out.append(SQLToken(kind: .word, text: type.sqliteType, spaced: true, offset: operand.offset))
                    out.append(SQLToken(kind: .symbol, text: ")", spaced: false, offset: operand.offset))
                    index += 1 + cursor.position
                    continue
                } else if token.text == ":", out.last?.kind == .word, next()?.kind == .word {
                    let database = out.removeLast()  // database:table
                    index += 1
                    carrySpacing(database, &input[index])
                    continue
                }
                out.append(token)
            case .word:
                let word = token.lowered
                let followedByParenthesis = next()?.isSymbol("(") == true
                let qualified = out.last?.isSymbol(".") == true
                if next()?.isSymbol(".") == true, next(2)?.kind == .word, owners.contains(word), !qualified {
                    index += 2  // informix.systables
                    carrySpacing(token, &input[index])
                    continue
                }
                switch word {
                case "primary" where next()?.isWord("key") != true, "default":
                    // Catalog column names (sysreferences.primary, sysdefaults.default) that
                    // SQLite reserves.
                    token.text = "\"\(word)\""
                    out.append(token)
                case "today" where !followedByParenthesis && !qualified:
                    out.append(call("understudy_today", [], like: token))
                case "user" where !followedByParenthesis && !qualified:
                    out.append(call("understudy_user", [], like: token))
                case "current" where !followedByParenthesis && !qualified:
                    index += 1
                    let (first, last) = qualifier(input, &index) ?? ("year", "fraction(3)")
                    out.append(call("understudy_current", ["'\(first)'", "'\(last)'"], like: token))
                    continue
                case "matches":
                    token.text = "GLOB"
                    out.append(token)
                    if let pattern = next(), pattern.kind == .string {
                        var escape: Character = "\\"
                        var consumed = 2
                        if next(2)?.isWord("escape") == true, let escapeToken = next(3), escapeToken.kind == .string,
                            let character = escapeToken.text.first
                        {
                            escape = character
                            consumed = 4
                        }
                        out.append(
                            SQLToken(
                                kind: .string, text: Self.globPattern(pattern.text, escape: escape),
                                spaced: pattern.spaced, offset: pattern.offset))
                        index += consumed
                        continue
                    }
                case "as" where castDepths.last == true:
                    out.append(token)
                    var cursor = SQLTokenCursor(Array(input[(index + 1)...]))
                    let type = try cursor.columnType()
                    out.append(SQLToken(kind: .word, text: type.sqliteType, spaced: true, offset: token.offset))
                    index += 1 + cursor.position
                    continue
                case "select":
                    out.append(token)
                    index += 1
                    try selectModifiers(input, &index, &out)
                    continue
                default:
                    out.append(token)
                }
            case .number:
                out.append(token)
            }
            index += 1
        }
        return out
    }

    /// After SELECT: `SKIP n`, `FIRST n` / `LIMIT n`, `UNIQUE`. The limit moves to the end of
    /// this SELECT (before the parenthesis that closes it, or the statement's end).
    private func selectModifiers(_ input: [SQLToken], _ index: inout Int, _ out: inout [SQLToken]) throws(InformixError) {
        var skip: String?
        var first: String?
        while index + 1 < input.count {
            let token = input[index]
            let value = input[index + 1]
            if token.isWord("skip"), value.kind == .number {
                skip = value.text
            } else if token.isWord("first") || token.isWord("limit"), value.kind == .number {
                first = value.text
            } else {
                break
            }
            index += 2
        }
        if index < input.count, input[index].isWord("unique") {
            out.append(SQLToken(kind: .word, text: "DISTINCT", spaced: true, offset: input[index].offset))
            index += 1
        }
        guard skip != nil || first != nil else { return }
        // Translate the rest of this SELECT on its own, then append the limit.
        var depth = 0
        var end = index
        while end < input.count {
            if input[end].isSymbol("(") { depth += 1 }
            if input[end].isSymbol(")") {
                if depth == 0 { break }
                depth -= 1
            }
            end += 1
        }
        out += try translate(Array(input[index..<end]))
        let offset = input[min(end, input.count - 1)].offset
        out.append(SQLToken(kind: .word, text: "LIMIT", spaced: true, offset: offset))
        out.append(SQLToken(kind: .number, text: first ?? "-1", spaced: true, offset: offset))
        if let skip {
            out.append(SQLToken(kind: .word, text: "OFFSET", spaced: true, offset: offset))
            out.append(SQLToken(kind: .number, text: skip, spaced: true, offset: offset))
        }
        index = end
    }

    /// `YEAR TO MINUTE`, `FRACTION(3)`: the first and last field names, lower-cased.
    private func qualifier(_ input: [SQLToken], _ index: inout Int) -> (String, String)? {
        var cursor = SQLTokenCursor(Array(input[index...]))
        guard let first = field(&cursor), cursor.take("to"), let last = field(&cursor) else { return nil }
        index += cursor.position
        return (first, last)
    }

    private func skipQualifier(_ input: [SQLToken], _ index: inout Int) {
        _ = qualifier(input, &index)
    }

    private func field(_ cursor: inout SQLTokenCursor) -> String? {
        guard let token = cursor.current, token.kind == .word,
            ["year", "month", "day", "hour", "minute", "second", "fraction"].contains(token.lowered)
        else { return nil }
        cursor.position += 1
        var name = token.lowered
        if cursor.peekSymbol("("), cursor.position + 2 < cursor.tokens.count, cursor.tokens[cursor.position + 1].kind == .number,
            cursor.tokens[cursor.position + 2].isSymbol(")")
        {
            if name == "fraction" { name += "(\(cursor.tokens[cursor.position + 1].text))" }
            cursor.position += 3
        }
        return name
    }

    /// A dropped prefix leaves its leading space to the name that follows it.
    private func carrySpacing(_ dropped: SQLToken, _ next: inout SQLToken) {
        next.spaced = next.spaced || dropped.spaced
    }

    private func call(_ function: String, _ arguments: [String], like token: SQLToken) -> SQLToken {
        SQLToken(kind: .word, text: "\(function)(\(arguments.joined(separator: ",")))", spaced: token.spaced, offset: token.offset)
    }

    /// An Informix MATCHES pattern as a SQLite GLOB pattern: the wildcards `*`, `?` and
    /// `[…]`/`[^…]` are the same; an escaped character becomes a one-character class.
    static func globPattern(_ pattern: String, escape: Character) -> String {
        var out = ""
        var escaped = false
        for character in pattern {
            if escaped {
                out += character == "*" || character == "?" || character == "[" ? "[\(character)]" : String(character)
                escaped = false
            } else if character == escape {
                escaped = true
            } else {
                out.append(character)
            }
        }
        return out
    }
}
