import Testing

@testable import Informix

/// The scripts write fetched rows while the statement steps (FetchedRowsWriter): the same bytes
/// as PDOValue and htmlentities make of kept rows, and the same failures as fetchAll.
@Suite struct FetchedRowsTests {
    private func scripts(
        _ version: PHPRuntime.Version, displayErrors: Bool = false,
        columnCase: PHPScripts.ColumnCase = .upper
    ) -> PHPScripts {
        var runtime = PHPRuntime()
        runtime.version = version
        runtime.displayErrors = displayErrors
        return PHPScripts(runtime: runtime, columnCase: columnCase, dateOutput: .iso, rootElement: "root")
    }

    private func query(_ scripts: PHPScripts, _ sql: String, table: String = "t", on database: InformixDatabase) -> String {
        let page = scripts.run(.query, path: "/informix/generic2.php", post: ["sql_stmt": sql, "tableName": table], database: database)
        return String(decoding: page.body, as: UTF8.self)
    }

    @Test func valuesAreWrittenAsPDOHandsThemToPHP() throws {
        let database = try InformixFixture.database()
        _ = try database.execute("CREATE TABLE mixed (c CHAR(6), v VARCHAR(10), i INTEGER, d DECIMAL(6,2), t DATE)", call: .execDirect)
        _ = try database.execute("INSERT INTO mixed VALUES ('a\r\nb', '<&>\"''', -42, 3.5, '2011-09-14')", call: .execDirect)
        _ = try database.execute("INSERT INTO mixed VALUES ('é', 'naïve', 0, NULL, NULL)", call: .execDirect)
        _ = try database.execute("INSERT INTO mixed VALUES (NULL, '', NULL, -0.005, '1999-12-31')", call: .execDirect)
        let sql = "SELECT c, v, i, d, t, i + 9223372036854775807 AS big, -9223372036854775807 - 1 AS least FROM mixed"
        // CHAR is padded to its length in characters (CR LF is one); quotes stay literal.
        let first =
            "<C>a&#13;\nb   </C><V>&lt;&amp;&gt;\"'</V><I>-42</I><D>3.50</D><T>2011-09-14</T>"
            + "<BIG>9223372036854775765</BIG><LEAST>-9223372036854775808</LEAST>"
        #expect(
            query(scripts(.php53), sql, on: database) == "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<root>"
                + "<t>\(first)</t>"
                + "<t><C>&Atilde;&copy;     </C><V>na&Atilde;&macr;ve</V><I>0</I><D></D><T></T><BIG>9223372036854775807</BIG><LEAST>-9223372036854775808</LEAST></t>"
                + "<t><C></C><V></V><I></I><D>-0.01</D><T>1999-12-31</T><BIG></BIG><LEAST>-9223372036854775808</LEAST></t>"
                + "</root>\n")
        #expect(
            query(scripts(.php7, columnCase: .lower), sql, on: database) == "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<root>"
                + "<t>\(first.lowercased())</t>"
                + "<t><c>&eacute;     </c><v>na&iuml;ve</v><i>0</i><d/><t/><big>9223372036854775807</big><least>-9223372036854775808</least></t>"
                + "<t><c/><v/><i/><d>-0.01</d><t>1999-12-31</t><big/><least>-9223372036854775808</least></t>"
                + "</root>\n")
    }

    @Test func keysFollowEachScriptsColumnCase() throws {
        let database = try InformixFixture.database()
        let sql = "SELECT FIRST 1 customer_num, fname FROM customer ORDER BY customer_num"
        // The keys made for one case are kept, and not handed to another.
        for _ in 0..<2 {
            #expect(query(scripts(.php53, columnCase: .upper), sql, on: database).contains("<t><CUSTOMER_NUM>101</CUSTOMER_NUM><FNAME>"))
            #expect(query(scripts(.php53, columnCase: .natural), sql, on: database).contains("<t><customer_num>101</customer_num><fname>"))
        }
        // A repeated name keeps its first place and its last value.
        #expect(
            query(scripts(.php53), "SELECT FIRST 1 fname AS a, lname AS b, customer_num AS a FROM customer ORDER BY 3", on: database)
                .contains("<t><A>101</A><B>"))
    }

    @Test func aFailureWhileFetchingDropsWhatTheRowsPrinted() throws {
        var settings = DatabaseSettings()
        settings.maxRows = 2
        let database = try InformixFixture.database(settings)
        // PHP 8 prints a deprecation for each NULL it escapes, but fetchAll fails first: the
        // page is the uncaught exception alone.
        let page = query(scripts(.php8, displayErrors: true), "SELECT NULL AS n FROM customer", on: database)
        #expect(page.hasPrefix("<br />\n<b>Fatal error</b>:  Uncaught PDOException: "), "\(page)")
        #expect(page.contains(": -213 [Informix]"))
        #expect(!page.contains("Deprecated"))
        #expect(
            query(scripts(.php8, displayErrors: true), "SELECT FIRST 2 NULL AS n FROM customer", on: database)
                .hasPrefix("<br />\n<b>Deprecated</b>:  htmlentities(): Passing null"))
    }

    @Test func theResultByteCapCountsEveryColumnAsKeptRowsDo() throws {
        let one = try InformixFixture.database().execute("SELECT fname FROM customer", call: .prepare).rows
            .reduce(0) { $0 + $1.reduce(0) { $0 + $1.byteCount } }
        var settings = DatabaseSettings()
        settings.maxResultBytes = one * 3 / 2
        let database = try InformixFixture.database(settings)
        // One key for the repeated name, but both columns are held, so the cap is passed.
        #expect(database.failure("SELECT fname, fname FROM customer", call: .prepare)?.error.code == -208)
        let scripts = scripts(.php8, displayErrors: true)
        #expect(query(scripts, "SELECT fname, fname FROM customer", on: database).contains(": -208 [Informix]"))
        #expect(query(scripts, "SELECT fname FROM customer", on: database).hasPrefix("<?xml"))
        // Text that is not valid UTF-8 counts as the String PHP is handed (repaired), as kept rows count it.
        #expect(query(scripts, "SELECT CAST(x'ff' AS TEXT) AS bad FROM customer", on: database).hasPrefix("<?xml"))
    }
}
