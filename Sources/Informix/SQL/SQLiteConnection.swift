import CSQLite

/// A failure reported by SQLite: its extended result code and message.
struct SQLiteError: Error, CustomStringConvertible {
    var code: Int32
    var message: String

    /// The primary result code (SQLITE_CONSTRAINT for every kind of constraint, …).
    var primaryCode: Int32 { code & 0xFF }
    var description: String { "SQLite error \(code): \(message)" }
}

/// SQLite's extended result codes for constraints (C macros Swift does not import).
enum SQLiteConstraint {
    static let check: Int32 = 19 | (1 << 8)
    static let foreignKey: Int32 = 19 | (3 << 8)
    static let notNull: Int32 = 19 | (5 << 8)
    static let primaryKey: Int32 = 19 | (6 << 8)
    static let trigger: Int32 = 19 | (7 << 8)
    static let unique: Int32 = 19 | (8 << 8)
    static let dataType: Int32 = 19 | (12 << 8)
}

/// One value of a result row, as SQLite stores it.
enum SQLiteValue: Equatable, Sendable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])
}

/// One SQLite database connection. Not thread-safe: its owner uses it from one thread at a time.
final class SQLiteConnection {
    let handle: OpaquePointer

    /// Opens `path` (":memory:" for a private in-memory database), creating it when missing.
    init(path: String = ":memory:") throws(SQLiteError) {
        var db: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
        let status = sqlite3_open_v2(path, &db, flags, nil)
        guard status == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close(db)
            throw SQLiteError(code: status, message: message)
        }
        handle = db
        sqlite3_extended_result_codes(db, 1)
    }

    deinit {
        sqlite3_close_v2(handle)
    }

    /// Heap bytes the connection holds: its page cache (all of an in-memory database), schema
    /// and prepared statements.
    var memoryUsed: Int {
        [SQLITE_DBSTATUS_CACHE_USED, SQLITE_DBSTATUS_SCHEMA_USED, SQLITE_DBSTATUS_STMT_USED].reduce(0) { total, counter in
            var current: Int32 = 0
            var highest: Int32 = 0
            return sqlite3_db_status(handle, counter, &current, &highest, 0) == SQLITE_OK ? total + Int(current) : total
        }
    }

    /// Runs statements that return no rows (schema set-up, pragmas, transaction control).
    func execute(_ sql: String) throws(SQLiteError) {
        var message: UnsafeMutablePointer<CChar>?
        let status = sqlite3_exec(handle, sql, nil, nil, &message)
        if status != SQLITE_OK {
            let text = message.map { String(cString: $0) } ?? String(cString: sqlite3_errmsg(handle))
            sqlite3_free(message)
            throw SQLiteError(code: sqlite3_extended_errcode(handle), message: text)
        }
    }

    /// Compiles one statement; text after it is ignored.
    func prepare(_ sql: String) throws(SQLiteError) -> SQLiteStatement {
        var statement: OpaquePointer?
        let status = sqlite3_prepare_v2(handle, sql, -1, &statement, nil)
        guard status == SQLITE_OK, let statement else {
            sqlite3_finalize(statement)
            throw lastError(status)
        }
        return SQLiteStatement(statement, connection: self)
    }

    /// All rows of a query, for internal look-ups.
    func rows(_ sql: String) throws(SQLiteError) -> [[SQLiteValue]] {
        let statement = try prepare(sql)
        var rows: [[SQLiteValue]] = []
        while try statement.step() {
            rows.append((0..<statement.columnCount).map(statement.value))
        }
        return rows
    }

    /// Rows changed by the last INSERT, UPDATE or DELETE.
    var changes: Int { Int(sqlite3_changes(handle)) }

    var isInTransaction: Bool { sqlite3_get_autocommit(handle) == 0 }

    /// Makes this database a copy of `source` (every page; the schema included).
    func copy(from source: SQLiteConnection) throws(SQLiteError) {
        guard let backup = sqlite3_backup_init(handle, "main", source.handle, "main") else {
            throw lastError(sqlite3_errcode(handle))
        }
        let status = sqlite3_backup_step(backup, -1)
        sqlite3_backup_finish(backup)
        guard status == SQLITE_DONE else { throw lastError(status) }
    }

    func lastError(_ status: Int32) -> SQLiteError {
        SQLiteError(
            code: sqlite3_extended_errcode(handle) == SQLITE_OK ? status : sqlite3_extended_errcode(handle),
            message: String(cString: sqlite3_errmsg(handle)))
    }
}

