import Foundation
import HTTPServer
import JSON
import MockCore
import Stubs

/// WireMock's recording API: `POST /__admin/recordings/start` with `targetBaseUrl` (and
/// `captureHeaders`, `persist`, `repeatsAsScenarios`; Understudy adds `redact` and
/// `ignoredQueryParameters`), `POST …/stop` and `…/snapshot` answering `{"mappings": […]}`,
/// `GET …/status`. A persisted recording is a new pack `stubs/recorded/recording-N`, replayed at
/// once.
public final class RecordingAdminAPI: Backend, AdminRoutesProvider {
    public let name = "recordings-admin"
    public let mounts = ["/__admin/recordings"]

    public var adminRoutes: [AdminRoute] { Self.routes }

    public static let routes = [
        AdminRoute(.post, path: "/__admin/recordings/start", "record what no user stub answers from `targetBaseUrl`"),
        AdminRoute(.post, path: "/__admin/recordings/stop", "the mappings recorded, replayed from then on"),
        AdminRoute(.post, path: "/__admin/recordings/snapshot", "the mappings recorded so far, recording going on"),
        AdminRoute(.get, path: "/__admin/recordings/status", "`NeverStarted`, `Recording` or `Stopped`"),
    ]
    public let tier = BackendTier.admin

    private let proxy: RecordingProxy
    /// `stubs/recorded`: where persisted recordings go.
    private let recordedDirectory: URL
    /// Replays recordings; reloaded when one stops.
    private let replay: StubEngine?

    public init(proxy: RecordingProxy, recordedDirectory: URL, replay: StubEngine?) {
        self.proxy = proxy
        self.recordedDirectory = recordedDirectory
        self.replay = replay
    }

    public func handle(_ request: Request, _ context: RequestContext) -> Reply {
        switch (request.method, request.path) {
        case (.post, "/__admin/recordings/start"): return .response(start(request))
        case (.post, "/__admin/recordings/stop"):
            guard let mappings = proxy.stop() else { return .response(Self.error(400, "Not recording.")) }
            replay?.reloadFiles()
            return .response(Self.mappings(mappings))
        case (.post, "/__admin/recordings/snapshot"): return .response(Self.mappings(proxy.snapshot))
        case (.get, "/__admin/recordings/status"):
            return .response(.json(JSONValue.object([("status", .string(proxy.status.rawValue))]).serialized))
        default: return .response(Self.error(404, "No such recordings resource: \(request.method.rawValue) \(request.path)"))
        }
    }

    private func start(_ request: Request) -> Response {
        guard proxy.status != .recording else { return Self.error(409, "Already recording.") }
        let json: JSONValue
        do {
            json = try JSONValue.parse(request.body)
        } catch {
            return Self.error(400, "The body is not JSON: \(error)")
        }
        guard let base = json["targetBaseUrl"]?.stringValue, let target = RecordingTarget(argument: base) else {
            return Self.error(400, "targetBaseUrl must be an http:// or https:// URL")
        }
        var options = RecordingOptions()
        options.matchHeaders = json["captureHeaders"]?.objectValue?.map(\.0) ?? []
        if case .bool(let repeats)? = json["repeatsAsScenarios"] { options.repeatsAsScenarios = repeats }
        if let redact = json["redact"]?.arrayValue?.compactMap(\.stringValue) { options.redactedParameters += redact }
        if let ignored = json["ignoredQueryParameters"]?.arrayValue?.compactMap(\.stringValue) { options.ignoredQueryParameters = ignored }
        var persist = true
        if case .bool(let flag)? = json["persist"] { persist = flag }
        let directory =
            persist
            ? nextRecordingDirectory()
            : FileManager.default.temporaryDirectory.appendingPathComponent("understudy-recording-\(UUID().uuidString)")
        proxy.start(targets: [target], store: RecordingStore(directory: directory, options: options))
        return .json("{}")
    }

    /// `stubs/recorded/recording-N` with the first free N.
    private func nextRecordingDirectory() -> URL {
        var number = 1
        while FileManager.default.fileExists(atPath: recordedDirectory.appendingPathComponent("recording-\(number)").path) { number += 1 }
        return recordedDirectory.appendingPathComponent("recording-\(number)")
    }

    private static func mappings(_ mappings: [JSONValue]) -> Response {
        .json(JSONValue.object([("mappings", .array(mappings))]).serialized)
    }

    /// WireMock's error shape.
    private static func error(_ status: Int, _ title: String) -> Response {
        .json(JSONValue.object([("errors", .array([.object([("code", .int(status)), ("title", .string(title))])]))]).serialized, status: status)
    }
}
