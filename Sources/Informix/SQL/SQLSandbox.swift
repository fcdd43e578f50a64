import CSQLite
import WireFormat

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What the functions, the authorizer and the progress handler of one connection share. Used
/// only from the thread that runs the connection.
final class ConnectionState {
    /// Informix's USER.
    var user: String
    /// DBINFO('dbname').
    var databaseName: String
    /// When set, TODAY and CURRENT answer this instant (seconds since 1970, UTC) instead of now.
    var fixedNow: Double?
    /// DBINFO('sqlca.sqlerrd1'): the last SERIAL value this session inserted.
    var lastSerial: Int64 = 0
    /// DBINFO('sqlca.sqlerrd2'): rows the last statement changed.
    var lastChanges: Int64 = 0
    /// The emulator's own statements (schema, catalog) may do what clients may not. Set only
    /// while the emulator runs its own SQL: nothing a client sends can set it.
    var isInternal = false
    /// The names of the SQLite triggers the emulator made (SERIAL numbering, string lengths):
    /// the only triggers whose actions it trusts. Follows the table definitions.
    var emulatorTriggers: Set<String> = []
    /// Why the authorizer refused the last statement, reported instead of SQLite's message.
    var refusal: InformixError?
    /// Monotonic nanoseconds after which the running statement is interrupted; 0: no bound.
    var deadline: UInt64 = 0

    init(user: String, databaseName: String, fixedNow: Double?) {
        self.user = user
        self.databaseName = databaseName
        self.fixedNow = fixedNow
    }

    /// Now as UTC calendar fields (year, month, day, hour, minute, second, microsecond).
    func now() -> (Int, Int, Int, Int, Int, Int, Int) {
        var seconds: Double
        if let fixedNow {
            seconds = fixedNow
        } else {
            var spec = timespec()
            clock_gettime(CLOCK_REALTIME, &spec)
            seconds = Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
        }
        var time = time_t(seconds.rounded(.down))
        var fields = tm()
        gmtime_r(&time, &fields)
        let micros = Int((seconds - seconds.rounded(.down)) * 1_000_000)
        return (
            Int(fields.tm_year) + 1900, Int(fields.tm_mon) + 1, Int(fields.tm_mday), Int(fields.tm_hour),
            Int(fields.tm_min), Int(fields.tm_sec), micros
        )
    }

    static func monotonicNanos() -> UInt64 {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return UInt64(spec.tv_sec) * 1_000_000_000 + UInt64(spec.tv_nsec)
    }
}

/// Installs on a connection what makes it an Informix sandbox: the dialect's functions, an
/// authorizer that keeps clients inside the emulated database, limits, and a run-time bound.
enum SQLSandbox {
    static func install(
        on connection: SQLiteConnection, state: ConnectionState, maxValueBytes: Int32,
        maxDatabaseBytes: Int
    ) throws(SQLiteError) {
        let db = connection.handle
        let context = Unmanaged.passUnretained(state).toOpaque()
        // No ATTACH, no huge strings or blobs, no extension loading, no schema tricks.
        sqlite3_limit(db, SQLITE_LIMIT_ATTACHED, 0)
        sqlite3_limit(db, SQLITE_LIMIT_LENGTH, maxValueBytes)
        understudy_sqlite_defensive(db)
        try connection.execute("PRAGMA foreign_keys = ON; PRAGMA case_sensitive_like = ON; PRAGMA recursive_triggers = OFF")
        try limitSize(of: connection, to: maxDatabaseBytes)
        // After case_sensitive_like, which registers SQLite's own LIKE again.
        BoundedStringFunctions.install(on: db, context: context)
        sqlite3_set_authorizer(db, authorize, context)
        sqlite3_progress_handler(db, 4_000, progress, context)

        let functions: [(String, Int32, @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void)] = [
            ("understudy_today", 0, today),
            ("understudy_current", 2, current),
            ("understudy_user", 0, user),
            ("understudy_serial_assigned", 1, serialAssigned),
            ("dbinfo", -1, dbinfo),
            ("mdy", 3, mdy),
            ("day", 1, dayOf),
            ("month", 1, monthOf),
            ("year", 1, yearOf),
            ("weekday", 1, weekday),
            ("nvl", 2, nvl),
        ]
        for (name, arguments, body) in functions {
            sqlite3_create_function_v2(db, name, arguments, SQLITE_UTF8, context, body, nil, nil, nil)
        }
    }

    /// A database may grow to `bytes` and no further: a write beyond fails with SQLITE_FULL
    /// (Informix's -271) instead of taking the machine's memory or disk. Run as the emulator.
    static func limitSize(of connection: SQLiteConnection, to bytes: Int) throws(SQLiteError) {
        let pageSize: Int
        if case .integer(let size)? = try connection.rows("PRAGMA page_size").first?.first, size > 0 {
            pageSize = Int(size)
        } else {
            pageSize = 4_096
        }
        try connection.execute("PRAGMA max_page_count = \(max(1, bytes / pageSize))")
    }

