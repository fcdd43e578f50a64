/// Reads a statement's tokens front to back, for the DDL parser. Every failure is Informix's
/// syntax error (-201), as the server reports a statement it cannot parse.
struct SQLTokenCursor {
    let tokens: [SQLToken]
    var position = 0

    init(_ tokens: [SQLToken]) { self.tokens = tokens }

    var isAtEnd: Bool { position >= tokens.count }
    var current: SQLToken? { position < tokens.count ? tokens[position] : nil }

    func peekWord(_ word: String, ahead: Int = 0) -> Bool {
        position + ahead < tokens.count && tokens[position + ahead].isWord(word)
    }

    func peekSymbol(_ symbol: String) -> Bool { current?.isSymbol(symbol) ?? false }

    /// Consumes the words when they come next, in order.
    mutating func take(_ words: String...) -> Bool {
        for (offset, word) in words.enumerated() where !peekWord(word, ahead: offset) { return false }
        position += words.count
        return true
    }

    mutating func takeSymbol(_ symbol: String) -> Bool {
        guard peekSymbol(symbol) else { return false }
        position += 1
        return true
    }

    mutating func expect(_ words: String...) throws(InformixError) {
        for word in words {
            guard peekWord(word) else { throw .syntax() }
            position += 1
        }
    }

    mutating func expectSymbol(_ symbol: String) throws(InformixError) {
        guard takeSymbol(symbol) else { throw .syntax() }
    }

    /// A name, lower-cased as Informix folds it; an owner prefix (`informix.t`, `"informix".t`)
    /// and a database prefix (`stores_demo:t`) are dropped.
    mutating func name() throws(InformixError) -> String {
        var name = try plainName()
        while takeSymbol(".") || takeSymbol(":") {
            name = try plainName()
        }
        return name
    }

    private mutating func plainName() throws(InformixError) -> String {
        guard let token = current, token.kind == .word || token.kind == .string else { throw .syntax() }
        position += 1
        return token.lowered
    }

    /// `( a, b, c )` of names.
    mutating func nameList() throws(InformixError) -> [String] {
        try expectSymbol("(")
        var names = [try name()]
        while takeSymbol(",") { names.append(try name()) }
        try expectSymbol(")")
        return names
    }

    mutating func integer() throws(InformixError) -> Int {
        guard let token = current, token.kind == .number, let value = Int(token.text) else { throw .syntax() }
        position += 1
        return value
    }

    /// The tokens up to the parenthesis that closes the one just consumed.
    mutating func balancedGroup() throws(InformixError) -> [SQLToken] {
        var depth = 1
        let start = position
        while let token = current {
            if token.isSymbol("(") { depth += 1 }
            if token.isSymbol(")") {
                depth -= 1
                if depth == 0 {
                    position += 1
                    return Array(tokens[start..<(position - 1)])
                }
            }
            position += 1
        }
        throw .syntax()
    }

    /// The tokens from here up to (not including) a `,` or `)` at this depth.
    mutating func expressionTokens() -> [SQLToken] {
        var depth = 0
        let start = position
        while let token = current {
            if token.isSymbol("(") { depth += 1 }
            if token.isSymbol(")") {
                if depth == 0 { break }
                depth -= 1
            }
            if token.isSymbol(",") && depth == 0 { break }
            position += 1
        }
        return Array(tokens[start..<position])
    }

    mutating func expectEnd() throws(InformixError) {
        guard isAtEnd else { throw .syntax() }
    }

    /// A column type: `char(15)`, `serial(101)`, `decimal(8,2)`, `datetime year to minute`, …
    mutating func columnType() throws(InformixError) -> InformixType {
        guard let token = current, token.kind == .word else { throw .syntax() }
        position += 1
        let word = token.lowered
        func optionalNumbers() throws(InformixError) -> [Int] {
            guard takeSymbol("(") else { return [] }
            var numbers = [try integer()]
            while takeSymbol(",") { numbers.append(try integer()) }
            try expectSymbol(")")
            return numbers
        }
        var type: InformixType
        switch word {
        case "char", "character", "nchar":
            if word == "character", take("varying") {
                let sizes = try optionalNumbers()
                return InformixType(kind: .varchar, length: sizes.first ?? 1, scale: sizes.count > 1 ? sizes[1] : 0)
            }
            type = InformixType(kind: word == "nchar" ? .nchar : .char, length: try optionalNumbers().first ?? 1)
        case "varchar", "nvarchar":
            let sizes = try optionalNumbers()
            guard let maximum = sizes.first else { throw .syntax() }
            type = InformixType(kind: word == "varchar" ? .varchar : .nvarchar, length: maximum, scale: sizes.count > 1 ? sizes[1] : 0)
        case "lvarchar": type = InformixType(kind: .lvarchar, length: try optionalNumbers().first ?? 2048)
        case "smallint": type = InformixType(kind: .smallint)
        case "integer", "int": type = InformixType(kind: .integer)
        case "int8": type = InformixType(kind: .int8)
        case "bigint": type = InformixType(kind: .bigint)
        case "serial", "serial8", "bigserial":
            type = InformixType(kind: InformixType.Kind(rawValue: word)!)
            type.start = try optionalNumbers().first ?? 1
        case "float", "double":
            if word == "double" { try expect("precision") }
            _ = try optionalNumbers()
            type = InformixType(kind: .float)
        case "smallfloat", "real": type = InformixType(kind: .smallfloat)
        case "decimal", "dec", "numeric", "money":
            let sizes = try optionalNumbers()
            let isMoney = word == "money"
            let precision = sizes.first ?? 16
            let scale =
                sizes.count > 1
                ? sizes[1] : (isMoney ? 2 : (sizes.isEmpty ? InformixType.floatingScale : (word == "numeric" ? 0 : InformixType.floatingScale)))
            guard (1...32).contains(precision), scale == InformixType.floatingScale || scale <= precision else { throw .syntax() }
            type = InformixType(kind: isMoney ? .money : .decimal, length: precision, scale: scale)
        case "date": type = InformixType(kind: .date)
        case "datetime", "interval":
            type = InformixType(kind: word == "datetime" ? .datetime : .interval)
            let (first, leading) = try qualifierField()
            try expect("to")
            let (last, _) = try qualifierField()
            guard first <= last else { throw .syntax() }
            type.first = first
            type.last = last
            type.leading = word == "interval" ? (leading ?? (first == .year ? 4 : 2)) : 0
        case "text", "clob": type = InformixType(kind: .text)
        case "byte", "blob": type = InformixType(kind: .byte)
        case "boolean": type = InformixType(kind: .boolean)
        default: throw .unknownType(word)
        }
        return type
    }

    /// `year`, `fraction(3)`, `day(3)` (an interval's leading precision).
    private mutating func qualifierField() throws(InformixError) -> (InformixType.Field, Int?) {
        guard let token = current, token.kind == .word else { throw .syntax() }
        position += 1
        var number: Int?
        if takeSymbol("(") {
            number = try integer()
            try expectSymbol(")")
        }
        let field =
            token.lowered == "fraction"
            ? InformixType.Field(name: "fraction", fractionDigits: number ?? 3)
            : InformixType.Field(name: token.lowered)
        guard let field else { throw .syntax() }
        return (field, token.lowered == "fraction" ? nil : number)
    }
}
