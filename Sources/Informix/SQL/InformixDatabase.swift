import CSQLite
import Foundation

/// Settings of the emulated database server.
struct DatabaseSettings: Sendable {
    /// DBDATE: how DATE literals in SQL are read (and, with `dateOutput = .dbdate`, written).
    var dateFormat = DBDateFormat.iso
    /// USER, and the owner of tables clients create.
    var user = "informix"
    var databaseName = "stores_demo"
    /// When set, TODAY and CURRENT answer this instant (seconds since 1970, UTC).
    var fixedNow: Double?
    /// Longest statement accepted (Informix: -460).
    var maxStatementBytes = 65_535
    /// Longest a statement may run before it is interrupted (-213).
    var timeLimit = Duration.milliseconds(2_000)
    /// Most rows one query may return (-213 beyond).
    var maxRows = 100_000
    /// Largest string or blob a statement may make.
    var maxValueBytes: Int32 = 16 * 1024 * 1024
    /// Largest the database may grow (pages of SQLite's file or memory); a write beyond: -271.
    var maxDatabaseBytes = 256 * 1024 * 1024
    /// Most bytes of values one query may return (-208 beyond): rows are held until answered.
    var maxResultBytes = 64 * 1024 * 1024
}

/// A result column: Informix's label (lower case) and, when it is a table column, its type.
struct ResultColumn: Sendable, Hashable {
    var name: String
    var type: InformixType?
}

/// What a statement gave: rows (for a query run by PDO::query) and the rows it changed.
struct StatementResult: Sendable {
    var columns: [ResultColumn] = []
    var rows: [[SQLiteValue]] = []
    var changes = 0
}

/// Reads one result row in place, from the statement stepped to it, with the result's columns;
/// answers the row's size as kept rows count it (the sum of its values' `byteCount`), for the
/// result's byte cap.
typealias RowVisitor = (SQLiteStatement, [ResultColumn]) -> Int

/// One Informix database, emulated on a SQLite connection: the dialect, the catalog, SERIAL,
/// Informix's errors, and a sandbox. Not thread-safe: its owner runs it on one thread at a time.
final class InformixDatabase {
    let connection: SQLiteConnection
    let settings: DatabaseSettings
    let state: ConnectionState
    let dialect: InformixDialect
    /// Every table and view by name, read from the database (`understudy_tables`).
    var definitions: [String: TableDefinition] = [:] {
        didSet { state.emulatorTriggers = Set(definitions.keys.flatMap(TableDefinition.emulatorTriggerNames)) }
    }
    /// BEGIN WORK was run in this session (a request) and not yet ended.
    private(set) var inUserTransaction = false
    /// Goes up with every statement that may have changed the database: equal counts, equal data.
    private(set) var changeCount = 0
    /// Clients send the same statements again and again: what their text was parsed into, and
    /// the compiled SQLite statements with their result labels. Emptied by schema changes.
    private var plans: [String: [Plan]] = [:]
    private var prepared: [String: PreparedQuery] = [:]
    private static let cacheLimit = 512

    /// One statement of a client's text, ready to run.
    private enum Plan {
        /// SELECT/INSERT/UPDATE/DELETE as SQLite SQL, and the table it writes.
        case query(sql: String, target: String?)
        case other([SQLToken])
    }

    private final class PreparedQuery {
        let statement: SQLiteStatement
        let columns: [ResultColumn]
        init(_ statement: SQLiteStatement, _ columns: [ResultColumn]) {
            self.statement = statement
            self.columns = columns
        }
    }

    /// Forgets parsed and compiled statements (the schema changed).
    func forgetStatements() {
        plans.removeAll()
        prepared.removeAll()
    }

    /// An empty database with the system catalog.
    convenience init(settings: DatabaseSettings) throws(InformixError) {
        try self.init(settings: settings, path: ":memory:")
        try asEmulator {
            for statement in InformixCatalog.hiddenTables { try connection.execute(statement) }
        }
        // The catalog tables first, then their rows: they describe themselves.
        var catalog: [TableDefinition] = []
        for (tabid, ddl) in InformixCatalog.tables {
            var tokens: [SQLToken] = []
            do { tokens = try SQLTokenizer.tokenize(ddl) } catch { throw .syntax() }
            guard case .createTable(let spec)? = try InformixDDL.parse(tokens, dialect: dialect, owner: "informix") else { throw .syntax() }
            catalog.append(try createTable(spec, tabid: tabid, owner: "informix", isCatalog: true))
        }
        for table in catalog { try store(table) }
    }

