// Module Informix: the Informix PHP SQL web services of seed 003 — a client POSTs `sql_stmt`
// and `tableName`, PHP runs them through PDO_INFORMIX and answers rows as SimpleXML — emulated
// over SQLite with Informix's dialect, system catalog, SERIAL columns and error texts.

import Dispatch
import Foundation
import HTTPServer
import Logging
import MockCore
import Synchronization

/// The PHP services of `stubs/informix/`, each at its path (POST form `sql_stmt`, `tableName`),
/// on a `stores_demo` database made from `stores_demo.sql`. Every scope gets its own copy of
/// the database and its own queue: statements run off the event loops, one at a time per
/// scope, and `POST /__admin/reset` restores the fixture.
public final class InformixBackend: Backend {
    public let name = "informix"
    public let mounts: [String]

    private let settings: InformixSettings
    private let scripts: PHPScripts
    private let services: [String: PHPScripts.Service]
    private let logger: Logger
    /// The PHP errors a client's statements cause, as the real server logs them: as many as it
    /// sends, and holding its text.
    private let phpErrors = LogThrottle { count, seconds in "informix: \(count) more PHP error(s) in the last \(seconds) s" }
    /// The fixture database every scope starts from, once loaded.
    private let template = BackgroundLoad<TemplateDatabase>()
    /// Each scope's database and queue.
    private let databases: ScopeKey<ScopeDatabase>
    /// Answers of read-only requests, of every scope, under one byte cap.
    private let cache: ScopedResponseCache

    public var report: BackendReport {
        let tables = template.value?.definitions.values.filter { !$0.isCatalog }.count
        return BackendReport(fixtures: [("tables and views", tables ?? 0), ("services", services.count)], cache: cache.statistics)
    }

    /// Loads `directory` (normally `stubs/informix`) in the background; problems are logged
    /// with their file and line and the rest is served.
    /// The fixture database is copied from `fixtureCache` when it holds one made from the same
    /// file (and put there when not).
    public init(directory: URL, dataDirectory: URL? = nil, fixtureCache: FixtureCache? = .user, logger: Logger = Logger(label: "understudy")) {
        let settings = InformixSettings.load(from: directory, emulator: "informix", logger: logger)
        self.settings = settings
        let cache = ScopedResponseCache(maxEntries: settings.responseCache, maxBytes: settings.responseCacheBytes)
        self.cache = cache
        self.logger = logger
        databases = ScopeKey { scope in
            ScopeDatabase(scope: scope.name, cache: cache, file: dataDirectory?.appendingPathComponent("informix-\(scope.name).sqlite"))
        }
        scripts = PHPScripts(
            runtime: settings.runtime, columnCase: settings.columnCase, dateOutput: settings.dateOutput,
            rootElement: settings.rootElement)
        services = Dictionary(settings.services.map { ($0.value, $0.key) }, uniquingKeysWith: { first, _ in first })
        mounts = Array(Set(settings.services.values)).sorted()
        let fixture = directory.appendingPathComponent("stores_demo.sql")
        let databaseSettings = settings.database
        template.start {
            let started = ContinuousClock.now
            let (database, problems, source) = Self.load(fixture, databaseSettings, cache: fixtureCache)
            for problem in problems { logger.warning("informix: \(problem)") }
            let tables = database.definitions.values.filter { !$0.isCatalog }.count
            let how =
                switch source {
                case .copied(let path): "copied from \(path)"
                case .loadedAndCached(let path): "loaded and cached in \(path)"
                case .loaded: "loaded"
                }
            logger.info("informix: \(tables) tables and views \(how) in \(ContinuousClock.now - started)")
            return TemplateDatabase(database)
        }
    }

    public var isReady: Bool { template.isLoaded }

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

    /// Every problem with the folder's files, for `understudy check`, which also leaves the
    /// fixture database in `cache` for the next start.
    public static func check(directory: URL, cache: FixtureCache? = .user) -> [InformixFixtureError] {
        let (settings, problem) = InformixSettings.read(from: directory)
        return (problem.map { [$0] } ?? []) + load(directory.appendingPathComponent("stores_demo.sql"), settings.database, cache: cache).1
    }

    // MARK: Requests

