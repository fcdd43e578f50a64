/// The schema statements of Informix's dialect the emulator understands, parsed from tokens.
/// Constraint names and ids are given when a statement is applied (`SchemaEditor`).
enum InformixDDL {
    struct TableSpec {
        var name: String
        var columns: [ColumnDefinition]
        /// Constraints in declaration order, named or not.
        var constraints: [ConstraintSpec]
        var ifNotExists = false
    }

    struct ConstraintSpec {
        var kind: ConstraintDefinition.Kind
        var name: String?
        var columns: [String]
        var referencedTable: String?
        var referencedColumns: [String] = []
        var onDeleteCascade = false
        var checkText: String?
        var checkSQLite: String?
    }

    struct IndexSpec {
        var index: IndexDefinition
        var table: String
    }

    struct ViewSpec {
        var name: String
        var columns: [String]
        var text: String
        var select: [SQLToken]
    }

    struct TriggerSpec {
        var name: String
        var table: String
        /// `insert`, `update`, `delete`.
        var event: String
        var columns: [String]
        var old: String?
        var new: String?
        var timing: String
        var actions: [[SQLToken]]
    }

    enum AlterAction {
        case add([ColumnDefinition], [ConstraintSpec])
        case drop([String])
        case modify([ColumnDefinition])
        case addConstraints([ConstraintSpec])
        case dropConstraints([String])
    }

    enum Statement {
        case createTable(TableSpec)
        case dropTable(String)
        case createIndex(IndexSpec)
        case dropIndex(String)
        case createView(ViewSpec)
        case dropView(String)
        case createTrigger(TriggerSpec)
        case dropTrigger(String)
        case alterTable(String, [AlterAction])
        case renameTable(String, String)
        case renameColumn(String, String, String)
    }

    /// The schema statement in `tokens`, nil when it is not one; -201 when it is one badly written.
    static func parse(_ tokens: [SQLToken], dialect: InformixDialect, owner: String) throws(InformixError) -> Statement? {
        var cursor = SQLTokenCursor(tokens)
        if cursor.take("create") {
            _ = cursor.take("temp") || cursor.take("standard") || cursor.take("raw")
            if cursor.take("table") { return .createTable(try table(&cursor, dialect)) }
            if cursor.take("view") { return .createView(try view(&cursor)) }
            if cursor.take("trigger") { return .createTrigger(try trigger(&cursor)) }
            let unique = cursor.take("unique") || cursor.take("distinct")
            let clustered = cursor.take("cluster")
            if cursor.take("index") { return .createIndex(try index(&cursor, unique: unique, clustered: clustered, owner: owner)) }
            throw .syntax()
        }
        if cursor.take("drop") {
            let kind = cursor.current?.lowered ?? ""
            guard ["table", "index", "view", "trigger"].contains(kind) else { throw .syntax() }
            cursor.position += 1
            let name = try cursor.name()
            _ = cursor.take("cascade") || cursor.take("restrict")
            try cursor.expectEnd()
            switch kind {
            case "table": return .dropTable(name)
            case "index": return .dropIndex(name)
            case "view": return .dropView(name)
            default: return .dropTrigger(name)
            }
        }
        if cursor.take("alter", "table") {
            let name = try cursor.name()
            var actions: [AlterAction] = []
            repeat {
                actions.append(try alterAction(&cursor, dialect))
            } while cursor.takeSymbol(",")
            try cursor.expectEnd()
            return .alterTable(name, actions)
        }
        if cursor.take("rename", "table") {
            let old = try cursor.name()
            try cursor.expect("to")
            let new = try cursor.name()
            try cursor.expectEnd()
            return .renameTable(old, new)
        }
        if cursor.take("rename", "column") {
            let table = try plainName(&cursor)
            try cursor.expectSymbol(".")
            let old = try plainName(&cursor)
            try cursor.expect("to")
            let new = try plainName(&cursor)
            try cursor.expectEnd()
            return .renameColumn(table, old, new)
        }
        return nil
    }

    private static func plainName(_ cursor: inout SQLTokenCursor) throws(InformixError) -> String {
        guard let token = cursor.current, token.kind == .word else { throw .syntax() }
        cursor.position += 1
        return token.lowered
    }

    // MARK: CREATE TABLE