    /// A database at `path`: a file (kept between runs) or ":memory:".
    init(settings: DatabaseSettings, path: String) throws(InformixError) {
        self.settings = settings
        state = ConnectionState(user: settings.user, databaseName: settings.databaseName, fixedNow: settings.fixedNow)
        dialect = InformixDialect(dateFormat: settings.dateFormat, owners: ["informix", settings.user.lowercased()])
        do {
            connection = try SQLiteConnection(path: path)
            try SQLSandbox.install(
                on: connection, state: state, maxValueBytes: settings.maxValueBytes,
                maxDatabaseBytes: settings.maxDatabaseBytes)
        } catch {
            throw InformixError(code: -329, sqlState: "IX000", message: "Database not found or no system permission. (\(error.message))")
        }
    }

    /// Makes this database an exact copy of `source` (a fixture restored on reset).
    func restore(from source: InformixDatabase) throws(InformixError) {
        try copy(from: source.connection)
        // The same tables as the source's: its definitions, not decoded again (a new scope's
        // database is made this way, and every reset).
        forgetStatements()
        definitions = source.definitions
    }

    /// Makes this database a copy of the one `file` holds (the fixture database, cached), with
    /// the definitions read from it.
    func restore(fromFile file: SQLiteConnection) throws(InformixError) {
        try copy(from: file)
        try reloadDefinitions()
    }

    private func copy(from source: SQLiteConnection) throws(InformixError) {
        do {
            try connection.copy(from: source)
        } catch {
            throw InformixError(code: -329, sqlState: "IX000", message: "Cannot restore the database: \(error.message)")
        }
        // The copy brings the source's pages and page size: the cap is counted again.
        try asEmulator { try SQLSandbox.limitSize(of: connection, to: settings.maxDatabaseBytes) }
    }

    /// Bytes the database holds in memory (a file database: its cached pages), for the scope list.
    var memoryUsed: Int { connection.memoryUsed }

    func reloadDefinitions() throws(InformixError) {
        forgetStatements()
        let rows = try asEmulator { try connection.rows("SELECT definition FROM understudy_tables") }
        definitions = [:]
        for row in rows {
            guard case .text(let json) = row[0],
                let definition = try? JSONDecoder().decode(TableDefinition.self, from: Data(json.utf8))
            else { continue }
            definitions[definition.name] = definition
        }
    }

    // MARK: Sessions

    /// A PHP request opens a connection: no SERIAL inserted yet, no transaction.
    func beginSession() {
        state.lastSerial = 0
        state.lastChanges = 0
    }

    /// The connection closes: a transaction left open is rolled back, as Informix does.
    func endSession() {
        if inUserTransaction {
            _ = try? asEmulator { try connection.execute("ROLLBACK") }
            inUserTransaction = false
            changeCount += 1
        }
    }

    // MARK: Statements

    /// Runs every statement of `sql` (separated by `;`); the answer is the last one's.
    /// `call` says how the client ran it (PDO exec or query), which the error text names.
    /// With `eachRow`, the last statement's rows are not kept: each is handed over while it is
    /// the statement's current row, with the result's columns, to be read in place.
    func execute(_ sql: String, call: ODBCCall, eachRow: RowVisitor? = nil) throws(PDOError) -> StatementResult {
        let prepareCall: ODBCCall = call == .execDirect ? .execDirect : .prepare
        let runCall: ODBCCall = call == .execDirect ? .execDirect : .execute
        guard sql.utf8.count <= settings.maxStatementBytes else { throw PDOError(error: .statementTooLong(), call: prepareCall) }
        let planned = try plan(sql, prepareCall)
        var result = StatementResult()
        // SQLite ends the whole transaction when a write is interrupted or finds the database
        // full: BEGIN WORK is then over, and COMMIT must say so (-255).
        defer { if inUserTransaction && !connection.isInTransaction { inUserTransaction = false } }
        for (index, statement) in planned.enumerated() {
            // Every statement, schema statements too, is bounded in time (-213).
            state.deadline =
                ConnectionState.monotonicNanos() + UInt64(settings.timeLimit.components.seconds) * 1_000_000_000
                + UInt64(settings.timeLimit.components.attoseconds / 1_000_000_000)
            defer { state.deadline = 0 }
            switch statement {
            case .query(let sqlite, let target):
                result = try runQuery(
                    sqlite, target: target, prepareCall: prepareCall, runCall: runCall,
                    eachRow: index == planned.count - 1 ? eachRow : nil)
            case .other(let tokens): result = try run(tokens, prepareCall: prepareCall)
            }
        }
        return result
    }

