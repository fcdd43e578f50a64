/// What a script sent: status, content type and body.
struct PHPPage: Sendable {
    var status = 200
    var contentType: String
    var body: [UInt8]
    /// A fatal error's text for the server's log (PHP's error_log), when there was one.
    var loggedError: String?
}

/// The seed's three PHP web services, run as PHP would run them on the emulated database. Line
/// numbers in messages are those of the scripts as the seed prints them.
struct PHPScripts {
    enum Service: String, Sendable, CaseIterable {
        /// generic.php: runs `sql_stmt`, then answers `SELECT * FROM tableName`; errors as XML.
        case generic
        /// generic2.php: runs `sql_stmt`, then runs it again as a query and answers its rows.
        case query
        /// custdemoapp/service.php: `SELECT * FROM customer` as `<cust><customer>…`.
        case customers
    }

    /// How PDO names result columns (PDO::ATTR_CASE): PDO_INFORMIX asks for upper case.
    enum ColumnCase: String, Sendable {
        case upper, natural, lower
    }

    let runtime: PHPRuntime
    let columnCase: ColumnCase
    let dateOutput: DBDateFormat
    /// The root element the generic scripts load (the seed's listing lost it; unverified).
    let rootElement: String

    /// Whether the same request on the same data always gets the same answer: no clock, no
    /// session values, no randomness in the statement (a conservative test of its words).
    static func isRepeatable(_ post: [String: String]) -> Bool {
        var sql = (post["sql_stmt"] ?? "").lowercased()
        // Bytes, not Foundation's Unicode-aware search (several thousand instructions a word):
        // the words are ASCII, so a byte match finds at least what the other would.
        return sql.withUTF8 { text in !unrepeatableWords.contains { text.contains(run: $0) } }
    }

    private static let unrepeatableWords = ["today", "current", "user", "dbinfo", "random", "now", "changes", "last_insert", "sqlite_"]
        .map { Array($0.utf8) }

    /// Runs `service` (reached at `path`) with the POST fields `post`.
    func run(_ service: Service, path: String, post: [String: String], database: InformixDatabase) -> PHPPage {
        var run = ScriptRun(runtime: runtime, file: path)
        database.beginSession()
        defer { database.endSession() }
        switch service {
        case .generic: return generic(&run, post, database)
        case .query: return query(&run, post, database)
        case .customers: return customers(&run, database)
        }
    }

    private func generic(_ run: inout ScriptRun, _ post: [String: String], _ database: InformixDatabase) -> PHPPage {
        let sql = run.field(post, "sql_stmt", line: 3)
        let table = run.field(post, "tableName", line: 4)
        do {
            _ = try execute(sql ?? "", .execDirect, database)
        } catch {
            // The catch block: echo of a misspelled variable, then the error document.
            run.notice(
                runtime.version == .php8 ? "Undefined variable $thereWasAnError" : "Undefined variable: thereWasAnError",
                line: 29, warningOnPHP8: true)
            guard let table, !table.isEmpty else { return run.fatal(runtime.nonObjectCall("addChild"), line: 38) }
            var xml = SimpleXMLWriter(runtime: runtime, root: rootElement)
            let row = SimpleXMLWriter.Element(table)
            xml.openRow(row)
            xml.addChild(Self.errorFlag, raw: Array("yes".utf8))
            xml.addChild(SimpleXMLWriter.Element("ErrorMessage"), raw: Array(Self.shortened("Error: " + error.message).utf8))
            xml.closeRow(row)
            return run.page(contentType: runtime.defaultContentType, xml.finish())
        }
        let select = "SELECT * FROM \(table ?? "")"
        let rows = FetchedRowsWriter(self, run: run, root: rootElement, row: table ?? "", marker: true, entitiesLine: 65)
        do {
            _ = try execute(select, .prepare, database, eachRow: rows.add)
        } catch {
            // Outside the try block: the exception is uncaught.
            return run.fatal(runtime.uncaughtException(error.message, file: run.file, line: 47, call: "PDO->query", argument: select), line: 47)
        }
        return rows.finish()
    }

    private func query(_ run: inout ScriptRun, _ post: [String: String], _ database: InformixDatabase) -> PHPPage {
        let sql = run.field(post, "sql_stmt", line: 3) ?? ""
        var table = run.field(post, "tableName", line: 4) ?? ""
        if table.isEmpty { table = "tablename" }  // `$table == NULL` is true for "" as well
        let throwing = runtime.pdoThrowsByDefault
        do {
            _ = try execute(sql, .execDirect, database)
        } catch {
            // PHP before 8: PDO is silent and the script goes on; from 8 it throws.
            if throwing {
                return run.fatal(runtime.uncaughtException(error.message, file: run.file, line: 25, call: "PDO->exec", argument: sql), line: 25)
            }
        }
        // The statement runs a second time, as the query whose rows are answered: a write runs twice.
        let rows = FetchedRowsWriter(self, run: run, root: rootElement, row: table, marker: false, entitiesLine: 44)
        do {
            _ = try execute(sql, .prepare, database, eachRow: rows.add)
        } catch {
            if throwing {
                return run.fatal(runtime.uncaughtException(error.message, file: run.file, line: 27, call: "PDO->query", argument: sql), line: 27)
            }
            return run.fatal(runtime.nonObjectCall("fetchAll"), line: 29)
        }
        return rows.finish()
    }