    private static func table(_ cursor: inout SQLTokenCursor, _ dialect: InformixDialect) throws(InformixError) -> TableSpec {
        let ifNotExists = cursor.take("if", "not", "exists")
        var spec = TableSpec(name: try cursor.name(), columns: [], constraints: [], ifNotExists: ifNotExists)
        try cursor.expectSymbol("(")
        repeat {
            if let constraint = try tableConstraint(&cursor, dialect) {
                spec.constraints.append(constraint)
            } else {
                let (column, constraints) = try columnDefinition(&cursor, dialect)
                spec.columns.append(column)
                spec.constraints += constraints
            }
        } while cursor.takeSymbol(",")
        try cursor.expectSymbol(")")
        try storageOptions(&cursor)
        guard !spec.columns.isEmpty else { throw .syntax() }
        return spec
    }

    /// `WITH CRCOLS`, `IN dbspace`, `EXTENT SIZE n NEXT SIZE m`, `LOCK MODE ROW|PAGE|TABLE`:
    /// accepted and ignored.
    private static func storageOptions(_ cursor: inout SQLTokenCursor) throws(InformixError) {
        while !cursor.isAtEnd {
            if cursor.take("with") {
                guard cursor.current?.kind == .word else { throw .syntax() }
                cursor.position += 1
            } else if cursor.take("in") {
                _ = try cursor.name()
            } else if cursor.take("extent", "size") || cursor.take("next", "size") {
                _ = try cursor.integer()
            } else if cursor.take("lock", "mode") {
                guard cursor.take("row") || cursor.take("page") || cursor.take("table") else { throw .syntax() }
            } else {
                throw .syntax()
            }
        }
    }

    private static func columnDefinition(_ cursor: inout SQLTokenCursor, _ dialect: InformixDialect)
        throws(InformixError) -> (ColumnDefinition, [ConstraintSpec])
    {
        guard let token = cursor.current, token.kind == .word else { throw .syntax() }
        cursor.position += 1
        var column = ColumnDefinition(name: token.lowered, type: try cursor.columnType())
        var constraints: [ConstraintSpec] = []
        while let current = cursor.current, !current.isSymbol(","), !current.isSymbol(")") {
            if cursor.take("default") {
                (column.defaultSQLite, column.defaultText) = try defaultValue(&cursor, dialect)
            } else if cursor.take("not", "null") {
                column.notNull = true
                constraints.append(ConstraintSpec(kind: .notNull, name: try trailingName(&cursor), columns: [column.name]))
            } else if cursor.take("null") {
                continue
            } else {
                let leadingName = cursor.take("constraint") ? try cursor.name() : nil
                guard var constraint = try constraintBody(&cursor, dialect, column: column.name) else { throw .syntax() }
                let trailing = try trailingName(&cursor)
                constraint.name = leadingName ?? trailing
                constraints.append(constraint)
            }
        }
        return (column, constraints)
    }

    private static func tableConstraint(_ cursor: inout SQLTokenCursor, _ dialect: InformixDialect) throws(InformixError) -> ConstraintSpec? {
        let start = cursor.position
        let leadingName = cursor.take("constraint") ? try cursor.name() : nil
        // A column may be called "primary" or "check" (sysreferences.primary): only these
        // word pairs start a table constraint.
        let opensList = cursor.position + 1 < cursor.tokens.count && cursor.tokens[cursor.position + 1].isSymbol("(")
        guard
            cursor.peekWord("primary") && cursor.peekWord("key", ahead: 1) || cursor.peekWord("foreign") && cursor.peekWord("key", ahead: 1)
                || (cursor.peekWord("unique") || cursor.peekWord("distinct") || cursor.peekWord("check")) && opensList
        else {
            cursor.position = start
            return nil
        }
        guard var constraint = try constraintBody(&cursor, dialect, column: nil) else { throw .syntax() }
        let trailing = try trailingName(&cursor)
        constraint.name = leadingName ?? trailing
        return constraint
    }

