import Foundation
import Informix
import MockCore
import Testing
import UnderstudyTesting

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if canImport(FoundationXML)
import FoundationXML
#endif

/// Seed 003: the Informix iPhone demo app, the way it talks — every call a form POST of
/// `sql_stmt` and `tableName` to the generic PHP services, every answer parsed as XML. It picks
/// a table from the catalog, learns its columns and unique key, lists the rows, inserts (the
/// answer is the whole table), updates, deletes, and shows the error of a failed statement.
/// The Dashcode web app of the same seed reads `custdemoapp/service.php`.
@Suite struct InformixDemoAppTests {
    static let stubs = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("stubs/informix")

    /// The elements the app reads: each `<row>` element's children, in order, by name.
    final class RowParser: NSObject, XMLParserDelegate {
        let row: String
        var rows: [[(String, String)]] = []
        private var current: [(String, String)]?
        private var text = ""

        init(row: String) { self.row = row }

        func parser(
            _ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?, attributes: [String: String] = [:]
        ) {
            if name == row { current = [] }
            text = ""
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) { text += string }

        func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
            if name == row, let current {
                rows.append(current)
                self.current = nil
            } else if current != nil {
                current?.append((name, text))
            }
        }
    }

    /// The app's web-service call: a form POST, the answer parsed for `<tableName>` rows.
    func call(_ server: TestServer, _ service: String, sql: String, table: String) async throws -> [[String: String]] {
        var request = URLRequest(url: server.url("/informix/\(service)"))
        request.httpMethod = "POST"
        request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        let body = "sql_stmt=\(sql.addingPercentEncoding(withAllowedCharacters: allowed)!)&tableName=\(table)"
        request.httpBody = Data(body.utf8)
        let (data, response) = try await server.session.data(for: request)
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        let parser = XMLParser(data: data)
        let rows = RowParser(row: table)
        parser.delegate = rows
        #expect(parser.parse(), "\(String(decoding: data, as: UTF8.self))")
        return rows.rows.map { Dictionary($0, uniquingKeysWith: { first, _ in first }) }
    }

    @Test func theDemoAppsWholeFlow() async throws {
        let server = try TestServer.start(backends: [InformixBackend(directory: Self.stubs)])
        defer { server.stop() }

        // PickTableName: the user tables from the catalog, through the second generic service.
        let tables = try await call(
            server, "generic2.php",
            sql: "SELECT tabname FROM systables WHERE tabid >= 100 AND tabtype = 'T' ORDER BY tabname", table: "tablename")
        let names = tables.compactMap { $0["TABNAME"] }
        #expect(names.contains("customer") && names.contains("orders") && names.count == 10)
        let table = "customer"

        // ColNamesAndTable: column names, types and lengths of the chosen table.
        let columns = try await call(
            server, "generic2.php",
            sql: """
                SELECT colname, coltype, collength FROM syscolumns, systables
                 WHERE systables.tabname = '\(table)' AND syscolumns.tabid = systables.tabid ORDER BY colno
                """, table: "tablename")
        #expect(
            columns.map { $0["COLNAME"] ?? "" } == [
                "customer_num", "fname", "lname", "company", "address1", "address2",
                "city", "state", "zipcode", "phone",
            ])
        // A serial column (coltype & 0xFF == 6) is not editable; NOT NULL adds 256.
        let serials = columns.filter { (Int($0["COLTYPE"] ?? "") ?? 0) & 0xFF == 6 }.compactMap { $0["COLNAME"] }
        #expect(serials == ["customer_num"])

        // The unique key, from the primary-key constraint and its index.
        let key = try await call(
            server, "generic2.php",
            sql: """
                SELECT c.colname FROM sysconstraints k, sysindexes i, syscolumns c, systables t
                 WHERE t.tabname = '\(table)' AND k.tabid = t.tabid AND k.constrtype = 'P' AND i.idxname = k.idxname
                   AND c.tabid = k.tabid AND c.colno = ABS(i.part1)
                """, table: "tablename")
        #expect(key.first?["COLNAME"] == "customer_num")
        let uniqueKey = "CUSTOMER_NUM"

        // dbViewController: every row, each starting with ThereWasAnError = no.
        let rows = try await call(server, "generic.php", sql: "SELECT * FROM \(table)", table: table)
        #expect(rows.count == 28)
        #expect(rows.allSatisfy { $0["ThereWasAnError"] == "no" })

        // Sync to Informix: insert a row made in Core Data; the answer is the whole table.
        let inserted = try await call(
            server, "generic.php",
            sql: """
                INSERT INTO customer (fname, lname, company, address1, city, state, zipcode, phone)
                VALUES ('Nadia', 'Brooks', 'Brooks Tennis', '12 Elm Street', 'Sunnyvale', 'CA', '94086', '408-555-0199')
                """, table: table)
        #expect(inserted.count == 29)
        let newRow = try #require(inserted.max { Int($0[uniqueKey]!)! < Int($1[uniqueKey]!)! })
        #expect(newRow[uniqueKey] == "129")
        #expect(newRow["FNAME"] == "Nadia          ")

        // Update and delete by the unique key.
        let updated = try await call(server, "generic.php", sql: "UPDATE customer SET phone = '408-555-0111' WHERE customer_num = 129", table: table)
        #expect(updated.first { $0[uniqueKey] == "129" }?["PHONE"] == "408-555-0111      ")
        let deleted = try await call(server, "generic.php", sql: "DELETE FROM customer WHERE customer_num = 129", table: table)
        #expect(deleted.count == 28 && !deleted.contains { $0[uniqueKey] == "129" })

        // A failed statement: the error document the app shows to the user.
        let failed = try await call(server, "generic.php", sql: "INSERT INTO customer (customer_num, fname) VALUES (101, 'Again')", table: table)
        #expect(failed.count == 1)
        #expect(failed[0]["ThereWasAnError"] == "yes")
        #expect(failed[0]["ErrorMessage"]?.contains("-268") == true)
        #expect(failed[0]["ErrorMessage"]?.contains("Unique constraint (informix.u100_1) violated.") == true)
    }

    @Test func theDashcodeWebAppBindsCustomerFields() async throws {
        let server = try TestServer.start(backends: [InformixBackend(directory: Self.stubs)])
        defer { server.stop() }
        // The Dashcode data source: GET the service, bind rows of <customer> under <cust>.
        let (data, response) = try await server.send("GET", "/custdemoapp/service.php")
        #expect(response.value(forHTTPHeaderField: "Content-Type") == "text/xml")
        let parser = XMLParser(data: data)
        let rows = RowParser(row: "customer")
        parser.delegate = rows
        #expect(parser.parse())
        let first = Dictionary(rows.rows[0], uniquingKeysWith: { first, _ in first })
        // The fields the seed binds: COMPANY to the list, ADDRESS1 … to the detail view, PHONE to the call button.
        #expect(first["COMPANY"]?.hasPrefix("Ridgeline Sports") == true)
        #expect(first["ADDRESS1"]?.hasPrefix("1207 Larkspur Lane") == true)
        #expect(first["PHONE"]?.hasPrefix("408-555-0100") == true)
        #expect(rows.rows.count == 28)
    }
}
