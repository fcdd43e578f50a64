/// Handlebars syntax to nodes: mustaches, raw `{{{ }}}`, comments, blocks with `else` and
/// `else if`, subexpressions, hash arguments, `~` whitespace control and standalone-line removal
/// for block tags (so a template's layout does not leak blank lines into its output).
struct TemplateParser {
    private let source: [UInt8]
    private var position = 0
    private let knownHelpers: Set<String>

    init(_ source: String, knownHelpers: Set<String>) {
        self.source = Array(source.utf8)
        self.knownHelpers = knownHelpers
    }

    // MARK: Tags

    private enum TagKind { case output(escaped: Bool), open(inverted: Bool), close, elseTag, comment }

    private struct Tag {
        var kind: TagKind
        var content: [UInt8]
        var stripBefore = false
        var stripAfter = false
        var line: Int
        var column: Int
    }

    private enum Token { case text([UInt8]), tag(Tag) }

    mutating func parse() throws(TemplateError) -> [TemplateNode] {
        var tokens = try tokenize()
        Self.applyWhitespaceControl(&tokens)
        var index = 0
        let (nodes, end) = try parseNodes(tokens, &index, closing: nil)
        if let end { throw error(at: end, "'{{\(String(decoding: end.content, as: UTF8.self))}}' without an open block") }
        return nodes
    }

    /// Line and column of `offset`, counted on from the last position asked (tags come in
    /// order), so a template is walked once however many tags it has.
    private var counted = (offset: 0, line: 1, column: 1)

    private mutating func location(of offset: Int) -> (line: Int, column: Int) {
        for byte in source[counted.offset..<min(offset, source.count)] {
            if byte == UInt8(ascii: "\n") {
                counted.line += 1
                counted.column = 1
            } else if byte & 0xC0 != 0x80 {
                counted.column += 1
            }
        }
        counted.offset = max(counted.offset, offset)
        return (counted.line, counted.column)
    }

    private func error(at tag: Tag, _ message: String) -> TemplateError {
        TemplateError(line: tag.line, column: tag.column, message: message)
    }

    private func starts(_ text: StaticString, at offset: Int) -> Bool {
        Self.bytes(source, at: offset, start: text)
    }

    /// Whether `bytes` holds `text` at `offset` (no allocation: this runs per source byte).
    static func bytes(_ bytes: [UInt8], at offset: Int, start text: StaticString) -> Bool {
        guard offset + text.utf8CodeUnitCount <= bytes.count else { return false }
        return text.withUTF8Buffer { prefix in prefix.indices.allSatisfy { bytes[offset + $0] == prefix[$0] } }
    }

    private func find(_ text: StaticString, from offset: Int) -> Int? {
        var at = offset
        while at < source.count {
            if starts(text, at: at) { return at }
            at += 1
        }
        return nil
    }

    private mutating func tokenize() throws(TemplateError) -> [Token] {
        var tokens: [Token] = []
        var text: [UInt8] = []
        while position < source.count {
            // `\{{` prints `{{` literally.
            if source[position] == UInt8(ascii: "\\"), starts("{{", at: position + 1) {
                text += Array("{{".utf8)
                position += 3
                continue
            }
            guard starts("{{", at: position) else {
                text.append(source[position])
                position += 1
                continue
            }
            if !text.isEmpty {
                tokens.append(.text(text))
                text = []
            }
            tokens.append(.tag(try readTag()))
        }
        if !text.isEmpty { tokens.append(.text(text)) }
        return tokens
    }