    /// The statements of `sql`, parsed once per distinct text.
    private func plan(_ sql: String, _ call: ODBCCall) throws(PDOError) -> [Plan] {
        if let known = plans[sql] { return known }
        let tokens: [SQLToken]
        do {
            tokens = try SQLTokenizer.tokenize(sql)
        } catch {
            throw PDOError(error: error == .unmatchedQuote ? .unmatchedQuote() : .syntax(), call: call)
        }
        let statements = tokens.splitStatements()
        guard !statements.isEmpty else { throw PDOError(error: .syntax(), call: call) }
        var planned: [Plan] = []
        for statement in statements {
            let keyword = statement[0].lowered
            let isStatistics = keyword == "update" && statement.count > 1 && statement[1].isWord("statistics")
            guard ["select", "insert", "update", "delete", "with"].contains(keyword), !isStatistics else {
                planned.append(.other(statement))
                continue
            }
            do {
                planned.append(.query(sql: try dialect.translate(statement).sqliteText(), target: targetTable(statement)))
            } catch {
                throw PDOError(error: error, call: call)
            }
        }
        if plans.count >= Self.cacheLimit { plans.removeAll() }
        plans[sql] = planned
        return planned
    }

    private func run(_ tokens: [SQLToken], prepareCall: ODBCCall) throws(PDOError) -> StatementResult {
        changeCount += 1
        let keyword = tokens[0].lowered
        do {
            switch keyword {
            case "update":
                try updateStatistics()
                return StatementResult()
            case "create", "drop", "alter", "rename":
                // The emulator's tables and triggers are trusted by their names: a client may
                // not name anything like them, nor reach them from a view or trigger body.
                if let reserved = tokens.first(where: { $0.kind == .word && $0.lowered.hasPrefix(InformixCatalog.hiddenPrefix) }) {
                    throw InformixError.reservedName(reserved.lowered)
                }
                guard let statement = try InformixDDL.parse(tokens, dialect: dialect, owner: settings.user) else { throw InformixError.syntax() }
                try apply(statement)
                return StatementResult()
            case "begin", "commit", "rollback":
                try transaction(keyword, tokens)
                return StatementResult()
            case "set", "lock", "unlock", "grant", "revoke", "database", "close":
                // Session settings and privileges: accepted, nothing to emulate.
                return StatementResult()
            default:
                throw InformixError.syntax()
            }
        } catch let error as PDOError {
            throw error
        } catch let error as InformixError {
            throw PDOError(error: error, call: prepareCall)
        } catch {
            throw PDOError(error: .syntax(), call: prepareCall)
        }
    }

    private func transaction(_ keyword: String, _ tokens: [SQLToken]) throws(InformixError) {
        guard tokens.count == 1 || (tokens.count == 2 && tokens[1].isWord("work")) else { throw .syntax() }
        switch keyword {
        case "begin":
            guard !inUserTransaction else { throw .alreadyInTransaction() }
            try asEmulator { try connection.execute("BEGIN") }
            inUserTransaction = true
        default:
            guard inUserTransaction else { throw .notInTransaction() }
            try asEmulator { try connection.execute(keyword == "commit" ? "COMMIT" : "ROLLBACK") }
            inUserTransaction = false
        }
    }

