// Module Lotus: the Lotus Connections 2.5 Atom APIs of seed 004 — News (the public updates
// feed and its filters), Profiles, Blogs and Search — from editable fixtures in stubs/lotus/,
// with Basic authentication, conditional GET and writes undone by POST /__admin/reset.

import Foundation
import HTTPServer
import Logging
import MockCore

/// The Connections components at `/news`, `/profiles`, `/blogs`, `/search` (and under each
/// configured prefix), answered by `LotusConnections` once the fixtures are loaded.
public final class LotusBackend: Backend {
    public let name = "lotus"
    public let mounts: [String]

    /// The components over the people, blogs and stories, loaded on a thread of their own
    /// (requests wait for them).
    private let loaded = BackgroundLoad<LotusConnections>()
    /// Rendered answers of every scope, under one cap.
    private let cache: AnswerCache
    /// Mount prefixes with their trailing slash, longest first.
    private let prefixes: [String]

    public var isReady: Bool { loaded.isLoaded }

    public var report: BackendReport {
        var counts: [(kind: String, count: Int)] = []
        if let fixtures = loaded.value?.directory.fixtures {
            counts = [
                ("people", fixtures.people.count), ("blogs", fixtures.blogs.count),
                ("entries", fixtures.blogs.reduce(0) { $0 + $1.entries.count }), ("stories", fixtures.stories.count),
            ]
        }
        return BackendReport(fixtures: counts, cache: cache.statistics)
    }

    /// Loads `directory` (normally `stubs/lotus`) in the background; problems are logged with
    /// their file and place, and the rest is served. The settings (which say the mounts) are read
    /// at once.
    public init(directory: URL, logger: Logger = Logger(label: "understudy")) {
        let settings = LotusSettings.load(from: directory, emulator: "lotus", logger: logger)
        let cache = AnswerCache(maxEntries: settings.responseCache, maxBytes: settings.responseCacheBytes)
        self.cache = cache
        let prefixes = settings.prefixes.sorted { $0.count > $1.count }.map { $0 + "/" }
        self.prefixes = prefixes
        mounts = ([""] + settings.prefixes).flatMap { prefix in LotusConnections.components.map { prefix + $0 } }
        let scopes = ScopeKey { scope in LotusScope(name: scope.name, cache: cache) }
        loaded.start {
            let (fixtures, problems) = LotusFixtures.load(directory)
            for problem in problems { logger.warning("lotus: \(problem)") }
            return LotusConnections(settings: settings, prefixes: prefixes, directory: LotusDirectory(fixtures), scopes: scopes, cache: cache)
        }
    }

    /// Every problem with the folder's files, for `understudy check`.
    public static func check(directory: URL) -> [LotusFixtureError] {
        LotusSettings.problems(in: directory) + LotusFixtures.load(directory).1
    }

    public func handle(_ request: Request, _ context: RequestContext) -> Reply {
        guard let connections = loaded.value else {
            guard LotusConnections.component(of: request.path, prefixes: prefixes) != nil else { return .decline }
            return loaded.deferredReply { $0.handle(request, context) }
        }
        return connections.handle(request, context)
    }
}