    private mutating func readTag() throws(TemplateError) -> Tag {
        let start = position
        let (line, column) = location(of: start)
        let triple = starts("{{{", at: start) || starts("{{~{", at: start)
        position += 2
        var stripBefore = false
        if position < source.count, source[position] == UInt8(ascii: "~") {
            stripBefore = true
            position += 1
        }
        if triple { position += 1 }
        let unterminated = TemplateError(line: line, column: column, message: "'{{' is never closed")
        // Comments may hold `}}`: `{{!-- … --}}` ends only at `--}}`.
        if starts("!--", at: position) {
            guard let end = find("--}}", from: position + 3) ?? find("--~}}", from: position + 3) else { throw unterminated }
            let stripAfter = starts("--~}}", at: end)
            position = end + (stripAfter ? 5 : 4)
            return Tag(kind: .comment, content: [], stripBefore: stripBefore, stripAfter: stripAfter, line: line, column: column)
        }
        let closer: StaticString = triple ? "}}}" : "}}"
        guard let end = find(closer, from: position) else { throw unterminated }
        var contentEnd = end
        var stripAfter = false
        if contentEnd > position, source[contentEnd - 1] == UInt8(ascii: "~") {
            stripAfter = true
            contentEnd -= 1
        }
        var content = Array(source[position..<contentEnd])
        position = end + closer.utf8CodeUnitCount
        var kind: TagKind = .output(escaped: !triple)
        if !triple, let first = content.first {
            switch first {
            case UInt8(ascii: "!"): kind = .comment
            case UInt8(ascii: "#"): kind = .open(inverted: false)
            case UInt8(ascii: "^"): kind = .open(inverted: true)
            case UInt8(ascii: "/"): kind = .close
            case UInt8(ascii: "&"): kind = .output(escaped: false)
            case UInt8(ascii: ">"):
                throw TemplateError(line: line, column: column, message: "partials ({{> name}}) are not supported")
            default: break
            }
            if case .output = kind, first != UInt8(ascii: "&") {} else { content.removeFirst() }
        }
        let trimmed = Self.trim(content)
        if case .output = kind, trimmed == Array("else".utf8) || trimmed.starts(with: Array("else ".utf8)) {
            kind = .elseTag
        }
        if case .open(inverted: true) = kind, trimmed.isEmpty {
            kind = .elseTag
            content = Array("else".utf8)
        }
        return Tag(kind: kind, content: content, stripBefore: stripBefore, stripAfter: stripAfter, line: line, column: column)
    }

    private static func trim(_ bytes: [UInt8]) -> [UInt8] {
        var slice = bytes[...]
        while let first = slice.first, isSpace(first) { slice.removeFirst() }
        while let last = slice.last, isSpace(last) { slice.removeLast() }
        return Array(slice)
    }

