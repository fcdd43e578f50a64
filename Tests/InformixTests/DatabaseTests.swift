import Testing

@testable import Informix

/// The dialect a client sends, SERIAL columns and statements, on the stores_demo fixture.
@Suite struct DatabaseTests {
    @Test func anEmptyDatabaseHasTheCatalog() throws {
        let database = try InformixDatabase(settings: DatabaseSettings())
        let result = try database.execute("SELECT tabname, tabid FROM systables WHERE tabid < 100 ORDER BY tabid", call: .prepare)
        #expect(result.rows.first == [.text("systables"), .integer(1)])
        #expect(try database.strings("SELECT count(*) FROM systables WHERE tabid >= 100") == [["0"]])
    }

    @Test func firstSkipAndLimitPickRows() throws {
        let database = try InformixFixture.database()
        #expect(try database.strings("SELECT FIRST 3 customer_num FROM customer ORDER BY customer_num") == [["101"], ["102"], ["103"]])
        #expect(try database.strings("SELECT SKIP 2 FIRST 2 customer_num FROM customer ORDER BY customer_num") == [["103"], ["104"]])
        #expect(try database.strings("SELECT LIMIT 1 customer_num FROM customer ORDER BY customer_num DESC") == [["128"]])
        #expect(try database.strings("SELECT SKIP 26 customer_num FROM customer ORDER BY customer_num") == [["127"], ["128"]])
        // IDS 11.50's trailing LIMIT, and FIRST in a FROM-clause subquery.
        #expect(try database.strings("SELECT customer_num FROM customer ORDER BY customer_num LIMIT 1") == [["101"]])
        #expect(try database.strings("SELECT count(*) FROM (SELECT FIRST 5 * FROM customer)") == [["5"]])
        // "first" is still a name when no number follows.
        #expect(try database.labels("SELECT fname first FROM customer WHERE customer_num = 101") == ["first"])
    }

    @Test func matchesTakesInformixWildcards() throws {
        let database = try InformixFixture.database()
        #expect(try database.strings("SELECT customer_num FROM customer WHERE fname MATCHES 'M*'") == [["101"], ["124"]])
        #expect(try database.strings("SELECT customer_num FROM customer WHERE lname MATCHES '?kafor'") == [["101"]])
        #expect(try database.strings("SELECT customer_num FROM customer WHERE fname MATCHES '[DH]e*' ORDER BY 1") == [["102"], ["107"], ["120"]])
        #expect(try database.strings("SELECT count(*) FROM customer WHERE fname NOT MATCHES '[^M]*'") == [["2"]])
        // Case-sensitive, unlike SQLite's LIKE by default.
        #expect(try database.strings("SELECT count(*) FROM customer WHERE fname MATCHES 'm*'") == [["0"]])
        #expect(try database.strings("SELECT count(*) FROM customer WHERE fname LIKE 'm%'") == [["0"]])
        // An escaped wildcard is literal.
        #expect(try database.strings("SELECT count(*) FROM customer WHERE company MATCHES '*\\&*'") == [["2"]])
        #expect(try database.strings("SELECT count(*) FROM customer WHERE company MATCHES '*&*'") == [["2"]])
        #expect(try database.strings("SELECT count(*) FROM state WHERE sname MATCHES 'D\\.C\\.'") == [["1"]])
        #expect(try database.strings("SELECT count(*) FROM state WHERE sname MATCHES 'D!.C.' ESCAPE '!'") == [["1"]])
    }

    @Test func doubleQuotedStringsAndBraceCommentsAreInformixs() throws {
        let database = try InformixFixture.database()
        #expect(try database.strings("SELECT lname FROM customer { a comment } WHERE fname = \"Marta\" -- another") == [["Okafor         "]])
        #expect(try database.strings("SELECT count(*) FROM informix.customer, stores_demo:state WHERE customer.state = state.code") == [["28"]])
        #expect(try database.strings("SELECT UNIQUE state FROM customer WHERE state = 'CA'") == [["CA"]])
    }

