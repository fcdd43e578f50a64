@testable import Informix
import Testing

@Suite struct DatabaseTests {
    @Test func anEmptyDatabaseHasTheCatalog() throws {
        let database = try InformixDatabase(settings: DatabaseSettings())
        let result = try database.execute("SELECT tabname, tabid FROM systables WHERE tabid < 100 ORDER BY tabid", call: .prepare)
        #expect(result.rows.first == [.text("systables"), .integer(1)])
    }
}
