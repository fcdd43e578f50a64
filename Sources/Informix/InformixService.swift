import Dispatch
import Foundation
import HTTPServer
import Logging
import MockCore

/// The PHP services over the fixture database (what `InformixBackend` loads). Every scope gets its
/// own copy of the database and its own queue: statements run off the event loops, one at a time
/// per scope, and `POST /__admin/reset` restores the fixture.
final class InformixService: Sendable {
    let settings: InformixSettings
    private let scripts: PHPScripts
    /// The service at each path.
    let services: [String: PHPScripts.Service]
    private let logger: Logger
    /// The PHP errors a client's statements cause, as the real server logs them: as many as it
    /// sends, and holding its text.
    private let phpErrors = LogThrottle { count, seconds in "informix: \(count) more PHP error(s) in the last \(seconds) s" }
    /// The fixture database every scope starts from.
    let template: TemplateDatabase
    /// Each scope's database and queue.
    private let databases: ScopeKey<ScopeDatabase>
    /// Answers of read-only requests, of every scope, under one byte cap.
    private let cache: AnswerCache

    /// `services`: the service at each path the settings mount (the backend's).
    init(
        settings: InformixSettings, services: [String: PHPScripts.Service], template: TemplateDatabase, databases: ScopeKey<ScopeDatabase>,
        cache: AnswerCache, logger: Logger
    ) {
        self.settings = settings
        self.services = services
        self.template = template
        self.databases = databases
        self.cache = cache
        self.logger = logger
        scripts = PHPScripts(
            runtime: settings.runtime, columnCase: settings.columnCase, dateOutput: settings.dateOutput,
            rootElement: settings.rootElement)
    }

    // MARK: Requests

    func handle(_ request: Request, _ context: RequestContext) -> Reply {
        guard let service = services[request.path] else { return .decline }
        // PHP fills $_POST only from a POST with a form body.
        let isForm = request.headers["Content-Type"]?.lowercased().hasPrefix("application/x-www-form-urlencoded") ?? false
        let post = request.method == .post && isForm ? PHPForm.parse(request.body, runtime: settings.runtime) : [:]
        let path = request.path
        let holder = context.scope[databases]
        return .computed(on: holder.queue) { [self] in
            withDatabase(holder) { database in respond(service, path, post, holder.scope, database) }
        }
    }

    /// Runs the script, or answers from the scope's cache when the same request met the same data.
    private func respond(
        _ service: PHPScripts.Service, _ path: String, _ post: [String: String], _ scope: String,
        _ database: InformixDatabase
    ) -> Response {
        let key = "\(path)\u{0}\(post["sql_stmt"] ?? "\u{1}")\u{0}\(post["tableName"] ?? "\u{1}")"
        if let cached = cache.response(for: key, in: scope, generation: database.changeCount) { return cached }
        let before = database.changeCount
        let page = scripts.run(service, path: path, post: post, database: database)
        if let error = page.loggedError {
            for line in phpErrors.lines({ "informix: \(LogText.escaped(error, limit: 2000))" }) { logger.warning("\(line)") }
        }
        let response = Response(
            status: page.status, headers: ["Content-Type": page.contentType, "X-Powered-By": settings.runtime.poweredBy],
            body: ResponseBody(shared: SharedBytes(page.body)))
        if database.changeCount == before, PHPScripts.isRepeatable(post) {
            cache.store(response, for: key, in: scope, generation: before, bodyBytes: page.body.count)
        }
        return response
    }

    /// Runs `body` on the scope's database (on its queue), opening or restoring it first.
    /// Runs `body` on the scope's database, made first when the scope has none yet (or was reset).
    /// A database that cannot be made is a `500` that says why: never the fixture itself, which
    /// the scope would then write into.
    private func withDatabase(_ holder: ScopeDatabase, _ body: (InformixDatabase) -> Response) -> Response {
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