    static func isSpace(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") || byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r")
    }

    // MARK: Whitespace

    /// `~` strips the whitespace on its side; a block, else, close or comment tag alone on its
    /// line takes the line's indentation and line break with it (Handlebars' standalone rule).
    private static func applyWhitespaceControl(_ tokens: inout [Token]) {
        for index in tokens.indices {
            guard case .tag(let tag) = tokens[index] else { continue }
            let standalone: Bool
            switch tag.kind {
            case .output: standalone = false
            default: standalone = isAloneOnLine(tokens, index)
            }
            if tag.stripBefore || standalone, index > 0, case .text(let before) = tokens[index - 1] {
                var kept = before[...]
                if tag.stripBefore {
                    while let last = kept.last, isSpace(last) { kept.removeLast() }
                } else {
                    while let last = kept.last, last == UInt8(ascii: " ") || last == UInt8(ascii: "\t") { kept.removeLast() }
                }
                tokens[index - 1] = .text(Array(kept))
            }
            if tag.stripAfter || standalone, index + 1 < tokens.count, case .text(let after) = tokens[index + 1] {
                var kept = after[...]
                if tag.stripAfter {
                    while let first = kept.first, isSpace(first) { kept.removeFirst() }
                } else {
                    while let first = kept.first, first == UInt8(ascii: " ") || first == UInt8(ascii: "\t") { kept.removeFirst() }
                    if kept.first == UInt8(ascii: "\r") { kept.removeFirst() }
                    if kept.first == UInt8(ascii: "\n") { kept.removeFirst() }
                }
                tokens[index + 1] = .text(Array(kept))
            }
        }
    }

    private static func isAloneOnLine(_ tokens: [Token], _ index: Int) -> Bool {
        let before: Bool
        if index == 0 {
            before = true
        } else if case .text(let text) = tokens[index - 1] {
            let tail = text.lastIndex(of: UInt8(ascii: "\n")).map { text[($0 + 1)...] } ?? text[...]
            before = tail.allSatisfy { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") } && (text.contains(UInt8(ascii: "\n")) || index == 1)
        } else {
            before = false
        }
        guard before else { return false }
        if index + 1 == tokens.count { return true }
        guard case .text(let text) = tokens[index + 1] else { return false }
        let head = text.firstIndex(of: UInt8(ascii: "\n")).map { text[..<$0] } ?? text[...]
        return head.allSatisfy { isSpace($0) } && (text.contains(UInt8(ascii: "\n")) || index + 2 == tokens.count)
    }

    // MARK: Blocks

    /// Nodes up to the `{{/name}}` or `{{else}}` that ends them (returned), or the end.
    private func parseNodes(_ tokens: [Token], _ index: inout Int, closing: String?) throws(TemplateError) -> ([TemplateNode], Tag?) {
        var nodes: [TemplateNode] = []
        while index < tokens.count {
            let token = tokens[index]
            index += 1
            switch token {
            case .text(let bytes):
                if !bytes.isEmpty { nodes.append(.text(String(decoding: bytes, as: UTF8.self))) }
            case .tag(let tag):
                switch tag.kind {
                case .comment:
                    continue
                case .output(let escaped):
                    nodes.append(.output(try expression(tag), escaped: escaped))
                case .close, .elseTag:
                    guard closing != nil else {
                        throw error(at: tag, "'{{\(String(decoding: Self.trim(tag.content), as: UTF8.self))}}' without an open block")
                    }
                    return (nodes, tag)
                case .open(let inverted):
                    nodes.append(try parseBlock(tag, inverted: inverted, tokens, &index))
                }
            }
        }
        return (nodes, nil)
    }

    private func parseBlock(_ open: Tag, inverted: Bool, _ tokens: [Token], _ index: inout Int) throws(TemplateError) -> TemplateNode {
        var tag = open
        let blockParams = try Self.splitBlockParams(&tag)
        let head = try expression(tag).with(blockParams: blockParams)
        guard let name = head.helperName ?? (head.params.isEmpty ? blockName(head) : nil) else {
            throw error(at: open, "a block must start with a helper name or a path")
        }
        let (body, inverse, end) = try parseBranches(closing: name, tokens, &index)
        guard let close = end, case .close = close.kind else {
            throw error(at: open, "{{#\(name)}} is never closed")
        }
        let closeName = String(decoding: Self.trim(close.content), as: UTF8.self)
        guard closeName == name else {
            throw error(at: close, "{{/\(closeName)}} closes {{#\(name)}} (opened at line \(open.line))")
        }
        return inverted ? .block(head, body: inverse, inverse: body) : .block(head, body: body, inverse: inverse)
    }

    /// A block's body and its `{{else}}` part up to the close tag (returned). `{{else if x}}`
    /// chains: the rest of that tag opens one more block that shares the close tag.
    private func parseBranches(closing: String, _ tokens: [Token], _ index: inout Int) throws(TemplateError)
        -> (body: [TemplateNode], inverse: [TemplateNode], end: Tag?)
    {
        var (body, end) = try parseNodes(tokens, &index, closing: closing)
        var inverse: [TemplateNode] = []
        if let tag = end, case .elseTag = tag.kind {
            let rest = Array(Self.trim(tag.content).dropFirst(4))
            if Self.trim(rest).isEmpty {
                (inverse, end) = try parseNodes(tokens, &index, closing: closing)
            } else {
                var chained = tag
                chained.content = rest
                let head = try expression(chained)
                let nested = try parseBranches(closing: closing, tokens, &index)
                inverse = [.block(head, body: nested.body, inverse: nested.inverse)]
                end = nested.end
            }
        }
        return (body, inverse, end)
    }

    /// Takes a trailing `as |item index|` off an open tag and returns its names.
    private static func splitBlockParams(_ tag: inout Tag) throws(TemplateError) -> [String] {
        let content = trim(tag.content)
        guard content.last == UInt8(ascii: "|"), let open = content.dropLast().lastIndex(of: UInt8(ascii: "|")) else { return [] }
        let before = trim(Array(content[..<open]))
        guard before.count > 3, before.suffix(3) == Array(" as".utf8) || before.suffix(3) == Array("\tas".utf8) else {
            throw TemplateError(line: tag.line, column: tag.column, message: "block parameters are written 'as |name|'")
        }
        let names = content[(open + 1)..<(content.count - 1)].split(whereSeparator: isSpace).map { String(decoding: $0, as: UTF8.self) }
        guard (1...2).contains(names.count) else {
            throw TemplateError(line: tag.line, column: tag.column, message: "'as |…|' names one or two block parameters")
        }
        tag.content = Array(before.dropLast(3))
        return names
    }

    private func blockName(_ expression: TemplateExpression) -> String? {
        if case .path(let path) = expression.head { return path.segments.joined(separator: ".") }
        return nil
    }

    // MARK: Expressions

    private func expression(_ tag: Tag) throws(TemplateError) -> TemplateExpression {
        var lexer = ExpressionLexer(bytes: tag.content)
        let (line, column) = (tag.line, tag.column)
        func fail(_ message: String) -> TemplateError { TemplateError(line: line, column: column, message: message) }
        let parsed: TemplateExpression
        do {
            parsed = try lexer.parseExpression(line: line, column: column, closing: nil)
        } catch let message {
            throw fail(message.message)
        }
        try check(parsed, fail: fail)
        return parsed
    }

    /// An unknown helper is a load-time error, not a surprise on the first request.
    private func check(_ expression: TemplateExpression, fail: (String) -> TemplateError) throws(TemplateError) {
        if let name = expression.helperName, !expression.params.isEmpty || !expression.hash.isEmpty, !knownHelpers.contains(name) {
            throw fail("unknown helper '\(name)'")
        }
        if !expression.params.isEmpty || !expression.hash.isEmpty, expression.helperName == nil {
            throw fail("only a helper takes arguments")
        }
        for operand in expression.params + expression.hash.map(\.value) {
            if case .subexpression(let inner) = operand {
                if let name = inner.helperName, !knownHelpers.contains(name) { throw fail("unknown helper '\(name)'") }
                try check(inner, fail: fail)
            }
        }
    }
}

