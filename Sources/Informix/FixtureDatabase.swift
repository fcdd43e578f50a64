import Foundation
import MockCore

/// The database the services start from, made from the fixture file (`stores_demo.sql`): each
/// statement run in turn, through the fixture cache when there is one.
enum FixtureDatabase {
    /// The database of the fixture file through `cache` (see `InformixFixtureCache`), every
    /// problem met on the way, and where it came from.
    static func load(_ fixture: URL, _ settings: DatabaseSettings, cache: FixtureCache?)
        -> (InformixDatabase, [InformixFixtureError], InformixFixtureCache.Source)
    {
        guard let cache else {
            let (database, problems) = load(fixture, settings)
            return (database, problems, .loaded)
        }
        return InformixFixtureCache(files: cache).database(of: fixture, settings) { load(fixture, settings) }
    }

    /// A database made from the fixture file, and every problem met on the way (file:line).
    static func load(_ fixture: URL, _ settings: DatabaseSettings) -> (InformixDatabase, [InformixFixtureError]) {
        var problems: [InformixFixtureError] = []
        let database: InformixDatabase
        do {
            database = try InformixDatabase(settings: settings)
        } catch {
            fatalError("informix: cannot create an empty database: \(error.message)")
        }
        guard let data = FileManager.default.contents(atPath: fixture.path) else {
            problems.append(InformixFixtureError(file: fixture.path, line: 0, message: "missing: the database has no tables"))
            return (database, problems)
        }
        for statement in FixtureScript.statements(String(decoding: data, as: UTF8.self)) {
            do {
                _ = try database.execute(statement.sql, call: .execDirect)
            } catch {
                problems.append(InformixFixtureError(file: fixture.path, line: statement.line, message: error.message))
            }
        }
        return (database, problems)
    }
}

/// The statements of a fixture SQL file, each with the line it starts on.
enum FixtureScript {
    static func statements(_ text: String) -> [(sql: String, line: Int)] {
        guard let tokens = try? SQLTokenizer.tokenize(text) else { return [(text, 1)] }
        let bytes = Array(text.utf8)
        var statements: [(sql: String, line: Int)] = []
        var start: Int?
        var depth = 0
        func close(at end: Int) {
            guard let first = start else { return }
            let line = bytes[..<first].reduce(1) { $1 == UInt8(ascii: "\n") ? $0 + 1 : $0 }
            statements.append((String(decoding: bytes[first..<end], as: UTF8.self), line))
            start = nil
        }
        for token in tokens {
            if token.isSymbol(";") && depth <= 0 {
                close(at: token.offset)
                continue
            }
            if token.isSymbol("(") { depth += 1 }
            if token.isSymbol(")") { depth -= 1 }
            if start == nil { start = token.offset }
        }
        close(at: bytes.count)
        return statements
    }
}