    private func customers(_ run: inout ScriptRun, _ database: InformixDatabase) -> PHPPage {
        let select = "SELECT * FROM customer"
        let rows = FetchedRowsWriter(self, run: run, root: "cust", row: "customer", marker: false, entitiesLine: 37)
        do {
            _ = try execute(select, .prepare, database, eachRow: rows.add)
            return rows.finish()
        } catch {
            if runtime.pdoThrowsByDefault {
                return run.fatal(runtime.uncaughtException(error.message, file: run.file, line: 20, call: "PDO->query", argument: select), line: 20)
            }
            return run.fatal(runtime.nonObjectCall("fetchAll"), line: 22)
        }
    }

    static let errorFlag = SimpleXMLWriter.Element("ThereWasAnError")

    private func execute(
        _ sql: String, _ call: ODBCCall, _ database: InformixDatabase,
        eachRow: RowVisitor? = nil
    ) throws(PDOException) -> StatementResult {
        // PDO refuses an empty statement itself, before the driver sees it.
        guard !sql.isEmpty else { throw PDOException(message: "SQLSTATE[HY000]: General error: trying to execute an empty query") }
        do {
            return try database.execute(sql, call: call, eachRow: eachRow)
        } catch {
            throw PDOException(message: error.message)
        }
    }

    /// The script's clean-up of the message: reversed, the first `)…(` removed, reversed back —
    /// which drops the last parenthesised part, the driver's "(SQLExecDirect[-201] at …)".
    static func shortened(_ message: String) -> String {
        var reversed = Array(message.utf8.reversed())
        var start = 0
        // `\)[^\)]+\(`, leftmost match: from a ")", the longest run without ")" that ends in "(".
        while let close = reversed[start...].firstIndex(of: UInt8(ascii: ")")) {
            let next = reversed[(close + 1)...].firstIndex(of: UInt8(ascii: ")")) ?? reversed.count
            if let open = reversed[(close + 1)..<next].lastIndex(of: UInt8(ascii: "(")), open > close + 1 {
                reversed.removeSubrange(close...open)
                break
            }
            start = close + 1
        }
        return String(decoding: reversed.reversed(), as: UTF8.self)
    }
}

/// A PDOException's message.
struct PDOException: Error {
    var message: String
}

/// The output of one script run: what it printed (notices and warnings when shown) and its end.
struct ScriptRun {
    let runtime: PHPRuntime
    /// The script's path below the document root, e.g. `/informix/generic.php`.
    let file: String
    private var output: [UInt8] = []
    private var resources = 3

    init(runtime: PHPRuntime, file: String) {
        self.runtime = runtime
        self.file = file
    }

    /// `$_POST[name]`: a missing field is a notice (a warning in PHP 8) and NULL.
    mutating func field(_ post: [String: String], _ name: String, line: Int) -> String? {
        if let value = post[name] { return value }
        notice(runtime.version == .php8 ? "Undefined array key \"\(name)\"" : "Undefined index: \(name)", line: line, warningOnPHP8: true)
        return nil
    }

    /// A notice, warning or deprecation: printed where it happens when errors are displayed.
    mutating func notice(_ text: String, line: Int, kind: String = "Notice", warningOnPHP8: Bool = false) {
        guard runtime.displayErrors else { return }
        let shownKind = warningOnPHP8 && runtime.version == .php8 ? "Warning" : kind
        output += Array(runtime.message(shownKind, text, file: file, line: line).utf8)
    }

    mutating func nextResource() -> Int {
        resources += 1
        return resources
    }

    /// A fatal error ends the script: shown with HTTP 200, or HTTP 500 and only logged.
    func fatal(_ text: String, line: Int) -> PHPPage {
        let logged = "PHP Fatal error:  \(text) in \(runtime.documentRoot)\(file) on line \(line)"
        if runtime.displayErrors {
            let shown = runtime.message("Fatal error", PHPRuntime.escapeForDisplay(text), file: file, line: line)
            return PHPPage(status: 200, contentType: runtime.defaultContentType, body: output + Array(shown.utf8), loggedError: logged)
        }
        return PHPPage(status: 500, contentType: runtime.defaultContentType, body: output, loggedError: logged)
    }

    func page(contentType: String, _ body: [UInt8]) -> PHPPage {
        PHPPage(contentType: contentType, body: output.isEmpty ? body : output + body)
    }
}

extension UnsafeBufferPointer<UInt8> {
    /// Whether `run` occurs in these bytes.
    func contains(run: [UInt8]) -> Bool {
        guard let first = run.first, run.count <= count else { return run.isEmpty }
        var start = 0
        while start <= count - run.count {
            if self[start] == first && self[start..<(start + run.count)].elementsEqual(run) { return true }
            start += 1
        }
        return false
    }
}