    @Test func todayCurrentUserAndDbinfo() throws {
        var settings = DatabaseSettings()
        settings.fixedNow = 1_315_999_800.25  // 2011-09-14 11:30:00.25 UTC
        settings.user = "demo"
        let database = try InformixFixture.database(settings)
        #expect(try database.strings("SELECT TODAY, USER FROM systables WHERE tabid = 1") == [["2011-09-14", "demo"]])
        #expect(try database.strings("SELECT CURRENT FROM systables WHERE tabid = 1") == [["2011-09-14 11:30:00.250"]])
        #expect(
            try database.strings("SELECT CURRENT YEAR TO MINUTE, CURRENT HOUR TO SECOND FROM systables WHERE tabid = 1")
                == [["2011-09-14 11:30", "11:30:00"]])
        #expect(
            try database.labels("SELECT TODAY, count(*), max(tabid), 'x', tabid + 1 FROM systables")
                == ["(today)", "(count(*))", "(max)", "(constant)", "(expression)"])
        // A default of USER, and DBINFO('sqlca.sqlerrd1') after a SERIAL insert in the same session.
        let rows = try database.strings(
            """
            INSERT INTO cust_calls (customer_num, call_dtime, call_code) VALUES (101, DATETIME (2011-09-14 10:00) YEAR TO MINUTE, 'O');
            INSERT INTO customer (fname) VALUES ('Sam');
            SELECT DBINFO('sqlca.sqlerrd1') FROM systables WHERE tabid = 1
            """)
        #expect(rows == [["129"]])
        #expect(try database.strings("SELECT user_id FROM cust_calls WHERE call_dtime = '2011-09-14 10:00'") == [["demo              "]])
        let dates = try database.strings(
            "SELECT MDY(9, 14, 2011), DAY(order_date), MONTH(order_date), YEAR(order_date), WEEKDAY(MDY(9,14,2011)) FROM orders WHERE order_num = 1001"
        )
        #expect(dates == [["2011-09-14", "7", "5", "2011", "3"]])
    }

    @Test func serialColumnsNumberAsInformixDoes() throws {
        let database = try InformixFixture.database()
        // 0 or no value: the next number.
        _ = try database.execute("INSERT INTO customer (customer_num, fname) VALUES (0, 'Ann')", call: .execDirect)
        _ = try database.execute("INSERT INTO customer (fname) VALUES ('Bo')", call: .execDirect)
        #expect(try database.strings("SELECT customer_num FROM customer WHERE fname IN ('Ann', 'Bo') ORDER BY 1") == [["129"], ["130"]])
        // A larger explicit value moves the counter; a smaller free one does not.
        _ = try database.execute("INSERT INTO customer (customer_num, fname) VALUES (500, 'Cy')", call: .execDirect)
        _ = try database.execute("INSERT INTO customer (customer_num, fname) VALUES (200, 'Di')", call: .execDirect)
        _ = try database.execute("INSERT INTO customer (fname) VALUES ('Ed')", call: .execDirect)
        #expect(try database.strings("SELECT customer_num FROM customer WHERE fname = 'Ed'") == [["501"]])
        // Deleting the highest row does not give its number back.
        _ = try database.execute("DELETE FROM customer WHERE customer_num >= 500", call: .execDirect)
        _ = try database.execute("INSERT INTO customer (fname) VALUES ('Flo')", call: .execDirect)
        #expect(try database.strings("SELECT customer_num FROM customer WHERE fname = 'Flo'") == [["502"]])
        // NULL into a SERIAL is refused.
        #expect(database.code("INSERT INTO customer (customer_num, fname) VALUES (NULL, 'Gus')") == -391)
    }

    @Test func valuesComeBackAsPDOHandsThemToPHP() throws {
        let database = try InformixFixture.database()
        // CHAR padded, MONEY and DECIMAL with their scale, DATE yyyy-mm-dd, NULL, TEXT as a stream.
        let order = try database.strings("SELECT po_num, ship_weight, ship_charge, order_date, paid_date FROM orders WHERE order_num = 1004")
        #expect(order.count == 1)
        #expect(order[0][0]?.count == 10)
        #expect(order[0][1]?.wholeMatch(of: /\d+\.\d\d/) != nil)
        #expect(order[0][2]?.wholeMatch(of: /\d+\.\d\d/) != nil)
        #expect(order[0][3]?.wholeMatch(of: /2011-\d\d-\d\d/) != nil)
        #expect(order[0][4] == nil)
        #expect(try database.strings("SELECT unit_price FROM stock WHERE stock_num = 1 AND manu_code = 'ACM'") == [["251.50"]])
        #expect(
            try database.strings("SELECT cat_descr, cat_advert FROM catalog WHERE catalog_num = 10001")
                == [["(stream)", "Best baseball gloves for the season!"]])
        #expect(try database.strings("SELECT lead_time FROM manufact WHERE manu_code = 'ACM'") == [["  5"]])
        // Trailing blanks do not matter when comparing CHAR values.
        #expect(try database.strings("SELECT count(*) FROM customer WHERE fname = 'Marta   '") == [["1"]])
        // Too long for CHAR(15): cut, as a non-ANSI database does.
        _ = try database.execute("UPDATE customer SET fname = 'Bartholomew-Alexander' WHERE customer_num = 101", call: .execDirect)
        #expect(try database.strings("SELECT fname FROM customer WHERE customer_num = 101") == [["Bartholomew-Ale"]])
    }

    @Test func dateLiteralsAreReadPerDBDATE() throws {
        var settings = DatabaseSettings()
        settings.dateFormat = DBDateFormat("MDY4/")!
        let database = try InformixFixture.database(settings)
        _ = try database.execute("UPDATE orders SET paid_date = '12/31/2011' WHERE order_num = 1004", call: .execDirect)
        #expect(try database.strings("SELECT paid_date FROM orders WHERE order_num = 1004") == [["2011-12-31"]])
        let paid = try database.strings("SELECT order_num FROM orders WHERE paid_date = '12/31/2011'")
        #expect(paid == [["1004"]])
        #expect(database.code("UPDATE orders SET paid_date = '14/09/2011' WHERE order_num = 1004") == -1218)

        #expect(DBDateFormat("Y4MD-")!.isoDate(from: "2011-01-08") == "2011-01-08")
        #expect(DBDateFormat("DMY2-")!.isoDate(from: "08-01-11") == "1911-01-08")
        #expect(DBDateFormat("MDY20")!.isoDate(from: "01082011") == nil)
        #expect(DBDateFormat("MDY40")!.isoDate(from: "01082011") == "2011-01-08")
        #expect(DBDateFormat("MDY4/")!.format(isoDate: "2011-01-08") == "01/08/2011")
        #expect(DBDateFormat("Y4MD*")!.format(isoDate: "2011-01-08") == "2011/01/08")
        #expect(DBDateFormat("XYZ") == nil)
    }

    @Test func theUpdateTriggerLogsQuantityChanges() throws {
        var settings = DatabaseSettings()
        settings.fixedNow = 1_315_999_800
        let database = try InformixFixture.database(settings)
        let before = try database.strings("SELECT quantity FROM items WHERE item_num = 1 AND order_num = 1001")[0][0]!
        _ = try database.execute("UPDATE items SET quantity = 9 WHERE item_num = 1 AND order_num = 1001", call: .execDirect)
        #expect(
            try database.strings("SELECT item_num, ord_num, username, update_time, old_qty, new_qty FROM log_record")
                == [["1", "1001", "informix", "2011-09-14 11:30", before, "9"]])
    }

    @Test func transactionsAreRolledBackWhenTheSessionEnds() throws {
        let database = try InformixFixture.database()
        database.beginSession()
        _ = try database.execute("BEGIN WORK; DELETE FROM cust_calls; DELETE FROM items", call: .execDirect)
        #expect(try database.strings("SELECT count(*) FROM items") == [["0"]])
        database.endSession()
        #expect(try database.strings("SELECT count(*) FROM items") != [["0"]])
        _ = try database.execute("BEGIN WORK; DELETE FROM cust_calls; COMMIT WORK", call: .execDirect)
        #expect(try database.strings("SELECT count(*) FROM cust_calls") == [["0"]])
        #expect(database.code("COMMIT WORK") == -255)
        #expect(database.code("BEGIN WORK; BEGIN WORK") == -535)
        database.endSession()
    }

    @Test func schemaStatementsKeepTheCatalogTrue() throws {
        let database = try InformixFixture.database()
        _ = try database.execute(
            """
            CREATE TABLE visit (visit_id SERIAL(50) NOT NULL, customer_num INTEGER REFERENCES customer, note VARCHAR(40,10),
                                visited DATE DEFAULT TODAY, PRIMARY KEY (visit_id) CONSTRAINT visit_pk);
            CREATE UNIQUE INDEX visit_note_ix ON visit (note DESC)
            """, call: .execDirect)
        let tabid = try database.strings("SELECT tabid, ncols, nindexes, tabtype FROM systables WHERE tabname = 'visit'")
        #expect(tabid == [["111", "4", "3", "T"]])
        #expect(
            try database.strings("SELECT colname, coltype, collength FROM syscolumns WHERE tabid = 111 ORDER BY colno")
                == [["visit_id", "262", "4"], ["customer_num", "2", "4"], ["note", "13", "2600"], ["visited", "7", "4"]])
        #expect(
            try database.strings("SELECT constrname, constrtype FROM sysconstraints WHERE tabid = 111 ORDER BY constrid")
                == [["visit_pk", "P"], ["n111_27", "N"], ["r111_28", "R"]])
        #expect(
            try database.strings("SELECT idxname, idxtype, part1 FROM sysindexes WHERE tabid = 111 ORDER BY idxname")
                == [[" 111_26", "U", "1"], [" 111_28", "D", "2"], ["visit_note_ix", "U", "-3"]])
        _ = try database.execute("INSERT INTO visit (customer_num, note) VALUES (101, 'first')", call: .execDirect)
        #expect(try database.strings("SELECT visit_id FROM visit") == [["50"]])

        _ = try database.execute("ALTER TABLE visit ADD (rating SMALLINT)", call: .execDirect)
        #expect(try database.strings("SELECT ncols FROM systables WHERE tabname = 'visit'") == [["5"]])
        #expect(try database.strings("SELECT visit_id, note, rating FROM visit") == [["50", "first", nil]])
        // Dropping a column drops the indexes on it.
        _ = try database.execute("ALTER TABLE visit DROP (note)", call: .execDirect)
        #expect(try database.labels("SELECT * FROM visit") == ["visit_id", "customer_num", "visited", "rating"])
        #expect(try database.strings("SELECT count(*) FROM sysindexes WHERE idxname = 'visit_note_ix'") == [["0"]])

        _ = try database.execute("RENAME TABLE visit TO store_visit", call: .execDirect)
        #expect(try database.strings("SELECT tabname FROM systables WHERE tabid = 111") == [["store_visit"]])
        _ = try database.execute("DROP TABLE store_visit", call: .execDirect)
        #expect(try database.strings("SELECT count(*) FROM systables WHERE tabid = 111") == [["0"]])
        #expect(try database.strings("SELECT count(*) FROM syscolumns WHERE tabid = 111") == [["0"]])
        #expect(try database.strings("SELECT count(*) FROM sysconstraints WHERE tabid = 111") == [["0"]])
        // A failed schema statement leaves nothing behind.
        #expect(database.code("CREATE TABLE broken (a INTEGER, b CHAR(3) REFERENCES nowhere)") == -206)
        #expect(try database.strings("SELECT count(*) FROM systables WHERE tabname = 'broken'") == [["0"]])
        #expect(database.code("CREATE TABLE customer (a INTEGER)") == -310)
        #expect(database.code("CREATE TABLE odd (a GEOMETRY)") == -9628)
    }
}
