/// An error as the Informix server and its ODBC driver report it: the native (negative) code,
/// the SQLSTATE and the message text.
struct InformixError: Error, Equatable, Sendable {
    var code: Int
    var sqlState: String
    var message: String
    /// Raised by the ODBC driver itself rather than the server (no `[Informix]` third tag).
    var fromDriver = false

    /// The text of the first diagnostic record, as the ODBC driver builds it.
    var odbcText: String {
        fromDriver ? "[Informix][Informix ODBC Driver]\(message)" : "[Informix][Informix ODBC Driver][Informix]\(message)"
    }

    static func syntax() -> InformixError {
        InformixError(code: -201, sqlState: "42000", message: "A syntax error has occurred.")
    }

    static func unmatchedQuote() -> InformixError {
        InformixError(code: -282, sqlState: "42000", message: "Found a quote for which there is no matching quote.")
    }

    static func unknownTable(_ name: String) -> InformixError {
        InformixError(code: -206, sqlState: "42S02", message: "The specified table (\(name)) is not in the database.")
    }

    static func unknownColumn(_ name: String) -> InformixError {
        InformixError(
            code: -217, sqlState: "42S22",
            message: "Column (\(name)) not found in any table in the query (or SLV is undefined).")
    }

    static func valueCountMismatch() -> InformixError {
        // SQLSTATE as ODBC's "insert value list does not match column list" (unverified for Informix).
        InformixError(code: -236, sqlState: "21S01", message: "Number of columns in INSERT does not match number of VALUES.")
    }

    static func uniqueConstraint(_ name: String) -> InformixError {
        InformixError(code: -268, sqlState: "23000", message: "Unique constraint (\(name)) violated.")
    }

    static func uniqueIndex() -> InformixError {
        InformixError(code: -239, sqlState: "23000", message: "Could not insert new row - duplicate value in a UNIQUE INDEX column.")
    }

    static func nullInto(_ column: String) -> InformixError {
        InformixError(code: -391, sqlState: "23000", message: "Cannot insert a null into column (\(column)).")
    }

    static func checkConstraint(_ name: String) -> InformixError {
        InformixError(code: -530, sqlState: "23000", message: "Check constraint (\(name)) failed.")
    }

    static func missingParentKey(_ name: String) -> InformixError {
        InformixError(code: -691, sqlState: "23000", message: "Missing key in referenced table for referential constraint (\(name)).")
    }

    static func keyStillReferenced(_ name: String) -> InformixError {
        InformixError(code: -692, sqlState: "23000", message: "Key value for constraint (\(name)) is still being referenced.")
    }

    static func characterToNumeric() -> InformixError {
        InformixError(code: -1213, sqlState: "22018", message: "A character to numeric conversion process failed")
    }

    static func badCast() -> InformixError {
        InformixError(code: -11106, sqlState: "22018", message: "Invalid character value for cast specification.", fromDriver: true)
    }

    static func dateConversion() -> InformixError {
        InformixError(code: -1218, sqlState: "22007", message: "String to date conversion error")
    }

    static func valueTooLarge(for kind: InformixType.Kind) -> InformixError {
        switch kind {
        case .smallint: InformixError(code: -1214, sqlState: "22003", message: "Value too large to fit in a SMALLINT.")
        case .integer, .serial: InformixError(code: -1215, sqlState: "22003", message: "Value too large to fit in an INTEGER.")
        default: InformixError(code: -1226, sqlState: "22003", message: "Decimal or money value exceeds maximum precision.")
        }
    }

    static func unknownRoutine(_ name: String) -> InformixError {
        InformixError(code: -674, sqlState: "IX000", message: "Routine (\(name)) can not be resolved.")
    }

    static func alreadyExists(_ name: String) -> InformixError {
        InformixError(code: -310, sqlState: "42S01", message: "Table (\(name)) already exists in database.")
    }

    static func indexExists(_ name: String) -> InformixError {
        InformixError(code: -316, sqlState: "42S11", message: "Index (\(name)) already exists in database.")
    }

    static func unknownIndex(_ name: String) -> InformixError {
        InformixError(code: -319, sqlState: "42S12", message: "Index (\(name)) not found.")
    }