/// Reads the inside of one tag: operands separated by spaces, `key=value`, `( … )`.
private struct ExpressionLexer {
    let bytes: [UInt8]
    var position = 0

    init(bytes: [UInt8]) { self.bytes = bytes }

    private mutating func skipSpaces() {
        while position < bytes.count, TemplateParser.isSpace(bytes[position]) { position += 1 }
    }

    mutating func parseExpression(line: Int, column: Int, closing: UInt8?) throws(HelperError) -> TemplateExpression {
        skipSpaces()
        guard position < bytes.count, bytes[position] != closing else { throw HelperError("an empty tag") }
        let head = try operand()
        var params: [TemplateOperand] = []
        var hash: [(key: String, value: TemplateOperand)] = []
        while true {
            skipSpaces()
            if position == bytes.count {
                if closing != nil { throw HelperError("'(' is never closed") }
                break
            }
            if bytes[position] == closing {
                position += 1
                break
            }
            if let key = hashKey() {
                hash.append((key, try operand()))
            } else {
                guard hash.isEmpty else { throw HelperError("positional arguments must come before key=value ones") }
                params.append(try operand())
            }
        }
        return TemplateExpression(head: head, params: params, hash: hash, line: line, column: column)
    }

    /// `name=` ahead: consumes it and returns the name.
    private mutating func hashKey() -> String? {
        var end = position
        while end < bytes.count, Self.isIdentifier(bytes[end]) { end += 1 }
        guard end > position, end < bytes.count, bytes[end] == UInt8(ascii: "=") else { return nil }
        defer { position = end + 1 }
        return String(decoding: bytes[position..<end], as: UTF8.self)
    }