    public func handle(_ request: Request, _ context: RequestContext) -> Reply {
        guard let service = services[request.path] else { return .decline }
        // PHP fills $_POST only from a POST with a form body.
        let isForm = request.headers["Content-Type"]?.lowercased().hasPrefix("application/x-www-form-urlencoded") ?? false
        let post = request.method == .post && isForm ? PHPForm.parse(request.body, runtime: settings.runtime) : [:]
        let path = request.path
        let holder = context.scope[databases]
        let work: @Sendable () -> Response = { [self] in
            withDatabase(holder) { database in respond(service, path, post, holder.scope, database) }
        }
        guard isReady else {
            // The fixture is still loading: wait on the loop's timers, not on a worker thread.
            return .deferred { reply in self.template.whenLoaded(reply) { _ in reply.compute(on: holder.queue, work) } }
        }
        return .computed(on: holder.queue, work)
    }

    /// Runs the script, or answers from the scope's cache when the same request met the same data.
    private func respond(
        _ service: PHPScripts.Service, _ path: String, _ post: [String: String], _ scope: String,
        _ database: InformixDatabase
    ) -> Response {
        let key = "\(path)\u{0}\(post["sql_stmt"] ?? "\u{1}")\u{0}\(post["tableName"] ?? "\u{1}")"
        if let cached = cache.response(scope: scope, key: key, generation: database.changeCount) { return cached }
        let before = database.changeCount
        let page = scripts.run(service, path: path, post: post, database: database)
        if let error = page.loggedError {
            for line in phpErrors.lines({ "informix: \(LogText.escaped(error, limit: 2000))" }) { logger.warning("\(line)") }
        }
        let response = Response(
            status: page.status, headers: ["Content-Type": page.contentType, "X-Powered-By": settings.runtime.poweredBy],
            body: ResponseBody(shared: SharedBytes(page.body)))
        if database.changeCount == before, PHPScripts.isRepeatable(post) {
            cache.store(response, bodyBytes: page.body.count, scope: scope, key: key, generation: before)
        }
        return response
    }

    /// Runs `body` on the scope's database (on its queue), opening or restoring it first.
    /// Runs `body` on the scope's database, made first when the scope has none yet (or was reset).
    /// A database that cannot be made is a `500` that says why: never the fixture itself, which
    /// the scope would then write into.
    private func withDatabase(_ holder: ScopeDatabase, _ body: (InformixDatabase) -> Response) -> Response {
        // Requests are handed here only once the fixture has loaded.
        guard let template = template.value else { preconditionFailure("informix: a request ran before the fixture loaded") }
        if holder.database == nil || holder.needsRestore {
            let restore = holder.database != nil || holder.needsRestore
            holder.database = nil
            do {
                holder.database = try open(holder, from: template, restore: restore)
            } catch {
                logger.warning("informix: cannot make the database of scope \(holder.scope): \(error.message)")
                return .text("Understudy could not make the Informix database of scope \(holder.scope): \(error.message)\n", status: 500)
            }
            holder.needsRestore = false
            // A new database counts its changes from 0 again: answers of the old one must go.
            cache.forget(scope: holder.scope)
        }
        guard let database = holder.database else { preconditionFailure("informix: the scope's database was just opened") }
        let before = database.changeCount
        defer { if database.changeCount != before || holder.bytes.load(ordering: .relaxed) == 0 { holder.measure(database) } }
        return body(database)
    }

    /// The scope's database: in memory, or a file of the data directory (kept between runs
    /// unless `restore`), made a copy of the fixture when new. A file that cannot be used is
    /// logged, and the scope's database is made in memory instead.
    private func open(_ holder: ScopeDatabase, from template: TemplateDatabase, restore: Bool) throws(InformixError) -> InformixDatabase {
        if let file = holder.file {
            do throws(InformixError) {
                do {
                    try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
                } catch {
                    throw InformixError(
                        code: -329, sqlState: "IX000",
                        message: "cannot create \(file.deletingLastPathComponent().path): \(error.localizedDescription)")
                }
                let existed = FileManager.default.fileExists(atPath: file.path)
                let database = try InformixDatabase(settings: settings.database, path: file.path)
                if existed && !restore { try database.reloadDefinitions() } else { try template.restore(database) }
                return database
            } catch {
                logger.warning("informix: cannot open the database of scope \(holder.scope) in \(file.path): \(error.message); using memory")
            }
        }
        let database = try InformixDatabase(settings: settings.database, path: ":memory:")
        try template.restore(database)
        return database
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