    private func runQuery(
        _ sql: String, target: String?, prepareCall: ODBCCall, runCall: ODBCCall,
        eachRow: RowVisitor?
    ) throws(PDOError) -> StatementResult {
        let query: PreparedQuery
        if let known = prepared[sql] {
            query = known
        } else {
            do {
                let statement = try connection.prepare(sql)
                query = PreparedQuery(statement, (0..<statement.columnCount).map { label(statement, $0) })
            } catch {
                throw PDOError(error: informixError(error), call: prepareCall)
            }
            if prepared.count >= Self.cacheLimit { prepared.removeAll() }
            prepared[sql] = query
        }
        let statement = query.statement
        defer { statement.reset() }
        if !statement.isReadOnly { changeCount += 1 }
        var result = StatementResult()
        result.columns = query.columns
        // PDO::exec() (SQLExecDirect) opens a query's cursor but fetches nothing: one step
        // checks that it runs; a write runs to the end.
        let fetches = runCall != .execDirect || !statement.isReadOnly
        var resultBytes = 0
        var rowCount = 0
        do throws(SQLiteError) {
            while try statement.step() {
                guard fetches else { break }
                guard rowCount < settings.maxRows else { throw SQLiteError(code: SQLITE_INTERRUPT, message: "too many rows") }
                rowCount += 1
                if let eachRow {
                    // Counted as if kept: the caller holds what it makes of them until the answer.
                    resultBytes += eachRow(statement, result.columns)
                } else {
                    let row = (0..<result.columns.count).map(statement.value)
                    resultBytes += row.reduce(0) { $0 + $1.byteCount }
                    result.rows.append(row)
                }
                guard resultBytes <= settings.maxResultBytes else { throw SQLiteError(code: SQLITE_TOOBIG, message: "result too big") }
            }
        } catch {
            if error.code == SQLiteConstraint.foreignKey {
                statement.reset()
                throw PDOError(error: foreignKeyFailure(sql, target: target), call: runCall)
            }
            throw PDOError(error: informixError(error), call: runCall)
        }
        if !statement.isReadOnly {
            result.changes = connection.changes
            state.lastChanges = Int64(result.changes)
        }
        return result
    }

    /// Runs `body` as the emulator (the authorizer lets it do anything).
    func asEmulator<T>(_ body: () throws -> T) throws(InformixError) -> T {
        let was = state.isInternal
        state.isInternal = true
        defer { state.isInternal = was }
        do {
            return try body()
        } catch let error as SQLiteError {
            throw informixError(error)
        } catch let error as InformixError {
            throw error
        } catch {
            throw .syntax()
        }
    }

    /// `UPDATE STATISTICS`: systables.nrows of every user table becomes its row count.
    private func updateStatistics() throws(InformixError) {
        try asEmulator {
            for table in definitions.values where table.tabtype == "T" && !table.isCatalog {
                try connection.execute("UPDATE systables SET nrows = (SELECT count(*) FROM \(table.name)) WHERE tabid = \(table.tabid)")
            }
        }
    }

    // MARK: Result labels

    /// Informix's label for a result column: the column's name, the alias, or what Informix
    /// calls an unnamed expression (`(count(*))`, `(sum)`, `(constant)`, `(expression)`).
    private func label(_ statement: SQLiteStatement, _ index: Int) -> ResultColumn {
        let name = statement.columnName(index)
        if let origin = statement.columnOrigin(index) {
            let type = definitions[origin.table.lowercased()]?.column(origin.column)?.type
            let isAlias = name.lowercased() != origin.column.lowercased() && Self.isIdentifier(name)
            return ResultColumn(name: isAlias ? name.lowercased() : origin.column.lowercased(), type: type)
        }
        if Self.isIdentifier(name) { return ResultColumn(name: name.lowercased()) }
        let lowered = name.lowercased()
        if lowered.replacingOccurrences(of: " ", with: "") == "count(*)" { return ResultColumn(name: "(count(*))") }
        for function in ["count", "sum", "avg", "min", "max"] where lowered.hasPrefix(function + "(") {
            return ResultColumn(name: "(\(function))")
        }
        for (function, label) in [("understudy_today(", "(today)"), ("understudy_current(", "(current)"), ("understudy_user(", "(user)")]
        where lowered.hasPrefix(function) {
            return ResultColumn(name: label)
        }
        if let first = lowered.first, first == "'" || first.isNumber || first == "-" && lowered.dropFirst().allSatisfy({ $0.isNumber || $0 == "." }) {
            return ResultColumn(name: "(constant)")
        }
        return ResultColumn(name: "(expression)")
    }

