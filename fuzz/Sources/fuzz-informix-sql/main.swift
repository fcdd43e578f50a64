import FuzzSupport

// The Informix emulator's SQL front end on arbitrary statement text (the sql_stmt a client
// posts): tokenizing, splitting statements, the dialect translation to SQLite for queries, and
// the DDL parser for the rest, as InformixDatabase plans a statement.
@testable import Informix

private let dialects = ["Y4MD-", "MDY4/", "DMY2.", "Y2DM0"].compactMap(DBDateFormat.init).map {
    InformixDialect(dateFormat: $0, owners: ["informix", "fuzz"])
}

/// libFuzzer's main, linked in with its runtime, wants this symbol even though it is not used.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = FuzzInput(data, size)
    guard let selector = input.bytes.first else { return 0 }
    let sql = String(decoding: input.bytes.dropFirst(), as: UTF8.self)
    let dialect = dialects[Int(selector) % dialects.count]
    guard let tokens = try? SQLTokenizer.tokenize(sql) else { return 0 }
    _ = tokens.sqliteText()
    for statement in tokens.splitStatements() where !statement.isEmpty {
        switch statement[0].lowered {
        case "select", "insert", "update", "delete", "with":
            if let translated = try? dialect.translate(statement) { _ = translated.sqliteText() }
        default:
            _ = try? InformixDDL.parse(statement, dialect: dialect, owner: "fuzz")
        }
    }
    _ = InformixDialect.globPattern(sql, escape: "\\")
    _ = dialect.dateFormat.isoDate(from: sql)
    return 0
}

// Last: the driver never returns, and what it calls may read the globals above, set by then.
runFuzzer(fuzzOne)