/// A column of a statement's current row, as `SQLiteStatement.view` reads it in place.
enum SQLiteColumnView {
    case null
    case integer(Int64)
    /// UTF-8 as stored (not checked), valid until the statement steps or resets.
    case text(UnsafeBufferPointer<UInt8>)
    /// REAL or BLOB: read with `value`.
    case other
}

/// A compiled statement; finalized when released.
final class SQLiteStatement {
    private let statement: OpaquePointer
    /// Keeps the connection open while the statement lives.
    private let connection: SQLiteConnection

    fileprivate init(_ statement: OpaquePointer, connection: SQLiteConnection) {
        self.statement = statement
        self.connection = connection
    }

    deinit {
        sqlite3_finalize(statement)
    }

    /// Advances to the next row: true while there is one.
    func step() throws(SQLiteError) -> Bool {
        switch sqlite3_step(statement) {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        case let status: throw connection.lastError(status)
        }
    }

    /// Makes the statement ready to run again.
    func reset() {
        sqlite3_reset(statement)
    }

    var columnCount: Int { Int(sqlite3_column_count(statement)) }

    /// True when the statement cannot change the database (a SELECT).
    var isReadOnly: Bool { sqlite3_stmt_readonly(statement) != 0 }

    func columnName(_ index: Int) -> String {
        sqlite3_column_name(statement, Int32(index)).map { String(cString: $0) } ?? ""
    }

    /// The table and column a result column comes from, when it is a plain column (views are
    /// followed to their base tables).
    func columnOrigin(_ index: Int) -> (table: String, column: String)? {
        guard let table = sqlite3_column_table_name(statement, Int32(index)),
            let column = sqlite3_column_origin_name(statement, Int32(index))
        else { return nil }
        return (String(cString: table), String(cString: column))
    }

    /// A column of the current row as stored, read in place: TEXT's bytes stay valid until the
    /// next step. One call into SQLite (its value object) instead of one per property.
    func view(_ index: Int) -> SQLiteColumnView {
        guard let value = sqlite3_column_value(statement, Int32(index)) else { return .other }
        switch sqlite3_value_type(value) {
        case SQLITE_NULL: return .null
        case SQLITE_INTEGER: return .integer(sqlite3_value_int64(value))
        case SQLITE_TEXT:
            let text = sqlite3_value_text(value)
            return .text(UnsafeBufferPointer(start: text, count: text == nil ? 0 : Int(sqlite3_value_bytes(value))))
        default: return .other
        }
    }

    /// The sum of the current row's `value(index).byteCount`, without making the values.
    var rowByteCount: Int {
        (0..<columnCount).reduce(0) { $0 + valueByteCount($1) }
    }

    /// `value(index).byteCount`, without making the value.
    func valueByteCount(_ index: Int) -> Int {
        switch view(index) {
        case .null: 1
        // The value's String repairs invalid UTF-8, which can change its length.
        case .text(let bytes): bytes.contains { $0 >= 0x80 } ? String(decoding: bytes, as: UTF8.self).utf8.count : bytes.count
        case .integer: 8
        case .other: value(index).byteCount
        }
    }

    func value(_ index: Int) -> SQLiteValue {
        let column = Int32(index)
        switch sqlite3_column_type(statement, column) {
        case SQLITE_INTEGER: return .integer(sqlite3_column_int64(statement, column))
        case SQLITE_FLOAT: return .real(sqlite3_column_double(statement, column))
        case SQLITE_TEXT:
            let count = Int(sqlite3_column_bytes(statement, column))
            guard let text = sqlite3_column_text(statement, column) else { return .text("") }
            return .text(String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self))
        case SQLITE_BLOB:
            let count = Int(sqlite3_column_bytes(statement, column))
            guard count > 0, let bytes = sqlite3_column_blob(statement, column) else { return .blob([]) }
            return .blob(Array(UnsafeRawBufferPointer(start: bytes, count: count)))
        default: return .null
        }
    }
}
