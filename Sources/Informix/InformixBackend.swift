// Module Informix: the Informix PHP SQL web services of seed 003 — a client POSTs `sql_stmt`
// and `tableName`, PHP runs them through PDO_INFORMIX and answers rows as SimpleXML — emulated
// over SQLite with Informix's dialect, system catalog, SERIAL columns and error texts.

import Foundation
import HTTPServer
import Logging
import MockCore

/// The PHP services of `stubs/informix/`, each at its path (POST form `sql_stmt`, `tableName`),
/// on a `stores_demo` database made from `stores_demo.sql`, answered by `InformixService` once
/// the fixture is loaded.
public final class InformixBackend: Backend {
    public let name = "informix"
    public let mounts: [String]

    /// The services over the fixture database, loaded on a thread of their own (requests wait).
    private let loaded = BackgroundLoad<InformixService>()
    /// The service at each path, known before the load.
    private let services: [String: PHPScripts.Service]
    /// Answers of read-only requests, of every scope, under one byte cap.
    private let cache: AnswerCache

    public var report: BackendReport {
        let tables = loaded.value?.template.definitions.values.filter { !$0.isCatalog }.count
        return BackendReport(fixtures: [("tables and views", tables ?? 0), ("services", services.count)], cache: cache.statistics)
    }

    /// Loads `directory` (normally `stubs/informix`) in the background; problems are logged
    /// with their file and line and the rest is served.
    /// The fixture database is copied from `fixtureCache` when it holds one made from the same
    /// file (and put there when not).
    public init(directory: URL, dataDirectory: URL? = nil, fixtureCache: FixtureCache? = .user, logger: Logger = Logger(label: "understudy")) {
        let settings = InformixSettings.load(from: directory, emulator: "informix", logger: logger)
        let cache = AnswerCache(maxEntries: settings.responseCache, maxBytes: settings.responseCacheBytes)
        self.cache = cache
        let databases = ScopeKey { scope in
            ScopeDatabase(scope: scope.name, cache: cache, file: dataDirectory?.appendingPathComponent("informix-\(scope.name).sqlite"))
        }
        let services = Dictionary(settings.services.map { ($0.value, $0.key) }, uniquingKeysWith: { first, _ in first })
        self.services = services
        mounts = Array(Set(settings.services.values)).sorted()
        let fixture = directory.appendingPathComponent("stores_demo.sql")
        loaded.start {
            let started = ContinuousClock.now
            let (database, problems, source) = FixtureDatabase.load(fixture, settings.database, cache: fixtureCache)
            for problem in problems { logger.warning("informix: \(problem)") }
            let tables = database.definitions.values.filter { !$0.isCatalog }.count
            let how =
                switch source {
                case .copied(let path): "copied from \(path)"
                case .loadedAndCached(let path): "loaded and cached in \(path)"
                case .loaded: "loaded"
                }
            logger.info("informix: \(tables) tables and views \(how) in \(ContinuousClock.now - started)")
            return InformixService(
                settings: settings, services: services, template: TemplateDatabase(database), databases: databases, cache: cache, logger: logger)
        }
    }

    public var isReady: Bool { loaded.isLoaded }

    /// Every problem with the folder's files, for `understudy check`, which also leaves the
    /// fixture database in `cache` for the next start.
    public static func check(directory: URL, cache: FixtureCache? = .user) -> [InformixFixtureError] {
        let (settings, problem) = InformixSettings.read(from: directory)
        return (problem.map { [$0] } ?? [])
            + FixtureDatabase.load(directory.appendingPathComponent("stores_demo.sql"), settings.database, cache: cache).1
    }

    public func handle(_ request: Request, _ context: RequestContext) -> Reply {
        guard let service = loaded.value else {
            guard services[request.path] != nil else { return .decline }
            // The fixture is still loading: wait on the loop's timers, not on a worker thread.
            return loaded.deferredReply { $0.handle(request, context) }
        }
        return service.handle(request, context)
    }
}
