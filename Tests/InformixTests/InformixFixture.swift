import Foundation
import HTTPServer

@testable import Informix

/// The shipped `stubs/informix` database, loaded once; each test works on its own copy.
enum InformixFixture {
    static let directory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("stubs/informix")

    private static let template = Locked<TemplateBox?>(nil)

    private final class TemplateBox: @unchecked Sendable {
        let database: InformixDatabase
        init(_ database: InformixDatabase) { self.database = database }
    }

    /// A fresh copy of the fixture database, with `settings` for its session.
    static func database(_ settings: DatabaseSettings = DatabaseSettings()) throws -> InformixDatabase {
        let copy = try InformixDatabase(settings: settings, path: ":memory:")
        try template.withLock { template in
            if template == nil {
                let (database, problems) = FixtureDatabase.load(directory.appendingPathComponent("stores_demo.sql"), DatabaseSettings())
                precondition(problems.isEmpty, "the fixture does not load: \(problems)")
                template = TemplateBox(database)
            }
            try copy.restore(from: template!.database)
        }
        return copy
    }
}

extension InformixDatabase {
    /// Every row of a query, as PDO would hand the values to PHP (nil for NULL).
    func strings(_ sql: String, call: ODBCCall = .prepare) throws -> [[String?]] {
        let result = try execute(sql, call: call)
        return result.rows.map { row in
            zip(row, result.columns).map { value, column in
                let value = PDOValue(value, type: column.type, dateOutput: .iso)
                return value == .stream ? "(stream)" : value.phpString
            }
        }
    }

    /// The column labels of a query.
    func labels(_ sql: String) throws -> [String] {
        try execute(sql, call: .prepare).columns.map(\.name)
    }

    /// The Informix error a statement fails with, nil when it succeeds.
    func failure(_ sql: String, call: ODBCCall = .execDirect) -> PDOError? {
        do {
            _ = try execute(sql, call: call)
            return nil
        } catch {
            return error
        }
    }

    func code(_ sql: String) -> Int? { failure(sql)?.error.code }
}
