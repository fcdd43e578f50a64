import Dispatch
import Foundation
import HTTPServer
import MockCore
import Synchronization

/// The fixture database, which every new or reset scope's database is copied from. Its
/// connection is opened without SQLite's own mutex (`SQLITE_OPEN_NOMUTEX`), and scopes are
/// restored on several threads at once: every copy takes the lock.
final class TemplateDatabase: Sendable {
    private let database: Locked<InformixDatabase>
    /// The tables' definitions, for reports (plain values, read without the lock).
    let definitions: [String: TableDefinition]

    init(_ database: InformixDatabase) {
        self.database = Locked(database)
        definitions = database.definitions
    }

    /// Makes `target` a copy of the fixture.
    func restore(_ target: InformixDatabase) throws(InformixError) {
        try database.withLock { (template) throws(InformixError) in try target.restore(from: template) }
    }
}

/// One scope's database and the serial queue that owns it: the database is only touched on
/// that queue. Made on the scope's first request; the database is opened (copied from the
/// fixture, or read from the data directory) by the first statement.
final class ScopeDatabase: ScopeState, @unchecked Sendable {
    /// The scope's name.
    let scope: String
    let queue: DispatchQueue
    /// In the data directory, when there is one.
    let file: URL?
    private let cache: AnswerCache
    /// The database's memory after its last change, for the scope list.
    let bytes = Atomic<Int>(0)
    var database: InformixDatabase?
    var needsRestore = false

    init(scope: String, cache: AnswerCache, file: URL?) {
        self.scope = scope
        self.cache = cache
        self.file = file
        // On the shared pool, not an overcommitting queue of its own: a hundred scopes busy at once
        // would otherwise get a thread each, every one with its own malloc arena and cache, and
        // that memory stays after the scopes have gone.
        queue = DispatchQueue(label: "understudy.informix.\(scope)", target: .global())
    }

    /// Back to the fixture: queued before any request that comes after the reset's answer.
    func reset() {
        queue.async { self.needsRestore = true }
    }

    /// The scope is gone: its database closes, its cached answers and its file go.
    func discard() {
        queue.async { [self] in
            database = nil
            cache.forget(scope: scope)
            if let file { try? FileManager.default.removeItem(at: file) }
        }
    }

    var estimatedBytes: Int { bytes.load(ordering: .relaxed) }

    func measure(_ database: InformixDatabase) {
        bytes.store(database.memoryUsed, ordering: .relaxed)
    }
}
