import Foundation
import HTTPServer
import MockCore
import Testing
import UnderstudyTesting

@testable import Informix

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if canImport(FoundationXML)
import FoundationXML
#endif

/// The three PHP services behind the router in memory, their answers read as URLSession and
/// XMLParser read them (the demo app's test, ClientDesignTests, keeps them on a socket).
@Suite struct ServiceTests {
    /// The shipped stubs/informix, or a copy with `config` as its config.json.
    static func directory(config: String?) throws -> URL {
        guard let config else { return InformixFixture.directory }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("informix-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(
            at: directory.appendingPathComponent("stores_demo.sql"),
            withDestinationURL: InformixFixture.directory.appendingPathComponent("stores_demo.sql"))
        try Data(config.utf8).write(to: directory.appendingPathComponent("config.json"))
        return directory
    }

    /// The backend on the shipped stubs/informix, or on a copy with `config` as its config.json.
    static func server(config: String? = nil, dataDirectory: URL? = nil, journal: RequestJournal = RequestJournal()) throws -> (BackendTester, URL) {
        let directory = try directory(config: config)
        let backend = InformixBackend(directory: directory, dataDirectory: dataDirectory)
        return (try BackendTester(backends: [backend], journal: journal), directory)
    }

    /// The backend alone.
    static func tester(config: String? = nil, journal: RequestJournal = RequestJournal()) throws -> BackendTester {
        try BackendTester(backends: [InformixBackend(directory: try directory(config: config))], journal: journal)
    }

