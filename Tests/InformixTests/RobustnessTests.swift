import Foundation
import HTTPServer
import MockCore
import Testing
import UnderstudyTesting

@testable import Informix

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A hostile client: the sandbox's trust, work and memory bounds (issue 23).
@Suite struct RobustnessTests {
    // MARK: Sandbox

    @Test func clientsCannotNameThingsLikeTheEmulatorsOwn() throws {
        let database = try InformixFixture.database()
        // The audit's bypass: a client trigger named understudy_* was trusted like the emulator's.
        #expect(
            database.code(
                "CREATE TRIGGER understudy_x INSERT ON state REFERENCING NEW AS n FOR EACH ROW "
                    + "(UPDATE systables SET tabname = 'gone' WHERE tabid = 100)") == -201)
        #expect(database.code("CREATE TABLE understudy_mine (a INT)") == -201)
        #expect(database.code("CREATE VIEW understudy_v AS SELECT * FROM state") == -201)
        #expect(database.code("CREATE INDEX understudy_ix ON state (sname)") == -201)
        #expect(database.code("RENAME TABLE state TO understudy_state") == -201)
        #expect(database.code("DROP TABLE understudy_tables") == -201)
        // Nor reach the hidden tables from a trigger's actions.
        #expect(database.code("CREATE TRIGGER t1 INSERT ON state REFERENCING NEW AS n FOR EACH ROW (DELETE FROM understudy_tables)") == -201)
        #expect(try database.strings("SELECT tabname FROM systables WHERE tabid = 100") == [["customer"]])
        #expect(try database.strings("SELECT count(*) FROM systables WHERE tabid >= 100") == [["11"]])
    }

    @Test func aClientsTriggerHasAClientsRights() throws {
        let database = try InformixFixture.database()
        // Created, but its actions are checked as the client's own statement when it fires.
        #expect(database.code("CREATE TRIGGER t2 INSERT ON state REFERENCING NEW AS n FOR EACH ROW (UPDATE systables SET nrows = 99)") == nil)
        #expect(database.code("INSERT INTO state VALUES ('XB', 'Xbox')") == -273)
        #expect(try database.strings("SELECT count(*) FROM systables WHERE nrows = 99") == [["0"]])
        // The emulator writes the catalog: no client trigger may run inside its statements.
        #expect(database.code("CREATE TRIGGER t3 INSERT ON systables REFERENCING NEW AS n FOR EACH ROW (DELETE FROM customer)") == -273)

        // A quoted name gets past the reserved-name check (a string, to Informix), not past
        // the authorizer: the trigger's actions are the client's.
        #expect(database.code("CREATE TABLE q (x INT)") == nil)
        #expect(database.code("CREATE TRIGGER t4 INSERT ON q REFERENCING NEW AS n FOR EACH ROW (DELETE FROM \"understudy_tables\")") == nil)
        #expect(database.code("INSERT INTO q VALUES (1)") == -206)
        #expect(database.code("CREATE VIEW v4 AS SELECT * FROM \"understudy_tables\"") == -206)
        #expect(try database.strings("SELECT count(*) FROM understudy_tables", asEmulator: true) != [["0"]])

        // A trigger with the reserved prefix that got into a database anyway (a data directory
        // from an older version) is not trusted: trust goes by the names the emulator made.
        try database.sqlite("CREATE TRIGGER understudy_forged AFTER INSERT ON call_type BEGIN DELETE FROM understudy_serial; END")
        #expect(database.code("INSERT INTO call_type (call_code, code_descr) VALUES ('Z', 'forged')") == -206)
        #expect(try database.strings("SELECT count(*) FROM understudy_serial", asEmulator: true) != [["0"]])
    }

    @Test func schemaChangesDoNotRunClientTriggersAndKeepSerials() throws {
        let database = try InformixFixture.database()
        for statement in [
            "CREATE TABLE a (x INT)", "CREATE TABLE b (y INT)",
            "CREATE TRIGGER ta INSERT ON a REFERENCING NEW AS n FOR EACH ROW (INSERT INTO b VALUES (n.x))",
            "INSERT INTO a VALUES (1)", "INSERT INTO a VALUES (2)",
        ] {
            #expect(database.code(statement) == nil, "\(statement)")
        }
        // ALTER copies the rows into the rebuilt table: that is not the client's INSERT.
        #expect(database.code("ALTER TABLE a ADD (z INT)") == nil)
        #expect(try database.strings("SELECT count(*) FROM b") == [["2"]])
        #expect(database.code("INSERT INTO a (x) VALUES (3)") == nil)
        #expect(try database.strings("SELECT count(*) FROM b") == [["3"]])

        // The SERIAL trigger follows its table's new name.
        #expect(database.code("CREATE TABLE s (id SERIAL, v INT)") == nil)
        #expect(database.code("INSERT INTO s (v) VALUES (1)") == nil)
        #expect(database.code("RENAME TABLE s TO s2") == nil)
        #expect(database.code("INSERT INTO s2 (v) VALUES (2)") == nil)
        #expect(try database.strings("SELECT id FROM s2 ORDER BY id") == [["1"], ["2"]])
    }

    @Test func sqlitesSchemaTablesAreInvisible() throws {
        let database = try InformixFixture.database()
        for table in ["sqlite_master", "sqlite_schema", "sqlite_temp_master", "sqlite_temp_schema", "pragma_table_list", "dbstat"] {
            #expect(database.code("SELECT * FROM \(table)") == -206, "\(table)")
            #expect(database.code("SELECT count(*) FROM \(table)") == -206, "\(table)")
        }
        #expect(database.code("SELECT name FROM pragma_table_info('understudy_tables')") == -206)
        #expect(database.code("INSERT INTO understudy_serial VALUES ('customer', 1)") == -206)
        #expect(database.code("UPDATE understudy_serial SET next = 1") == -206)
        #expect(database.code("WITH x AS (SELECT 1) DELETE FROM understudy_tables") == -206)
    }

    @Test func theSandboxHoldsOverTheSocket() async throws {
        let (server, _) = try ServiceTests.server()
        let (forged, _) = try await ServiceTests.submit(
            server, "/informix/generic.php",
            [
                ("sql_stmt", "CREATE TRIGGER understudy_x INSERT ON state REFERENCING NEW AS n FOR EACH ROW (DELETE FROM understudy_tables)"),
                ("tableName", "state"),
            ])
        #expect(forged.contains("<ThereWasAnError>yes</ThereWasAnError>") && forged.contains("-201"))
        let (listed, _) = try await ServiceTests.submit(
            server, "/informix/generic.php",
            [
                ("sql_stmt", "SELECT name FROM sqlite_master"), ("tableName", "state"),
            ])
        #expect(listed.contains("<ThereWasAnError>yes</ThereWasAnError>") && listed.contains("-206"))
        #expect(!listed.contains("understudy_"))
        let (catalog, _) = try await ServiceTests.submit(
            server, "/informix/generic2.php",
            [
                ("sql_stmt", "SELECT tabname FROM systables WHERE tabid = 100")
            ])
        #expect(catalog.contains("<TABNAME>customer</TABNAME>"))
    }

    // MARK: Time

    @Test func stringFunctionsAnswerAsSQLitesDid() throws {
        let database = try InformixFixture.database()
        #expect(
            try database.strings(
                "SELECT instr('abcdé', 'dé'), instr('héllo', 'l'), instr('abc', ''), instr('abc', 'x') FROM systables WHERE tabid = 1")
                == [["4", "3", "1", "0"]])
        #expect(try database.strings("SELECT instr(NULL, 'a') FROM systables WHERE tabid = 1") == [[nil]])
        #expect(
            try database.strings(
                "SELECT replace('aXbXc', 'X', '--'), replace('abc', '', 'x'), replace('ééé', 'é', 'e') FROM systables WHERE tabid = 1")
                == [["a--b--c", "abc", "eee"]])
        #expect(
            try database.strings(
                "SELECT trim('xyabcyx', 'xy'), ltrim('xyabcyx', 'xy'), rtrim('xyabcyx', 'xy'), rtrim('abé', 'é') FROM systables WHERE tabid = 1")
                == [["abc", "abcyx", "xyabc", "ab"]])
        #expect(try database.strings("SELECT count(*) FROM customer WHERE company LIKE '%Sports%'") == [["5"]])
        #expect(
            try database.strings(
                "SELECT 'a%c' LIKE 'a!%c' ESCAPE '!', 'abc' LIKE 'a!%c' ESCAPE '!', 'abc' LIKE 'a_c', 'é' LIKE '_' FROM systables WHERE tabid = 1")
                == [["1", "0", "1", "1"]])
        #expect(
            try database.strings(
                "SELECT 'b-' GLOB '[a-c]-', ']' GLOB '[]]', 'x' GLOB '[^a-c]', 'a' GLOB '[', 'abc' GLOB 'a*c*' FROM systables WHERE tabid = 1")
                == [["1", "1", "1", "0", "1"]])
        #expect(database.code("SELECT 'a' LIKE 'a' ESCAPE 'xy' FROM systables") == -201)
    }

    @Test func slowStringOperatorsStopAtTheTimeLimit() throws {
        var settings = DatabaseSettings()
        settings.timeLimit = .milliseconds(300)
        let database = try InformixFixture.database(settings)
        let long = "printf('%.*c', 2000000, 'a')"
        let needle = "printf('%.*c', 3000, 'a') || 'b'"
        for sql in [
            "SELECT count(*) FROM systables WHERE tabid = 1 AND \(long) LIKE '%' || \(needle)",
            "SELECT count(*) FROM systables WHERE tabid = 1 AND \(long) MATCHES '*' || \(needle)",
            "SELECT instr(\(long), printf('%.*c', 200000, 'a') || 'b') FROM systables WHERE tabid = 1",
            "SELECT length(replace(\(long), printf('%.*c', 200000, 'a') || 'b', 'x')) FROM systables WHERE tabid = 1",
        ] {
            // Interrupted is the stop: unbounded, these would run for minutes.
            #expect(database.failure(sql)?.error == .interrupted(), "\(sql)")
        }
        // Linear whatever the set: answered, not stopped.
        #expect(try database.strings("SELECT length(trim(\(long), printf('%.*c', 1000000, 'b') || 'a')) FROM systables WHERE tabid = 1") == [["0"]])
        // Patterns are bounded in length too.
        #expect(database.code("SELECT count(*) FROM systables WHERE tabname LIKE printf('%.*c', 10000, '%')") == -201)
        #expect(try database.strings("SELECT count(*) FROM customer") == [["28"]])
    }

    @Test func aSlowLikeIsStoppedAndOthersAreAnswered() async throws {
        let server = try ServiceTests.tester(config: #"{ "limits": { "milliseconds": 1000 } }"#)
        // Loaded before the clock starts. The slow statement makes its 4 MB value itself: a
        // literal that long is over the statement length limit.
        _ = await ServiceTests.post(server, "/informix/generic2.php", [("sql_stmt", "SELECT 1 FROM systables WHERE tabid = 1")])
        let slow = "SELECT count(*) AS n FROM systables WHERE tabid = 1 AND printf('%.*c', 4000000, 'a') LIKE '%' || printf('%.*c', 4000, 'a') || 'b'"
        async let stopped = ServiceTests.post(server, "/informix/generic.php", [("sql_stmt", slow), ("tableName", "state")])
        // Sent while the slow one runs, in the same scope (the same queue).
        try await Task.sleep(for: .milliseconds(100))
        let (other, _) = await ServiceTests.post(server, "/informix/generic2.php", [("sql_stmt", "SELECT count(*) AS n FROM customer")])
        #expect(other.contains("<N>28</N>"))
        let (body, response) = await stopped
        #expect(response.status == 200)
        // -213 (statement interrupted) is the limit's stop; unbounded, this LIKE runs for minutes.
        #expect(body.contains("<ThereWasAnError>yes</ThereWasAnError>") && body.contains("-213"))
    }

    // MARK: Memory

    /// The audit's case: big answers, each made anew (no cache), pinned by the journal without
    /// bound. Now each is kept as its start, and the journal keeps to its budget.
    @Test func bigAnswersStayWithinTheJournalsBudget() async throws {
        let journal = RequestJournal(capacity: 1000, maxBodyBytes: 1024 * 1024)
        // A time limit no slow build reaches (under TSan the join takes seconds): the journal is
        // what this tests, and a statement stopped by the limit is a PHP fatal error, 500.
        let server = try ServiceTests.tester(config: #"{ "responseCache": 0, "limits": { "milliseconds": 120000 } }"#, journal: journal)
        for index in 1...15 {
            let statement = "SELECT a.*, b.fname FROM customer a, customer b, customer c WHERE c.customer_num < 103 AND a.customer_num > -\(index)"
            let (body, response) = await ServiceTests.post(server, "/informix/generic2.php", [("sql_stmt", statement), ("tableName", "x")])
            #expect(response.status == 200)
            #expect(body.utf8.count > RequestJournal.keptBodyLimit, "an answer larger than the journal keeps of it")
        }
        #expect(journal.bodyBytes <= 1024 * 1024)
        #expect(journal.evictions > 0)
        #expect(journal.entries.allSatisfy { $0.truncatedFrom != nil && $0.response.body.count == RequestJournal.keptBodyLimit })
    }

    /// `mounts` names where each service is; config.json files written before it say `services`.
    @Test func theServicesAreMountedByTheirNewOrOlderSettingName() throws {
        for key in ["mounts", "services"] {
            let root = try makeTemporaryDirectory(["config.json": #"{"\#(key)": {"generic": "/legacy/generic.php"}}"#])
            defer { try? FileManager.default.removeItem(at: root) }
            #expect(InformixBackend(directory: root).mounts.contains("/legacy/generic.php"), "\(key)")
            #expect(!InformixBackend(directory: root).mounts.contains("/informix/generic.php"), "\(key)")
        }
        let both = try makeTemporaryDirectory(["config.json": #"{"mounts": {}, "services": {}}"#])
        defer { try? FileManager.default.removeItem(at: both) }
        #expect(InformixSettings.problems(in: both).first?.description.contains("older name of mounts") == true)
    }

    @Test func cacheAndDatabaseCapsAreConfigured() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("informix-limits-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("config.json")
        try Data(#"{ "limits": { "responseCacheBytes": 1000000, "databaseBytes": 9000000, "resultBytes": 5000 } }"#.utf8).write(to: file)
        let settings = try InformixSettings(file: file)
        #expect(settings.responseCacheBytes == 1_000_000)
        #expect(settings.database.maxDatabaseBytes == 9_000_000)
        #expect(settings.database.maxResultBytes == 5000)
        #expect(InformixSettings().responseCacheBytes == 64 * 1024 * 1024)
        #expect(DatabaseSettings().maxDatabaseBytes == 256 * 1024 * 1024)
    }

    @Test func aFullDatabaseRefusesTheWriteAndGoesOn() async throws {
        let server = try ServiceTests.tester(config: #"{ "limits": { "databaseBytes": 4194304 } }"#)
        let (created, _) = await ServiceTests.post(
            server, "/informix/generic.php", [("sql_stmt", "CREATE TABLE big (v TEXT)"), ("tableName", "big")])
        #expect(!created.contains("<ThereWasAnError>yes</ThereWasAnError>"))
        let (full, response) = await ServiceTests.post(
            server, "/informix/generic.php",
            [
                ("sql_stmt", "INSERT INTO big VALUES (printf('%.*c', 8000000, 'a'))"), ("tableName", "state"),
            ])
        #expect(response.status == 200)
        #expect(full.contains("<ThereWasAnError>yes</ThereWasAnError>") && full.contains("-271"))
        // Doubling the rows gets there too, and stops at the cap.
        _ = await ServiceTests.post(server, "/informix/generic2.php", [("sql_stmt", "INSERT INTO big VALUES (printf('%.*c', 500000, 'a'))")])
        var last = ""
        for _ in 0..<8 {
            (last, _) = await ServiceTests.post(
                server, "/informix/generic.php", [("sql_stmt", "INSERT INTO big SELECT * FROM big"), ("tableName", "state")])
        }
        #expect(last.contains("-271"))
        let (count, _) = await ServiceTests.post(server, "/informix/generic2.php", [("sql_stmt", "SELECT count(*) AS n FROM customer")])
        #expect(count.contains("<N>28</N>"))
        // Room is made by deleting.
        let (deleted, _) = await ServiceTests.post(server, "/informix/generic.php", [("sql_stmt", "DELETE FROM big"), ("tableName", "state")])
        #expect(deleted.contains("<ThereWasAnError>no</ThereWasAnError>"))
        let (again, _) = await ServiceTests.post(
            server, "/informix/generic.php",
            [
                ("sql_stmt", "INSERT INTO big VALUES (printf('%.*c', 500000, 'a'))"), ("tableName", "state"),
            ])
        #expect(again.contains("<ThereWasAnError>no</ThereWasAnError>"))
    }

    @Test func aHugeResultIsRefused() throws {
        var settings = DatabaseSettings()
        settings.maxResultBytes = 100_000
        let database = try InformixFixture.database(settings)
        #expect(database.code("SELECT printf('%.*c', 10000, 'a') FROM customer") == nil)
        #expect(database.failure("SELECT printf('%.*c', 10000, 'a') FROM customer", call: .prepare)?.error.code == -208)
        #expect(try database.strings("SELECT count(*) FROM customer") == [["28"]])
    }
}

extension InformixDatabase {
    /// Rows of a query run as the emulator (past the sandbox), for checking hidden tables.
    func strings(_ sql: String, asEmulator: Bool) throws -> [[String?]] {
        try self.asEmulator { try connection.rows(sql) }.map { row in
            row.map { value -> String? in
                switch value {
                case .null: nil
                case .integer(let number): String(number)
                case .real(let number): String(number)
                case .text(let text): text
                case .blob: "(blob)"
                }
            }
        }
    }
}