    private static func isIdentifier(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: "="), UInt8(ascii: "("),
            UInt8(ascii: ")"), UInt8(ascii: "."), UInt8(ascii: "/"), UInt8(ascii: "["), UInt8(ascii: "]"), UInt8(ascii: "'"),
            UInt8(ascii: "\""), UInt8(ascii: "@"), UInt8(ascii: "~"), UInt8(ascii: "|"):
            false
        default: true
        }
    }

    private mutating func operand() throws(HelperError) -> TemplateOperand {
        // `{{helper key=}}`: the tag can end where a value is due.
        guard position < bytes.count else { throw HelperError("a value is missing at the end") }
        let byte = bytes[position]
        if byte == UInt8(ascii: "(") {
            position += 1
            let inner = try parseExpression(line: 0, column: 0, closing: UInt8(ascii: ")"))
            return .subexpression(inner)
        }
        if byte == UInt8(ascii: "'") || byte == UInt8(ascii: "\"") { return .literal(.string(try string(quote: byte))) }
        let word = peekWord()
        switch word {
        case "true":
            position += 4
            return .literal(.bool(true))
        case "false":
            position += 5
            return .literal(.bool(false))
        case "null", "undefined":
            position += word.utf8.count
            return .literal(.null)
        default:
            if let number = Double(word), word.first.map({ $0 == "-" || $0.isNumber }) == true {
                position += word.utf8.count
                return .literal(.number(number))
            }
        }
        return .path(try path())
    }

    private func peekWord() -> String {
        var end = position
        while end < bytes.count, Self.isIdentifier(bytes[end]) || bytes[end] == UInt8(ascii: ".") { end += 1 }
        return String(decoding: bytes[position..<end], as: UTF8.self)
    }

    private mutating func string(quote: UInt8) throws(HelperError) -> String {
        position += 1
        var out: [UInt8] = []
        while position < bytes.count {
            let byte = bytes[position]
            position += 1
            if byte == quote { return String(decoding: out, as: UTF8.self) }
            if byte == UInt8(ascii: "\\"), position < bytes.count, bytes[position] == quote || bytes[position] == UInt8(ascii: "\\") {
                out.append(bytes[position])
                position += 1
            } else {
                out.append(byte)
            }
        }
        throw HelperError("a string is never closed")
    }

    private mutating func path() throws(HelperError) -> TemplatePath {
        var depth = 0
        var isData = false
        var isThis = false
        var segments: [String] = []
        if bytes[position] == UInt8(ascii: "."), position + 1 == bytes.count || [UInt8(ascii: " "), UInt8(ascii: ")")].contains(bytes[position + 1]) {
            position += 1
            return TemplatePath(isThis: true)
        }
        if bytes[position] == UInt8(ascii: "@") {
            isData = true
            position += 1
        }
        while starts("../") {
            depth += 1
            position += 3
        }
        if starts("./") {
            isThis = true
            position += 2
        }
        while position < bytes.count {
            let byte = bytes[position]
            if byte == UInt8(ascii: "[") {
                guard let close = bytes[position...].firstIndex(of: UInt8(ascii: "]")) else { throw HelperError("'[' is never closed") }
                segments.append(String(decoding: bytes[(position + 1)..<close], as: UTF8.self))
                position = close + 1
            } else if byte == UInt8(ascii: ".") || byte == UInt8(ascii: "/") {
                position += 1
            } else if Self.isIdentifier(byte) {
                var end = position
                while end < bytes.count, Self.isIdentifier(bytes[end]) { end += 1 }
                segments.append(String(decoding: bytes[position..<end], as: UTF8.self))
                position = end
            } else {
                break
            }
        }
        if segments.first == "this", !isData {
            isThis = true
            segments.removeFirst()
        }
        if segments.isEmpty && !isThis && depth == 0 {
            throw HelperError("unexpected '\(position < bytes.count ? String(UnicodeScalar(bytes[position])) : "end")'")
        }
        return TemplatePath(depth: depth, isData: isData, isThis: isThis, segments: segments)
    }

    private func starts(_ text: StaticString) -> Bool {
        TemplateParser.bytes(bytes, at: position, start: text)
    }
}