    /// The form body the apps post.
    static func form(_ fields: [(String, String)]) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return fields.map { "\($0.0)=\($0.1.addingPercentEncoding(withAllowedCharacters: allowed) ?? "")" }.joined(separator: "&")
    }

    /// A form posted as the apps post it, the answer as URLSession reads it.
    static func submit(_ server: BackendTester, _ path: String, _ fields: [(String, String)]) async throws -> (String, HTTPURLResponse) {
        let (data, response) = try await server.send(
            "POST", path, headers: ["Content-Type": "application/x-www-form-urlencoded"],
            body: Data(form(fields).utf8))
        return (String(decoding: data, as: UTF8.self), response)
    }

    /// A form posted, the answer as the backend gave it.
    static func post(_ tester: BackendTester, _ path: String, _ fields: [(String, String)]) async -> (String, Response) {
        let response = await tester.send(
            path, method: .post, headers: [("Content-Type", "application/x-www-form-urlencoded")], body: form(fields))
        return (String(decoding: response.body.bytes, as: UTF8.self), response)
    }

    @Test func genericServiceAnswersTheWholeTableAfterTheStatement() async throws {
        let (server, _) = try Self.server()
        let (body, response) = try await Self.submit(
            server, "/informix/generic.php",
            [
                ("sql_stmt", "INSERT INTO customer (fname, lname, company) VALUES ('Ida', 'Moss', 'Moss & Sons')"), ("tableName", "customer"),
            ])
        #expect(response.statusCode == 200)
        #expect(response.value(forHTTPHeaderField: "Content-Type") == "text/xml")
        #expect(response.value(forHTTPHeaderField: "X-Powered-By") == "PHP/5.3.29")
        #expect(
            body.hasPrefix(
                "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<root><customer><ThereWasAnError>no</ThereWasAnError><CUSTOMER_NUM>101</CUSTOMER_NUM>"))
        #expect(body.hasSuffix("</customer></root>\n"))
        let rows = try RowReader.rows(Data(body.utf8), row: "customer")
        #expect(rows.count == 29)
        #expect(rows.last?["CUSTOMER_NUM"] == "129")
        #expect(rows.last?["COMPANY"] == "Moss & Sons         ")
        #expect(rows.last?["ADDRESS1"] == "")
        #expect(
            rows.first?.keys.sorted() == [
                "ADDRESS1", "ADDRESS2", "CITY", "COMPANY", "CUSTOMER_NUM", "FNAME", "LNAME", "PHONE",
                "STATE", "ThereWasAnError", "ZIPCODE",
            ])
    }

    @Test func genericServiceReportsErrorsAsItsErrorDocument() async throws {
        let (server, _) = try Self.server()
        let (body, response) = try await Self.submit(
            server, "/informix/generic.php",
            [
                ("sql_stmt", "INSERT INTO customer (customer_num, fname) VALUES (101, 'Dup')"), ("tableName", "customer"),
            ])
        // The script sets no content type on this path: PHP's default.
        #expect(response.statusCode == 200)
        #expect(response.value(forHTTPHeaderField: "Content-Type") == "text/html")
        #expect(
            body == "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<root><customer><ThereWasAnError>yes</ThereWasAnError><ErrorMessage>"
                + "Error: SQLSTATE[23000]: Integrity constraint violation: -268 [Informix][Informix ODBC Driver][Informix]Unique constraint "
                + "(informix.u100_1) violated. </ErrorMessage></customer></root>\n")
    }

    @Test func anUncaughtExceptionIsAFatalError() async throws {
        // Production php.ini: HTTP 500 and nothing shown.
        let (server, _) = try Self.server()
        let (body, response) = try await Self.submit(
            server, "/informix/generic.php", [("sql_stmt", "SELECT * FROM customer"), ("tableName", "nothere")])
        #expect(response.statusCode == 500)
        #expect(body.isEmpty)

        // Development php.ini: the fatal error in the page, HTTP 200.
        let (shown, _) = try Self.server(config: #"{ "displayErrors": true }"#)
        let (page, pageResponse) = try await Self.submit(
            shown, "/informix/generic.php", [("sql_stmt", "SELECT * FROM customer"), ("tableName", "nothere")])
        #expect(pageResponse.statusCode == 200)
        #expect(
            page == "<br />\n<b>Fatal error</b>:  Uncaught exception 'PDOException' with message 'SQLSTATE[42S02]: Base table or view not found: "
                + "-206 [Informix][Informix ODBC Driver][Informix]The specified table (nothere) is not in the database. "
                + "(SQLPrepare[-206] at /tmp/pear/temp/PDO_INFORMIX/informix_driver.c:131)' in /var/www/html/informix/generic.php:47\n"
                + "Stack trace:\n#0 /var/www/html/informix/generic.php(47): PDO-&gt;query('SELECT * FROM n...')\n#1 {main}\n  thrown "
                + "in <b>/var/www/html/informix/generic.php</b> on line <b>47</b><br />\n")
    }

    @Test func queryServiceAnswersCatalogQueries() async throws {
        let (server, _) = try Self.server()
        // No tableName: the rows are called "tablename".
        let (body, response) = try await Self.submit(
            server, "/informix/generic2.php",
            [
                ("sql_stmt", "SELECT tabname FROM systables WHERE tabid >= 100 AND tabtype = 'T' ORDER BY tabname")
            ])
        #expect(response.statusCode == 200)
        #expect(body.hasPrefix("<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<root><tablename><TABNAME>call_type</TABNAME></tablename>"))
        #expect(try RowReader.rows(Data(body.utf8), row: "tablename").count == 10)
    }

    @Test func queryServiceRunsAWriteTwice() async throws {
        let (server, _) = try Self.server()
        // exec() then query() of the same statement: two rows, and no rows to answer.
        let (body, _) = try await Self.submit(
            server, "/informix/generic2.php", [("sql_stmt", "INSERT INTO state VALUES ('XA', 'Xanadu')"), ("tableName", "state")])
        #expect(body.isEmpty)
        // The unique key makes the second run fail: PDO is silent, query() returns false, fetchAll() is fatal.
        let (count, _) = try await Self.submit(server, "/informix/generic2.php", [("sql_stmt", "SELECT count(*) AS n FROM state WHERE code = 'XA'")])
        #expect(count.contains("<N>1</N>"))
        let (second, response) = try await Self.submit(
            server, "/informix/generic2.php", [("sql_stmt", "INSERT INTO call_type (code_descr, call_code) VALUES ('new', 'N')")])
        #expect(response.statusCode == 500)
        #expect(second.isEmpty)
        let (calls, _) = try await Self.submit(
            server, "/informix/generic2.php", [("sql_stmt", "SELECT count(*) AS n FROM call_type WHERE call_code = 'N'")])
        #expect(calls.contains("<N>1</N>"))
        // Without a key, both runs insert.
        _ = try await Self.submit(server, "/informix/generic2.php", [("sql_stmt", "INSERT INTO log_record (item_num) VALUES (77)")])
        let (logged, _) = try await Self.submit(
            server, "/informix/generic2.php", [("sql_stmt", "SELECT count(*) AS n FROM log_record WHERE item_num = 77")])
        #expect(logged.contains("<N>2</N>"))
    }

    @Test func customerServiceAnswersCustRows() async throws {
        let (server, _) = try Self.server()
        let (data, response) = try await server.send("GET", "/custdemoapp/service.php")
        let body = String(decoding: data, as: UTF8.self)
        #expect(response.statusCode == 200)
        #expect(body.hasPrefix("<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<cust><customer><CUSTOMER_NUM>101</CUSTOMER_NUM>"))
        let rows = try RowReader.rows(data, row: "customer")
        #expect(rows.count == 28)
        #expect(rows[0]["ADDRESS1"] == "1207 Larkspur Lane  ")
        #expect(rows[0]["PHONE"] == "408-555-0100      ")
    }

    @Test func repeatedReadsAreAnsweredFromTheCacheUntilTheDataChanges() async throws {
        let (server, _) = try Self.server()
        let first = try await server.send("GET", "/custdemoapp/service.php").body
        #expect(try await server.send("GET", "/custdemoapp/service.php").body == first)
        _ = try await Self.submit(
            server, "/informix/generic.php",
            [
                ("sql_stmt", "UPDATE customer SET fname = 'Martina' WHERE customer_num = 101"),
                ("tableName", "customer"),
            ])
        let changed = String(decoding: try await server.send("GET", "/custdemoapp/service.php").body, as: UTF8.self)
        #expect(changed.contains("<FNAME>Martina        </FNAME>"))
        // A transaction left open is rolled back at the end of the request: the data is as before.
        _ = try await Self.submit(server, "/informix/generic2.php", [("sql_stmt", "BEGIN WORK; UPDATE customer SET fname = 'Nobody'")])
        let after = String(decoding: try await server.send("GET", "/custdemoapp/service.php").body, as: UTF8.self)
        #expect(after.contains("<FNAME>Martina        </FNAME>") && !after.contains("Nobody"))
        #expect(PHPScripts.isRepeatable(["sql_stmt": "SELECT * FROM customer"]))
        #expect(!PHPScripts.isRepeatable(["sql_stmt": "SELECT TODAY FROM systables"]))
        #expect(!PHPScripts.isRepeatable(["sql_stmt": "SELECT DBINFO('sqlca.sqlerrd1') FROM systables"]))
    }

    @Test func php8AndNaturalCaseAndDates() async throws {
        let (server, _) = try Self.server(config: #"{ "php": "8", "columnCase": "natural", "dateOutput": "MDY4/", "rootElement": "rows" }"#)
        let (body, response) = try await Self.submit(
            server, "/informix/generic.php",
            [
                ("sql_stmt", "UPDATE customer SET company = 'O''Neil' WHERE customer_num = 101"), ("tableName", "customer"),
            ])
        #expect(response.value(forHTTPHeaderField: "Content-Type") == "text/xml;charset=UTF-8")
        #expect(response.value(forHTTPHeaderField: "X-Powered-By") == "PHP/8.1.2")
        #expect(body.contains("<rows><customer><ThereWasAnError>no</ThereWasAnError><customer_num>101</customer_num>"))
        #expect(body.contains("<company>O'Neil              </company>"))
        #expect(body.contains("<address2/>"))
        let (dates, _) = try await Self.submit(
            server, "/informix/generic2.php", [("sql_stmt", "SELECT order_date FROM orders WHERE order_num = 1001")])
        #expect(dates.contains("<order_date>05/07/2011</order_date>"))
        // PDO throws from PHP 8 on: the failing exec() of generic2.php is fatal at once.
        let (failed, failedResponse) = try await Self.submit(server, "/informix/generic2.php", [("sql_stmt", "SELEC 1")])
        #expect(failedResponse.statusCode == 500)
        #expect(failed.isEmpty)
    }

    @Test func magicQuotesBreakQuotedSQL() async throws {
        let (server, _) = try Self.server(config: #"{ "magicQuotesGpc": true }"#)
        let (body, _) = try await Self.submit(
            server, "/informix/generic.php",
            [
                ("sql_stmt", "SELECT * FROM customer WHERE lname = 'Okafor'"), ("tableName", "customer"),
            ])
        #expect(body.contains("<ThereWasAnError>yes</ThereWasAnError><ErrorMessage>Error: SQLSTATE[42000]"))
    }

    @Test func resetRestoresTheFixtureAndConcurrentWritesAreSafe() async throws {
        let (server, _) = try Self.server()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<16 {
                group.addTask {
                    _ = try await Self.submit(server, "/informix/generic2.php", [("sql_stmt", "INSERT INTO log_record (item_num) VALUES (\(index))")])
                }
            }
            try await group.waitForAll()
        }
        let (count, _) = try await Self.submit(server, "/informix/generic2.php", [("sql_stmt", "SELECT count(*) AS n FROM log_record")])
        #expect(count.contains("<N>32</N>"))
        let (_, reset) = try await server.send("POST", "/__admin/reset")
        #expect(reset.statusCode == 200)
        let (after, _) = try await Self.submit(server, "/informix/generic2.php", [("sql_stmt", "SELECT count(*) AS n FROM log_record")])
        #expect(after.contains("<N>0</N>"))
    }

    @Test func aDataDirectoryKeepsWritesBetweenRuns() async throws {
        let dataDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("informix-data-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: dataDirectory) }
        let (first, _) = try Self.server(dataDirectory: dataDirectory)
        _ = try await Self.submit(first, "/informix/generic.php", [("sql_stmt", "DELETE FROM cust_calls"), ("tableName", "cust_calls")])
        let (second, _) = try Self.server(dataDirectory: dataDirectory)
        let (kept, _) = try await Self.submit(second, "/informix/generic2.php", [("sql_stmt", "SELECT count(*) AS n FROM cust_calls")])
        #expect(kept.contains("<N>0</N>"))
        _ = try await second.send("POST", "/__admin/reset")
        let (restored, _) = try await Self.submit(second, "/informix/generic2.php", [("sql_stmt", "SELECT count(*) AS n FROM cust_calls")])
        #expect(restored.contains("<N>7</N>"))
    }
}

/// Reads `<row>` elements of a document into dictionaries of child element → text, as the
/// seed's apps do with their parsers.
final class RowReader: NSObject, XMLParserDelegate {
    private let row: String
    private var rows: [[String: String]] = []
    private var current: [String: String]?
    private var text = ""

    private init(row: String) { self.row = row }

    static func rows(_ data: Data, row: String) throws -> [[String: String]] {
        let reader = RowReader(row: row)
        let parser = XMLParser(data: data)
        parser.delegate = reader
        guard parser.parse() else { throw parser.parserError ?? RowReaderError.invalid }
        return reader.rows
    }

    enum RowReaderError: Error { case invalid }

    func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?, attributes: [String: String] = [:])
    {
        if name == row { current = [:] }
        text = ""
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) { text += string }

    func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
        if name == row, let current {
            rows.append(current)
            self.current = nil
        } else if current != nil {
            current?[name] = text
        }
        text = ""
    }
}
