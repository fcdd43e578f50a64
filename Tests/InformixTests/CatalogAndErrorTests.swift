import Testing

@testable import Informix

/// The system catalog as clients query it, Informix's errors as PDO_INFORMIX reports them, and
/// the sandbox around client SQL.
@Suite struct CatalogAndErrorTests {
    @Test func listingTablesAsClientsDo() throws {
        let database = try InformixFixture.database()
        let tables = try database.strings("SELECT tabname, tabid FROM systables WHERE tabid >= 100 AND tabtype = 'T' ORDER BY tabname")
        #expect(
            tables.map { $0[0] } == [
                "call_type", "catalog", "cust_calls", "customer", "items", "log_record", "manufact",
                "orders", "state", "stock",
            ])
        #expect(tables.first { $0[0] == "customer" }?[1] == "100")
        #expect(try database.strings("SELECT tabname, tabtype FROM systables WHERE tabtype = 'V'") == [["custview", "V"]])
        #expect(
            try database.strings("SELECT owner FROM systables WHERE tabname = 'customer'")
                == [["informix" + String(repeating: " ", count: 24)]])
    }

    /// Without ORDER BY, Informix lists systables in tabid order (a table picker's first entry is
    /// `customer`), and a table keeps its place when it is altered; a new table comes last.
    @Test func tablesWithoutOrderByComeInTabidOrder() throws {
        let database = try InformixFixture.database()
        let listing = "SELECT tabname FROM systables WHERE tabid >= 100"
        let fixture = [
            "customer", "orders", "manufact", "stock", "items", "state", "call_type", "cust_calls", "catalog",
            "log_record", "custview",
        ]
        #expect(try database.strings(listing).map { $0[0] } == fixture)
        _ = try database.execute("ALTER TABLE customer ADD (nickname CHAR(10))", call: .execDirect)
        _ = try database.execute("CREATE TABLE aardvark (id SERIAL)", call: .execDirect)
        #expect(try database.strings(listing).map { $0[0] } == fixture + ["aardvark"])
    }

    @Test func columnTypesAndLengthsAreEncodedAsInformixDoes() throws {
        let database = try InformixFixture.database()
        let query = """
            SELECT t.tabname, c.colname, c.coltype, c.collength FROM syscolumns c, systables t
             WHERE c.tabid = t.tabid AND t.tabname || '.' || c.colname IN
             ('customer.customer_num', 'customer.fname', 'orders.order_date', 'orders.ship_weight', 'orders.ship_charge',
              'items.total_price', 'items.stock_num', 'cust_calls.call_dtime', 'manufact.lead_time', 'catalog.cat_advert',
              'catalog.cat_descr', 'catalog.cat_picture', 'orders.customer_num')
             ORDER BY 1, 2
            """
        #expect(
            try database.strings(query) == [
                ["catalog", "cat_advert", "13", "16895"], ["catalog", "cat_descr", "12", "56"], ["catalog", "cat_picture", "11", "56"],
                ["cust_calls", "call_dtime", "10", "3080"], ["customer", "customer_num", "262", "4"], ["customer", "fname", "0", "15"],
                ["items", "stock_num", "257", "2"], ["items", "total_price", "8", "2050"], ["manufact", "lead_time", "14", "836"],
                ["orders", "customer_num", "258", "4"], ["orders", "order_date", "7", "4"], ["orders", "ship_charge", "8", "1538"],
                ["orders", "ship_weight", "5", "2050"],
            ])
        // Columns are numbered from 1, left to right.
        #expect(
            try database.strings("SELECT colno, colname FROM syscolumns WHERE tabid = 100 AND colno <= 2 ORDER BY colno")
                == [["1", "customer_num"], ["2", "fname"]])
    }

    @Test func theKeyQueriesOfAClientAnswer() throws {
        let database = try InformixFixture.database()
        // The primary key through sysconstraints, sysindexes and syscolumns.
        let primaryKey = """
            SELECT c.colname, c.colno FROM sysconstraints k, sysindexes i, syscolumns c, systables t
             WHERE t.tabname = '%@' AND k.tabid = t.tabid AND k.constrtype = 'P' AND i.idxname = k.idxname AND i.tabid = k.tabid
               AND c.tabid = k.tabid AND c.colno IN (ABS(i.part1), ABS(i.part2), ABS(i.part3), ABS(i.part4))
             ORDER BY c.colno
            """
        #expect(try database.strings(primaryKey.replacingOccurrences(of: "%@", with: "customer")) == [["customer_num", "1"]])
        #expect(try database.strings(primaryKey.replacingOccurrences(of: "%@", with: "items")) == [["item_num", "1"], ["order_num", "2"]])
        #expect(
            try database.strings("SELECT constrname, constrtype, idxname FROM sysconstraints WHERE tabid = 101 ORDER BY constrid") == [
                ["u101_3", "P", " 101_3"], ["n101_4", "N", nil], ["n101_5", "N", nil], ["r101_6", "R", " 101_6"],
            ])
        #expect(
            try database.strings(
                "SELECT r.ptabid, p.constrname FROM sysreferences r, sysconstraints p WHERE r.constrid = 6 AND p.constrid = r.primary")
                == [["100", "u100_1"]])
        #expect(try database.strings("SELECT checktext FROM syschecks WHERE constrid = 15").first?.first??.hasPrefix("quantity >= 1") == true)
        #expect(try database.strings("SELECT trigname, event FROM systriggers") == [["upqty_i", "U"]])
        let viewText = try database.strings("SELECT viewtext FROM sysviews WHERE tabid = 110 ORDER BY seqno").compactMap { $0[0] }.joined()
        #expect(viewText.hasPrefix("create view custview (firstname, lastname, company, city) as select fname"))
        // The view's columns, typed from its base table.
        #expect(
            try database.strings("SELECT firstname, city FROM custview ORDER BY 1")
                == [["Devon          ", "Redwood City   "], ["Ken            ", "Redwood City   "], ["Lucy           ", "Redwood City   "]])
    }

    @Test func errorsCarryInformixCodesAndPDOsText() throws {
        let database = try InformixFixture.database()
        let cases: [(String, Int, String, String)] = [
            ("SELEC * FROM customer", -201, "42000", "A syntax error has occurred."),
            ("SELECT * FROM nothere", -206, "42S02", "The specified table (nothere) is not in the database."),
            ("SELECT nocolumn FROM customer", -217, "42S22", "Column (nocolumn) not found in any table in the query (or SLV is undefined)."),
            ("INSERT INTO state VALUES ('ZZ')", -236, "21S01", "Number of columns in INSERT does not match number of VALUES."),
            ("INSERT INTO customer (customer_num, fname) VALUES (101, 'Dup')", -268, "23000", "Unique constraint (informix.u100_1) violated."),
            ("INSERT INTO orders (order_date) VALUES ('2011-09-14')", -391, "23000", "Cannot insert a null into column (orders.customer_num)."),
            ("UPDATE items SET quantity = 0 WHERE order_num = 1001", -530, "23000", "Check constraint (informix.c104_15) failed."),
            (
                "INSERT INTO orders (customer_num) VALUES (999)", -691, "23000",
                "Missing key in referenced table for referential constraint (informix.r101_6)."
            ),
            ("DELETE FROM customer WHERE customer_num = 104", -692, "23000", "Key value for constraint (informix.r101_6) is still being referenced."),
            ("INSERT INTO customer (customer_num, fname) VALUES ('abc', 'x')", -1213, "22018", "A character to numeric conversion process failed"),
            ("UPDATE orders SET order_date = 'soon' WHERE order_num = 1001", -1218, "22007", "String to date conversion error"),
            ("UPDATE items SET quantity = 40000 WHERE order_num = 1001", -1214, "22003", "Value too large to fit in a SMALLINT."),
            ("SELECT * FROM customer WHERE fname = 'open", -282, "42000", "Found a quote for which there is no matching quote."),
            ("SELECT nosuchfunction(1) FROM systables", -674, "IX000", "Routine (nosuchfunction) can not be resolved."),
            ("INSERT INTO custview VALUES ('A', 'B', 'C', 'Redwood City')", -1239, "IX000", "Cannot update view (custview): not emulated."),
            ("COMMIT WORK", -255, "25000", "Not in transaction."),
        ]
        for (sql, code, state, message) in cases {
            let failure = database.failure(sql)
            #expect(failure?.error.code == code, "\(sql)")
            #expect(failure?.error.sqlState == state, "\(sql)")
            #expect(failure?.error.message == message, "\(sql)")
        }
        // Nothing of a failed statement stays.
        #expect(try database.strings("SELECT count(*) FROM customer") == [["28"]])
    }

    @Test func pdoMessagesNameTheODBCCallAndTheScriptCutsTheLastPart() throws {
        let database = try InformixFixture.database()
        let prepare = database.failure("SELECT * FROM doesnotexist", call: .prepare)?.message
        #expect(
            prepare == "SQLSTATE[42S02]: Base table or view not found: -206 [Informix][Informix ODBC Driver][Informix]The specified table "
                + "(doesnotexist) is not in the database. (SQLPrepare[-206] at /tmp/pear/temp/PDO_INFORMIX/informix_driver.c:131)")
        let exec = database.failure("SELEC 1")?.message
        #expect(
            exec == "SQLSTATE[42000]: Syntax error or access violation: -201 [Informix][Informix ODBC Driver][Informix]A syntax error "
                + "has occurred. (SQLExecDirect[-201] at /tmp/pear/temp/PDO_INFORMIX/informix_driver.c:268)")
        let constraint = database.failure("INSERT INTO customer (customer_num) VALUES (101)", call: .prepare)?.message
        #expect(constraint?.hasSuffix("(SQLExecute[-268] at /tmp/pear/temp/PDO_INFORMIX/informix_statement.c:755)") == true)
        // generic.php's strrev / preg_replace / strrev: the last parenthesised part goes, the blank before it stays.
        #expect(
            PHPScripts.shortened("Error: " + exec!) == "Error: SQLSTATE[42000]: Syntax error or access violation: -201 "
                + "[Informix][Informix ODBC Driver][Informix]A syntax error has occurred. ")
        #expect(PHPScripts.shortened("Error: a (b) c (d)") == "Error: a (b) c ")
        #expect(PHPScripts.shortened("no parentheses") == "no parentheses")
    }

    @Test func clientSQLStaysInsideTheEmulatedDatabase() throws {
        let database = try InformixFixture.database()
        #expect(database.code("ATTACH DATABASE '/tmp/x.db' AS x") == -201)
        #expect(database.code("PRAGMA writable_schema = ON") == -201)
        #expect(database.code("SELECT load_extension('/tmp/evil')") == -674)
        #expect(database.code("SELECT * FROM understudy_tables") == -206)
        #expect(database.code("SELECT understudy_serial_assigned(1) FROM systables") == -674)
        #expect(database.code("DELETE FROM systables") == -273)
        #expect(database.code("UPDATE syscolumns SET coltype = 0") == -273)
        #expect(database.code("DROP TABLE systables") == -273)
        #expect(database.code("VACUUM") == -201)
        #expect(try database.strings("SELECT count(*) FROM systables WHERE tabid >= 100") == [["11"]])
    }

    @Test func runawayAndOversizedStatementsAreStopped() throws {
        var settings = DatabaseSettings()
        settings.timeLimit = .milliseconds(100)
        settings.maxStatementBytes = 200
        settings.maxRows = 50
        let database = try InformixFixture.database(settings)
        let runaway = "SELECT count(*) FROM customer a, customer b, customer c, customer d, customer e, customer f"
        #expect(database.failure(runaway)?.error == .interrupted())
        #expect(database.code("SELECT * FROM customer WHERE fname = '" + String(repeating: "x", count: 300) + "'") == -460)
        #expect(database.failure("SELECT * FROM items", call: .prepare)?.error == .interrupted())
        // The database goes on answering.
        #expect(try database.strings("SELECT count(*) FROM customer") == [["28"]])
    }
}