    static func unknownType(_ name: String) -> InformixError {
        InformixError(code: -9628, sqlState: "IX000", message: "Type (\(name)) not found.")
    }

    static func catalogChange(_ table: String) -> InformixError {
        InformixError(code: -273, sqlState: "42000", message: "No UPDATE permission for (\(table)).")
    }

    /// A client named something with the prefix of the emulator's own objects.
    static func reservedName(_ name: String) -> InformixError {
        InformixError(code: -201, sqlState: "42000", message: "A syntax error has occurred: the name (\(name)) is reserved by the emulator.")
    }

    /// The database reached its size cap (`limits.databaseBytes`): Informix's "no more extents".
    static func databaseFull() -> InformixError {
        InformixError(code: -271, sqlState: "IX000", message: "Could not insert new row into the table. ISAM error: no more extents.")
    }

    static func interrupted() -> InformixError {
        InformixError(code: -213, sqlState: "HY008", message: "Statement interrupted by user.")
    }

    static func statementTooLong() -> InformixError {
        InformixError(code: -460, sqlState: "42000", message: "Statement length exceeds maximum.")
    }

    static func notInTransaction() -> InformixError {
        InformixError(code: -255, sqlState: "25000", message: "Not in transaction.")
    }

    static func alreadyInTransaction() -> InformixError {
        InformixError(code: -535, sqlState: "25000", message: "Already in transaction.")
    }

    static func viewNotUpdatable(_ name: String) -> InformixError {
        // Informix can update simple views; the emulator cannot (documented).
        InformixError(code: -1239, sqlState: "IX000", message: "Cannot update view (\(name)): not emulated.")
    }
}

/// Which ODBC call failed, as PDO_INFORMIX 1.2.6 names it in its error supplement, with the
/// driver's source file and line (`__FILE__`/`__LINE__` of the raising call).
enum ODBCCall: Sendable {
    /// `PDO::exec()`: SQLExecDirect.
    case execDirect
    /// `PDO::query()` / `prepare()`: SQLPrepare (Informix checks tables and columns here).
    case prepare
    /// `PDOStatement::execute()` (constraint and conversion errors of a prepared statement).
    case execute

    var name: String {
        switch self {
        case .execDirect: "SQLExecDirect"
        case .prepare: "SQLPrepare"
        case .execute: "SQLExecute"
        }
    }

    /// Where a PECL build compiles the driver (unverified: the path depends on the build).
    var location: String {
        switch self {
        case .execDirect: "/tmp/pear/temp/PDO_INFORMIX/informix_driver.c:268"
        case .prepare: "/tmp/pear/temp/PDO_INFORMIX/informix_driver.c:131"
        case .execute: "/tmp/pear/temp/PDO_INFORMIX/informix_statement.c:755"
        }
    }
}

/// What a PDOException says: `SQLSTATE[<state>]: <PDO's description>: <native> <supplement>`.
struct PDOError: Error, Sendable {
    var error: InformixError
    var call: ODBCCall

    var message: String {
        let supplement = "\(error.odbcText) (\(call.name)[\(error.code)] at \(call.location))"
        return "SQLSTATE[\(error.sqlState)]: \(Self.describe(error.sqlState)): \(error.code) \(supplement)"
    }

    /// PDO's own table of SQLSTATE descriptions (ext/pdo/pdo_sqlstate.c), the states used here.
    static func describe(_ state: String) -> String {
        switch state {
        case "42000": "Syntax error or access violation"
        case "42S01": "Base table or view already exists"
        case "42S02": "Base table or view not found"
        case "42S11": "Index already exists"
        case "42S12": "Index not found"
        case "42S22": "Column not found"
        case "23000": "Integrity constraint violation"
        case "22018": "Invalid character value for cast specification"
        case "22003": "Numeric value out of range"
        case "22007": "Invalid datetime format"
        case "21S01": "Insert value list does not match column list"
        case "25000": "Invalid transaction state"
        case "HY008": "Operation canceled"
        case "HY000": "General error"
        default: "<<Unknown error>>"
        }
    }
}