    /// `PRIMARY KEY [(cols)]`, `UNIQUE [(cols)]`, `[FOREIGN KEY (cols)] REFERENCES t [(cols)]
    /// [ON DELETE CASCADE]`, `CHECK (expr)`. A column constraint names its own column.
    private static func constraintBody(_ cursor: inout SQLTokenCursor, _ dialect: InformixDialect, column: String?)
        throws(InformixError) -> ConstraintSpec?
    {
        func columns() throws(InformixError) -> [String] {
            if let column, !cursor.peekSymbol("(") { return [column] }
            return try cursor.nameList()
        }
        if cursor.take("primary", "key") { return ConstraintSpec(kind: .primaryKey, columns: try columns()) }
        if cursor.take("unique") || cursor.take("distinct") { return ConstraintSpec(kind: .unique, columns: try columns()) }
        if cursor.take("check") {
            try cursor.expectSymbol("(")
            let expression = try cursor.balancedGroup()
            return ConstraintSpec(
                kind: .check, columns: column.map { [$0] } ?? [],
                checkText: expression.sqliteText(), checkSQLite: try dialect.translate(expression).sqliteText())
        }
        var referencing: [String]
        if cursor.take("foreign", "key") {
            referencing = try cursor.nameList()
        } else if let column, cursor.peekWord("references") {
            referencing = [column]
        } else {
            return nil
        }
        try cursor.expect("references")
        var spec = ConstraintSpec(kind: .foreignKey, columns: referencing, referencedTable: try cursor.name())
        if cursor.peekSymbol("(") { spec.referencedColumns = try cursor.nameList() }
        spec.onDeleteCascade = cursor.take("on", "delete", "cascade")
        return spec
    }

    /// Informix writes a constraint's name after it: `PRIMARY KEY (a) CONSTRAINT u100_1`.
    private static func trailingName(_ cursor: inout SQLTokenCursor) throws(InformixError) -> String? {
        cursor.take("constraint") ? try cursor.name() : nil
    }

    private static func defaultValue(_ cursor: inout SQLTokenCursor, _ dialect: InformixDialect) throws(InformixError) -> (String, String) {
        guard let token = cursor.current else { throw .syntax() }
        cursor.position += 1
        switch token.kind {
        case .string:
            var value = token.text
            if dialect.dateFormat != .iso, let iso = dialect.dateFormat.isoDate(from: value) { value = iso }
            return ("'" + value.replacingOccurrences(of: "'", with: "''") + "'", token.text)
        case .number:
            return (token.text, token.text)
        case .symbol where token.text == "-" || token.text == "+":
            guard let number = cursor.current, number.kind == .number else { throw .syntax() }
            cursor.position += 1
            return (token.text + number.text, token.text + number.text)
        case .word:
            switch token.lowered {
            case "null": return ("NULL", "NULL")
            case "user", "current_user": return ("(understudy_user())", "USER")
            case "today": return ("(understudy_today())", "TODAY")
            case "dbservername", "sitename": return ("'understudy'", token.lowered.uppercased())
            case "current":
                // CURRENT [first TO last], e.g. CURRENT YEAR TO FRACTION(3).
                var group = [token]
                let fields: Set<String> = ["year", "month", "day", "hour", "minute", "second", "fraction", "to"]
                while let next = cursor.current, next.kind == .word, fields.contains(next.lowered) {
                    group.append(next)
                    cursor.position += 1
                    if cursor.peekSymbol("("), let number = cursor.tokens.dropFirst(cursor.position + 1).first, number.kind == .number {
                        group += cursor.tokens[cursor.position..<min(cursor.position + 3, cursor.tokens.count)]
                        cursor.position += 3
                    }
                }
                return ("(" + (try dialect.translate(group)).sqliteText() + ")", "CURRENT")
            default: throw .syntax()
            }
        default:
            throw .syntax()
        }
    }

    // MARK: CREATE INDEX / VIEW / TRIGGER

    private static func index(_ cursor: inout SQLTokenCursor, unique: Bool, clustered: Bool, owner: String) throws(InformixError) -> IndexSpec {
        let name = try cursor.name()
        try cursor.expect("on")
        let table = try cursor.name()
        try cursor.expectSymbol("(")
        var parts: [IndexDefinition.Part] = []
        repeat {
            var part = IndexDefinition.Part(name: try cursor.name())
            if cursor.take("desc") { part.descending = true } else { _ = cursor.take("asc") }
            parts.append(part)
        } while cursor.takeSymbol(",")
        try cursor.expectSymbol(")")
        if cursor.take("using") { _ = try cursor.name() }
        try storageOptions(&cursor)
        return IndexSpec(index: IndexDefinition(name: name, owner: owner, columns: parts, isUnique: unique, isClustered: clustered), table: table)
    }

    private static func view(_ cursor: inout SQLTokenCursor) throws(InformixError) -> ViewSpec {
        let name = try cursor.name()
        let columns = cursor.peekSymbol("(") ? try cursor.nameList() : []
        try cursor.expect("as")
        let start = cursor.position
        var end = cursor.tokens.count
        // WITH CHECK OPTION is accepted; the view is read-only here (documented).
        if end - start >= 3, cursor.tokens[end - 3].isWord("with"), cursor.tokens[end - 2].isWord("check"), cursor.tokens[end - 1].isWord("option") {
            end -= 3
        }
        let select = Array(cursor.tokens[start..<end])
        guard select.first?.isWord("select") == true else { throw .syntax() }
        return ViewSpec(name: name, columns: columns, text: cursor.tokens.sqliteText(), select: select)
    }

