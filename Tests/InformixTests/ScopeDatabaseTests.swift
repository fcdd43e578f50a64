import Foundation
import MockCore
import Testing
import UnderstudyTesting

@testable import Informix

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Every scope's database is a copy of the fixture, made on the scope's first statement. The
/// fixture's connection has no mutex of its own, and parallel CI workers start their scopes at
/// the same moment: the copies must not share it at once, and no scope may write into it. On a
/// socket, so that the server's worker loops answer them at the same time.
@Suite struct ScopeDatabaseTests {
    @Test func manyScopesStartedAtOnceEachGetTheirOwnCopy() async throws {
        let server = try TestServer.start(backends: [InformixBackend(directory: InformixFixture.directory)])
        defer { server.stop() }
        let names = (0..<24).map { String(format: "worker-%02d", $0) }  // none a prefix of another
        let answers = try await withThrowingTaskGroup(of: (String, String).self) { group in
            for name in names {
                group.addTask {
                    let headers = ["X-Understudy-Scope": name, "Content-Type": "application/x-www-form-urlencoded"]
                    let insert = "sql_stmt=INSERT+INTO+state+(code,sname)+VALUES+('QQ','\(name)')&tableName=state"
                    _ = try await server.send("POST", "/informix/generic.php", headers: headers, body: Data(insert.utf8))
                    let select = "sql_stmt=SELECT+sname+FROM+state+WHERE+code='QQ'&tableName=state"
                    let (body, _) = try await server.send("POST", "/informix/generic.php", headers: headers, body: Data(select.utf8))
                    return (name, String(decoding: body, as: UTF8.self))
                }
            }
            return try await group.reduce(into: [:]) { $0[$1.0] = $1.1 }
        }
        for name in names {
            let answer = try #require(answers[name])
            #expect(answer.contains(name), "\(name)'s own row")
            #expect(names.filter { answer.contains($0) } == [name], "\(name) sees no other scope's row: \(answer.prefix(400))")
        }
        // The fixture itself is untouched: the default scope has none of those rows.
        let select = ServiceTests.form([("sql_stmt", "SELECT sname FROM state WHERE code='QQ'"), ("tableName", "state")])
        let (body, _) = try await server.send(
            "POST", "/informix/generic.php", headers: ["Content-Type": "application/x-www-form-urlencoded"], body: Data(select.utf8))
        let shared = String(decoding: body, as: UTF8.self)
        #expect(!names.contains { shared.contains($0) })
    }
}
