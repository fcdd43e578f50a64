import Foundation
import MockCore
import Testing

@testable import Informix

/// The fixture database kept between runs: the copy answers as the loaded one, and a changed
/// fixture, other settings or a damaged file never answer from an old copy.
@Suite struct InformixFixtureCacheTests {
    /// A folder of its own with a copy of the shipped SQL file (edited by `edit`), and a cache.
    private static func folder(edit: (String) -> String = { $0 }) throws -> (fixture: URL, cache: FixtureCache, root: URL) {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("informix-cache-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        let fixture = root.appendingPathComponent("stores_demo.sql")
        let shipped = try String(contentsOf: InformixFixture.directory.appendingPathComponent("stores_demo.sql"), encoding: .utf8)
        try edit(shipped).write(to: fixture, atomically: true, encoding: .utf8)
        return (fixture, FixtureCache(directory: root.appendingPathComponent("cache")), root)
    }

    /// What a client can read of a database: every table's rows and the catalog.
    private static func contents(_ database: InformixDatabase) throws -> [String: [[String?]]] {
        var contents: [String: [[String?]]] = [:]
        for name in database.definitions.keys.sorted() {
            contents[name] = try database.strings("SELECT * FROM \(name) ORDER BY 1")
        }
        contents["(catalog)"] = try database.strings("SELECT tabname, tabid, owner, ncols FROM systables ORDER BY tabid")
        return contents
    }

    @Test func theFirstLoadCachesTheNextCopiesTheSameDatabase() throws {
        let (fixture, cache, root) = try Self.folder()
        defer { try? FileManager.default.removeItem(at: root) }
        let (loaded, problems, first) = FixtureDatabase.load(fixture, DatabaseSettings(), cache: cache)
        #expect(problems.isEmpty)
        guard case .loadedAndCached(let path) = first else {
            Issue.record("not cached: \(first)")
            return
        }
        let (copied, copyProblems, second) = FixtureDatabase.load(fixture, DatabaseSettings(), cache: cache)
        #expect(copyProblems.isEmpty)
        #expect(second == .copied(path))
        #expect(Set(copied.definitions.keys) == Set(loaded.definitions.keys))
        #expect(copied.definitions.values.contains { $0.name == "customer" && $0.serialColumn != nil })
        #expect(try Self.contents(copied) == Self.contents(loaded))
        // SERIAL counters came along: both give the next customer the same number.
        for database in [loaded, copied] {
            _ = try database.execute("INSERT INTO customer (fname, lname) VALUES ('Ida', 'Moss')", call: .execDirect)
        }
        #expect(try copied.strings("SELECT max(customer_num) FROM customer") == loaded.strings("SELECT max(customer_num) FROM customer"))
        // Writes to a copy never reach the file: the next start copies the fixture as it was.
        let (again, _, third) = FixtureDatabase.load(fixture, DatabaseSettings(), cache: cache)
        #expect(third == .copied(path))
        #expect(try again.strings("SELECT count(*) FROM customer WHERE fname = 'Ida'") == [["0"]])
    }

    @Test func anEditedFixtureOrOtherSettingsAreLoadedAgain() throws {
        let (fixture, cache, root) = try Self.folder()
        defer { try? FileManager.default.removeItem(at: root) }
        let (_, _, first) = FixtureDatabase.load(fixture, DatabaseSettings(), cache: cache)
        guard case .loadedAndCached(let path) = first else {
            Issue.record("not cached: \(first)")
            return
        }

        var dmy = DatabaseSettings()
        dmy.dateFormat = DBDateFormat("DMY4/")!
        let (_, _, otherSettings) = FixtureDatabase.load(fixture, dmy, cache: cache)
        guard case .loadedAndCached(let otherPath) = otherSettings else {
            Issue.record("not loaded again: \(otherSettings)")
            return
        }
        #expect(otherPath != path)

        let text = try String(contentsOf: fixture, encoding: .utf8)
        try (text + "\nINSERT INTO state VALUES ('ZZ', 'Nowhere');\n").write(to: fixture, atomically: true, encoding: .utf8)
        let (edited, problems, source) = FixtureDatabase.load(fixture, DatabaseSettings(), cache: cache)
        #expect(problems.isEmpty)
        guard case .loadedAndCached(let editedPath) = source else {
            Issue.record("not loaded again: \(source)")
            return
        }
        #expect(editedPath != path)
        #expect(try edited.strings("SELECT sname FROM state WHERE code = 'ZZ'") == [["Nowhere        "]])
    }

    @Test func aDamagedCacheFileIsMadeAgain() throws {
        let (fixture, cache, root) = try Self.folder()
        defer { try? FileManager.default.removeItem(at: root) }
        let (_, _, first) = FixtureDatabase.load(fixture, DatabaseSettings(), cache: cache)
        guard case .loadedAndCached(let path) = first else {
            Issue.record("not cached: \(first)")
            return
        }
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        for offset in stride(from: 4096, to: bytes.count, by: 1024) { bytes[offset] ^= 0x5a }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let (database, _, second) = FixtureDatabase.load(fixture, DatabaseSettings(), cache: cache)
        #expect(second == .loadedAndCached(path))
        #expect(try database.strings("SELECT count(*) FROM customer") == [["28"]])
        // Not a database at all.
        try Data("not a database".utf8).write(to: URL(fileURLWithPath: path))
        #expect(FixtureDatabase.load(fixture, DatabaseSettings(), cache: cache).2 == .loadedAndCached(path))
        #expect(FixtureDatabase.load(fixture, DatabaseSettings(), cache: cache).2 == .copied(path))
    }

    @Test func aFixtureWithProblemsIsNotCachedSoTheyAreReportedEveryTime() throws {
        let (fixture, cache, root) = try Self.folder { $0 + "\nINSERT INTO nowhere VALUES (1);\n" }
        defer { try? FileManager.default.removeItem(at: root) }
        for _ in 0..<2 {
            let (_, problems, source) = FixtureDatabase.load(fixture, DatabaseSettings(), cache: cache)
            #expect(problems.count == 1)
            #expect(source == .loaded)
        }
        let files = (try? FileManager.default.contentsOfDirectory(atPath: cache.directory.path)) ?? []
        #expect(files.isEmpty)
    }

    @Test func anUnwritableCacheLoadsInMemory() throws {
        let (fixture, _, root) = try Self.folder()
        defer { try? FileManager.default.removeItem(at: root) }
        try Data().write(to: root.appendingPathComponent("blocker"))
        let cache = FixtureCache(directory: root.appendingPathComponent("blocker/cache"))
        let (database, problems, source) = FixtureDatabase.load(fixture, DatabaseSettings(), cache: cache)
        #expect(problems.isEmpty)
        #expect(source == .loaded)
        #expect(try database.strings("SELECT count(*) FROM customer") == [["28"]])
    }
}
