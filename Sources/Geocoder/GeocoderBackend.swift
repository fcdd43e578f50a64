import Foundation
import HTTPServer
import Logging
import MockCore

/// The geocoding web service: `GET <mount>/json` and `<mount>/xml` (mount `/maps/api/geocode` by
/// default), answered by `GeocodingService` from the gazetteer and the user's places in
/// `stubs/geocoder/`. Every status comes back with HTTP 200, as Google sends it.
public final class GeocoderBackend: Backend {
    public let name = "geocoder"
    public let mounts: [String]
    /// `<mount>/json` and `<mount>/xml` of every mount.
    private let formats: [String: GeocodingService.Format]
    /// The service over the gazetteer, loaded on a thread of its own (geocoding requests wait for it).
    private let loaded = BackgroundLoad<GeocodingService>()

    /// Loads `directory` (normally `stubs/geocoder`) in the background; problems are logged and
    /// the rest served. `gazetteer`, when given, is used at once instead of the folder's CSV files;
    /// else their index is taken from `cache` when it has it (and put there when not).
    public init(directory: URL, gazetteer: Gazetteer? = nil, cache: GazetteerCache? = .user, logger: Logger = Logger(label: "understudy")) {
        let settings = GeocoderSettings.load(from: directory, emulator: "geocoder", logger: logger)
        mounts = settings.mounts
        formats = Dictionary(
            settings.mounts.flatMap { [($0 + "/json", GeocodingService.Format.json), ($0 + "/xml", .xml)] },
            uniquingKeysWith: { first, _ in first })
        if let gazetteer {
            loaded.finish(GeocodingService(gazetteer: gazetteer, directory: directory, settings: settings, logger: logger))
        } else {
            loaded.start {
                let started = ContinuousClock.now
                let (gazetteer, source) = Gazetteer.load(directory: directory, cache: cache)
                for problem in gazetteer.problems { logger.warning("geocoder: \(problem)") }
                let counts = gazetteer.counts
                let how =
                    switch source {
                    case .mapped(let path): "mapped from \(path)"
                    case .indexedAndCached(let path): "indexed and cached in \(path)"
                    case .indexed: "indexed"
                    }
                logger.info(
                    "geocoder: \(counts.postalCodes) postal codes, \(counts.localities) towns, \(counts.states) regions, \(counts.countries) countries \(how) in \(ContinuousClock.now - started)"
                )
                return GeocodingService(gazetteer: gazetteer, directory: directory, settings: settings, logger: logger)
            }
        }
    }

    public var isReady: Bool { loaded.isLoaded }

    public var report: BackendReport {
        loaded.value?.report ?? BackendReport(fixtures: [("user places", 0)], cache: AnswerCache(maxEntries: 0).statistics)
    }

    /// The gazetteer, once loaded.
    public var gazetteer: Gazetteer? { loaded.value?.gazetteer }

    /// Every problem with the folder's files, for `understudy check`, which also leaves the
    /// gazetteer's index in `cache` for the next start.
    public static func check(directory: URL, cache: GazetteerCache? = .user) -> [GazetteerError] {
        let (gazetteer, _) = Gazetteer.load(directory: directory, cache: cache)
        var problems = gazetteer.problems + GeocoderSettings.problems(in: directory)
        do {
            _ = try UserPlaces(file: directory.appendingPathComponent("places.json"), gazetteer: gazetteer)
        } catch {
            problems.append(error)
        }
        return problems
    }

    /// Resetting `default` reads the editable files again (they are shared by every scope); each
    /// scope's rate-limit counters are reset with the scope's state.
    public func reset(scope: StateScope) {
        if scope.isDefault { loaded.value?.reloadEditable() }
    }

    public func handle(_ request: Request, _ context: RequestContext) -> Reply {
        guard request.method == .get || request.method == .head, let format = formats[request.path] else { return .decline }
        guard let service = loaded.value else { return loaded.deferredReply { .response($0.answer(request, context, format)) } }
        return .response(service.answer(request, context, format))
    }
}