    static func isIdentifier(_ text: String) -> Bool {
        guard let first = text.unicodeScalars.first, first == "_" || first.properties.isAlphabetic else { return false }
        return text.unicodeScalars.allSatisfy { $0 == "_" || $0 == "$" || $0.properties.isAlphabetic || ("0"..."9").contains($0) }
    }

    // MARK: Errors

    /// The table an INSERT, UPDATE or DELETE writes.
    private func targetTable(_ tokens: [SQLToken]) -> String? {
        var cursor = SQLTokenCursor(tokens)
        guard cursor.take("insert", "into") || cursor.take("delete", "from") || cursor.take("update") || cursor.take("delete") else { return nil }
        return try? cursor.name()
    }

    /// Which referential constraint a write broke: run it again with foreign keys deferred, ask
    /// SQLite which rows are orphaned, and undo. -691 when the written rows lack a parent,
    /// -692 when rows elsewhere lost theirs.
    private func foreignKeyFailure(_ sql: String, target: String?) -> InformixError {
        var violations: [[SQLiteValue]] = []
        do throws(InformixError) {
            try asEmulator { try connection.execute("SAVEPOINT understudy_fk; PRAGMA defer_foreign_keys = ON") }
            defer {
                _ = try? asEmulator { try connection.execute("ROLLBACK TO understudy_fk; RELEASE understudy_fk; PRAGMA defer_foreign_keys = OFF") }
            }
            do throws(SQLiteError) {
                let statement = try connection.prepare(sql)
                while try statement.step() {}
            } catch {
                return informixError(error)
            }
            violations = try asEmulator { try connection.rows("PRAGMA foreign_key_check") }
        } catch {
            return error
        }
        for violation in violations {
            guard case .text(let child) = violation[0], case .text(let parent) = violation[2], case .integer(let fkid) = violation[3],
                let definition = definitions[child.lowercased()]
            else { continue }
            let keys = (try? asEmulator { try connection.rows("PRAGMA foreign_key_list(\(child))") }) ?? []
            let columns = keys.filter { $0[0] == .integer(fkid) }.compactMap { row -> String? in
                if case .text(let name) = row[3] { return name.lowercased() } else { return nil }
            }
            guard
                let constraint = definition.constraints.first(where: {
                    $0.kind == .foreignKey && $0.referencedTable == parent.lowercased() && $0.columns == columns
                })
            else { continue }
            let name = "\(definition.owner).\(constraint.name)"
            return child.lowercased() == target ? .missingParentKey(name) : .keyStillReferenced(name)
        }
        return .missingParentKey("\(settings.user).unknown")
    }

    /// Informix's error for what SQLite reported.
    func informixError(_ error: SQLiteError) -> InformixError {
        if let refusal = state.refusal {
            state.refusal = nil
            return refusal
        }
        let message = error.message
        func after(_ prefix: String) -> String? {
            message.hasPrefix(prefix) ? String(message.dropFirst(prefix.count)) : nil
        }
        if let code = after("informix:").flatMap(Int.init) { return Self.functionError(code) }
        switch error.primaryCode {
        case SQLITE_INTERRUPT: return .interrupted()
        case SQLITE_TOOBIG: return InformixError(code: -208, sqlState: "HY001", message: "Memory allocation failed during query processing.")
        case SQLITE_FULL: return .databaseFull()
        case SQLITE_CONSTRAINT: return constraintError(error)
        case SQLITE_ERROR: break
        default: return InformixError(code: -999, sqlState: "HY000", message: "Not implemented yet. (\(message))")
        }
        if let name = after("no such table: ") { return .unknownTable(name.replacingOccurrences(of: "main.", with: "")) }
        if let name = after("no such column: ") { return .unknownColumn(String(name.split(separator: ".").last ?? Substring(name))) }
        if let name = after("no such function: ") { return .unknownRoutine(name.lowercased()) }
        if let rest = after("wrong number of arguments to function ") { return .unknownRoutine(String(rest.prefix { $0 != "(" }).lowercased()) }
        if let name = after("ambiguous column name: ") {
            return InformixError(code: -324, sqlState: "42000", message: "Ambiguous column (\(name.split(separator: ".").last ?? "")).")
        }
        if message.contains("values for") && message.contains("columns") || message.contains("values were supplied") {
            return .valueCountMismatch()
        }
        if let view = after("cannot modify ") { return .viewNotUpdatable(String(view.prefix { $0 != " " })) }
        if message.contains("misuse of aggregate") {
            return InformixError(
                code: -294, sqlState: "42000", message: "The column (\(message.split(separator: " ").last ?? "")) must be in the GROUP BY list.")
        }
        return .syntax()
    }