    /// `CREATE TRIGGER t {INSERT|UPDATE [OF cols]|DELETE} ON table [REFERENCING OLD AS o NEW AS n]
    /// [BEFORE|AFTER|FOR EACH ROW] (statement, …)`.
    private static func trigger(_ cursor: inout SQLTokenCursor) throws(InformixError) -> TriggerSpec {
        let name = try cursor.name()
        guard let eventToken = cursor.current, ["insert", "update", "delete"].contains(eventToken.lowered) else { throw .syntax() }
        cursor.position += 1
        var columns: [String] = []
        if eventToken.lowered == "update", cursor.take("of") {
            columns.append(try cursor.name())
            while cursor.takeSymbol(",") { columns.append(try cursor.name()) }
        }
        try cursor.expect("on")
        var spec = TriggerSpec(name: name, table: try cursor.name(), event: eventToken.lowered, columns: columns, timing: "after", actions: [])
        if cursor.take("referencing") {
            while cursor.peekWord("old") || cursor.peekWord("new") {
                let which = cursor.current!.lowered
                cursor.position += 1
                _ = cursor.take("as")
                let alias = try cursor.name()
                if which == "old" { spec.old = alias } else { spec.new = alias }
            }
        }
        if cursor.take("before") { spec.timing = "before" } else { _ = cursor.take("after") }
        _ = cursor.take("for", "each", "row")
        try cursor.expectSymbol("(")
        spec.actions = try cursor.balancedGroup().splitStatements(separator: ",")
        _ = cursor.take("after")
        try cursor.expectEnd()
        return spec
    }

    // MARK: ALTER TABLE

    private static func alterAction(_ cursor: inout SQLTokenCursor, _ dialect: InformixDialect) throws(InformixError) -> AlterAction {
        if cursor.take("add", "constraint") {
            let grouped = cursor.takeSymbol("(")
            var specs: [ConstraintSpec] = []
            repeat {
                guard let spec = try tableConstraint(&cursor, dialect) else { throw .syntax() }
                specs.append(spec)
            } while grouped && cursor.takeSymbol(",")
            if grouped { try cursor.expectSymbol(")") }
            return .addConstraints(specs)
        }
        if cursor.take("drop", "constraint") {
            if cursor.takeSymbol("(") {
                var names = [try cursor.name()]
                while cursor.takeSymbol(",") { names.append(try cursor.name()) }
                try cursor.expectSymbol(")")
                return .dropConstraints(names)
            }
            return .dropConstraints([try cursor.name()])
        }
        let isAdd = cursor.take("add")
        let isModify = !isAdd && cursor.take("modify")
        if isAdd || isModify {
            let grouped = cursor.takeSymbol("(")
            var columns: [ColumnDefinition] = []
            var constraints: [ConstraintSpec] = []
            repeat {
                let (column, columnConstraints) = try columnDefinition(&cursor, dialect)
                columns.append(column)
                constraints += columnConstraints
                _ = cursor.take("before") ? try cursor.name() : ""
            } while grouped && cursor.takeSymbol(",")
            if grouped { try cursor.expectSymbol(")") }
            return isAdd ? .add(columns, constraints) : .modify(columns)
        }
        if cursor.take("drop") {
            if cursor.takeSymbol("(") {
                var names = [try cursor.name()]
                while cursor.takeSymbol(",") { names.append(try cursor.name()) }
                try cursor.expectSymbol(")")
                return .drop(names)
            }
            return .drop([try cursor.name()])
        }
        throw .syntax()
    }
}

extension [SQLToken] {
    /// Splits at top-level occurrences of `separator` (the actions of a trigger are separated by commas).
    func splitStatements(separator: String) -> [[SQLToken]] {
        var parts: [[SQLToken]] = []
        var current: [SQLToken] = []
        var depth = 0
        for token in self {
            if token.isSymbol("(") { depth += 1 }
            if token.isSymbol(")") { depth -= 1 }
            if token.isSymbol(separator) && depth == 0 {
                parts.append(current)
                current = []
            } else {
                current.append(token)
            }
        }
        if !current.isEmpty { parts.append(current) }
        return parts
    }
}