    private static func state(_ context: OpaquePointer?) -> ConnectionState {
        Unmanaged<ConnectionState>.fromOpaque(sqlite3_user_data(context)!).takeUnretainedValue()
    }

    private static func resultText(_ context: OpaquePointer?, _ text: String) {
        sqlite3_result_text(context, text, -1, understudy_sqlite_transient())
    }

    private static func text(_ values: UnsafeMutablePointer<OpaquePointer?>?, _ index: Int) -> String? {
        guard let value = values?[index], sqlite3_value_type(value) != SQLITE_NULL, let bytes = sqlite3_value_text(value) else { return nil }
        return String(cString: bytes)
    }

    private static let today: @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void = { context, _, _ in
        let now = state(context).now()
        resultText(context, CivilDate(year: now.0, month: now.1, day: now.2).iso8601)
    }

    /// CURRENT first TO last: the fields from `first` to `last` of now, in Informix's layout.
    private static let current: @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void = { context, _, values in
        let now = state(context).now()
        let first = InformixType.Field(name: text(values, 0).map { $0.hasPrefix("fraction") ? "fraction" : $0 } ?? "year") ?? .year
        let lastName = text(values, 1) ?? "fraction(3)"
        let digits = Int(lastName.filter(\.isNumber)) ?? 3
        let last = InformixType.Field(name: lastName.hasPrefix("fraction") ? "fraction" : lastName, fractionDigits: digits) ?? .second
        resultText(
            context,
            DateTimeText.format(
                year: now.0, month: now.1, day: now.2, hour: now.3, minute: now.4, second: now.5,
                microsecond: now.6, first: first, last: last))
    }

    private static let user: @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void = { context, _, _ in
        resultText(context, state(context).user)
    }

    private static let serialAssigned: @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void = { context, _, values in
        state(context).lastSerial = values.map { sqlite3_value_int64($0[0]) } ?? 0
        sqlite3_result_null(context)
    }

    private static let dbinfo: @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void = { context, count, values in
        let connection = state(context)
        switch text(values, 0)?.lowercased() {
        case "sqlca.sqlerrd1"?: sqlite3_result_int64(context, connection.lastSerial)
        case "sqlca.sqlerrd2"?: sqlite3_result_int64(context, connection.lastChanges)
        case "dbname"?: resultText(context, connection.databaseName)
        case "dbhostname"?: resultText(context, "localhost")
        case "sessionid"?: sqlite3_result_int64(context, 1)
        case "utc_current"?:
            sqlite3_result_int64(context, Int64(connection.fixedNow ?? Double(time(nil))))
        case "version"?:
            let part = count > 1 ? text(values, 1)?.lowercased() : "full"
            let versions = [
                "server-type": "IBM Informix Dynamic Server", "major": "11", "minor": "70", "level": "FC4",
                "os": "U", "full": "IBM Informix Dynamic Server Version 11.70.FC4",
            ]
            resultText(context, versions[part ?? "full"] ?? versions["full"]!)
        default:
            sqlite3_result_error(context, "informix:-728", -1)
        }
    }

    private static let mdy: @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void = { context, _, values in
        guard let values else { return }
        let month = Int(sqlite3_value_int64(values[0]))
        let day = Int(sqlite3_value_int64(values[1]))
        let year = Int(sqlite3_value_int64(values[2]))
        let date = CivilDate(year: year, month: month, day: day)
        guard date.isInformixDate else {
            sqlite3_result_error(context, "informix:-1206", -1)
            return
        }
        resultText(context, date.iso8601)
    }

    /// DAY(), MONTH(), YEAR() of an ISO date: part 0, 1 or 2 of yyyy-mm-dd.
    private static func datePart(_ context: OpaquePointer?, _ values: UnsafeMutablePointer<OpaquePointer?>?, _ part: Int) {
        guard let date = text(values, 0) else { return sqlite3_result_null(context) }
        let fields = date.prefix(10).split(separator: "-")
        guard fields.count == 3, let value = Int64(fields[part]) else { return sqlite3_result_error(context, "informix:-1218", -1) }
        sqlite3_result_int64(context, value)
    }

    private static let dayOf: @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void = { context, _, values in
        SQLSandbox.datePart(context, values, 2)
    }
    private static let monthOf: @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void = { context, _, values in
        SQLSandbox.datePart(context, values, 1)
    }
    private static let yearOf: @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void = { context, _, values in
        SQLSandbox.datePart(context, values, 0)
    }

    /// WEEKDAY(): 0 for Sunday … 6 for Saturday.
    private static let weekday: @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void = { context, _, values in
        guard let date = text(values, 0) else { return sqlite3_result_null(context) }
        let fields = date.prefix(10).split(separator: "-").compactMap { Int($0) }
        guard fields.count == 3 else { return sqlite3_result_error(context, "informix:-1218", -1) }
        // Zeller-style: days since a known Sunday (1899-12-31).
        var (year, month) = (fields[0], fields[1])
        if month < 3 {
            year -= 1
            month += 12
        }
        let days = 365 * year + year / 4 - year / 100 + year / 400 + (153 * (month - 3) + 2) / 5 + fields[2]
        sqlite3_result_int64(context, Int64((days + 2) % 7))
    }