    private func constraintError(_ error: SQLiteError) -> InformixError {
        let message = error.message
        switch error.code {
        case SQLiteConstraint.unique, SQLiteConstraint.primaryKey:
            // "UNIQUE constraint failed: customer.customer_num" (or "t.a, t.b")
            let names = message.split(separator: ":").last.map { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } } ?? []
            let table = names.first.map { String($0.split(separator: ".").first ?? "") }?.lowercased() ?? ""
            let columns = names.map { String($0.split(separator: ".").last ?? "").lowercased() }
            if let definition = definitions[table],
                let constraint = definition.constraints.first(where: {
                    ($0.kind == .primaryKey || $0.kind == .unique) && Set($0.columns) == Set(columns)
                })
            {
                return .uniqueConstraint("\(definition.owner).\(constraint.name)")
            }
            return .uniqueIndex()
        case SQLiteConstraint.notNull:
            let qualified = message.split(separator: ":").last.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
            let parts = qualified.split(separator: ".").map { $0.lowercased() }
            if parts.count == 2, let definition = definitions[parts[0]], let column = definition.column(parts[1]),
                !column.notNull, definition.isPrimaryKeyColumn(column.name)
            {
                return InformixError(code: -703, sqlState: "IX000", message: "Primary key on table (\(parts[0])) has a field with a null key value.")
            }
            return .nullInto(qualified.lowercased())
        case SQLiteConstraint.check:
            let name = message.split(separator: ":").last.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
            if let column = name.split(separator: "_").dropFirst(2).joined(separator: "_").nilIfEmpty, name.hasPrefix(InformixCatalog.hiddenPrefix) {
                if name.hasPrefix("understudy_date_") { return .dateConversion() }
                let kind = definitions.values.lazy.compactMap { $0.column(column)?.type.kind }.first ?? .decimal
                return .valueTooLarge(for: kind)
            }
            let owner = definitions.values.first { $0.constraints.contains { $0.name == name } }?.owner ?? settings.user
            return .checkConstraint("\(owner).\(name)")
        case SQLiteConstraint.dataType:
            return .characterToNumeric()
        case SQLiteConstraint.trigger:
            if message.hasPrefix("informix:"), let code = Int(message.dropFirst("informix:".count)) { return Self.functionError(code) }
            return InformixError(code: -746, sqlState: "IX000", message: message)
        default:
            return InformixError(code: -999, sqlState: "HY000", message: "Not implemented yet. (\(message))")
        }
    }

    /// Errors the emulated functions raise by number.
    static func functionError(_ code: Int) -> InformixError {
        switch code {
        case -1206: InformixError(code: -1206, sqlState: "22008", message: "Invalid day in date.")
        case -1218: .dateConversion()
        case -728: InformixError(code: -728, sqlState: "IX000", message: "Unknown first argument of dbinfo(sqlca.sqlerrd1).")
        default: InformixError(code: code, sqlState: "IX000", message: "Error \(code).")
        }
    }
}

extension SQLiteValue {
    /// About what the value takes in memory, for the result's byte cap.
    var byteCount: Int {
        switch self {
        case .null: 1
        case .integer, .real: 8
        case .text(let text): text.utf8.count
        case .blob(let bytes): bytes.count
        }
    }
}

extension String {
    var nilIfEmpty: String? { isEmpty ? nil : self }
}