    private static let nvl: @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void = { context, _, values in
        guard let values else { return }
        sqlite3_result_value(context, sqlite3_value_type(values[0]) == SQLITE_NULL ? values[1] : values[0])
    }

    /// Clients may read and change user tables, and read the catalog. They may not attach
    /// files, run pragmas, load extensions, change the catalog, see the emulator's own tables
    /// or SQLite's schema, or run schema statements SQLite-style (the emulator runs Informix's,
    /// as internal).
    private static let authorize:
        @convention(c) (
            UnsafeMutableRawPointer?, Int32, UnsafePointer<CChar>?, UnsafePointer<CChar>?,
            UnsafePointer<CChar>?, UnsafePointer<CChar>?
        ) -> Int32 = { context, action, first, second, _, inner in
            guard let context else { return SQLITE_DENY }
            let state = Unmanaged<ConnectionState>.fromOpaque(context).takeUnretainedValue()
            // Trust rests on what a client cannot forge: the flag the emulator sets around its own
            // statements, and the names of the triggers it made. A client's trigger or view gets a
            // client's rights, even when one of the emulator's statements sets it off.
            if let inner {
                if state.emulatorTriggers.contains(String(cString: inner).lowercased()) { return SQLITE_OK }
            } else if state.isInternal {
                return SQLITE_OK
            }
            let name = first.map { String(cString: $0).lowercased() } ?? ""
            func refuse(_ error: InformixError) -> Int32 {
                state.refusal = error
                return SQLITE_DENY
            }
            switch action {
            case SQLITE_READ:
                if isHidden(name) { return refuse(.unknownTable(name)) }
                return SQLITE_OK
            case SQLITE_SELECT, SQLITE_RECURSIVE:
                return SQLITE_OK
            case SQLITE_INSERT, SQLITE_UPDATE, SQLITE_DELETE:
                if isHidden(name) { return refuse(.unknownTable(name)) }
                if InformixCatalog.catalogNames.contains(name) { return refuse(.catalogChange(name)) }
                return SQLITE_OK
            case SQLITE_FUNCTION:
                let function = second.map { String(cString: $0).lowercased() } ?? ""
                let dialect: Set<String> = ["understudy_today", "understudy_current", "understudy_user"]
                if function.hasPrefix(InformixCatalog.hiddenPrefix) && !dialect.contains(function)
                    || ["load_extension", "readfile", "writefile", "edit", "fts3_tokenizer"].contains(function)
                {
                    return refuse(.unknownRoutine(function))
                }
                return SQLITE_OK
            case SQLITE_TRANSACTION, SQLITE_SAVEPOINT, SQLITE_PRAGMA, SQLITE_ATTACH, SQLITE_DETACH, SQLITE_ANALYZE, SQLITE_REINDEX:
                return refuse(.syntax())
            default:
                // Schema changes (CREATE/DROP/ALTER of any kind) only through the Informix DDL path.
                return refuse(.syntax())
            }
        }

    /// Tables a client must not see: the emulator's own, SQLite's schema tables
    /// (sqlite_master/sqlite_schema list every table), the pragma tables and dbstat.
    private static func isHidden(_ table: String) -> Bool {
        table.hasPrefix(InformixCatalog.hiddenPrefix) || table.hasPrefix("sqlite_") || table.hasPrefix("pragma_") || table == "dbstat"
    }

    private static let progress: @convention(c) (UnsafeMutableRawPointer?) -> Int32 = { context in
        let state = Unmanaged<ConnectionState>.fromOpaque(context!).takeUnretainedValue()
        return state.deadline != 0 && ConnectionState.monotonicNanos() > state.deadline ? 1 : 0
    }
}

/// DATETIME values as Informix writes them: `yyyy-mm-dd hh:mm:ss.fff`, cut to the qualifier.
enum DateTimeText {
    static func format(
        year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int, microsecond: Int,
        first: InformixType.Field, last: InformixType.Field
    ) -> String {
        let parts: [(InformixType.Field, String, String)] = [
            (.year, "", CivilDate.pad(year, 4)), (.month, "-", CivilDate.pad(month, 2)), (.day, "-", CivilDate.pad(day, 2)),
            (.hour, " ", CivilDate.pad(hour, 2)), (.minute, ":", CivilDate.pad(minute, 2)), (.second, ":", CivilDate.pad(second, 2)),
        ]
        var text = ""
        for (field, separator, value) in parts where field >= first && field <= last {
            text += (text.isEmpty ? "" : separator) + value
        }
        if last.rawValue > 10 {
            let digits = last.rawValue - 10
            text += (text.isEmpty ? "" : ".") + String(CivilDate.pad(microsecond, 6).prefix(digits))
        }
        return text
    }
}
