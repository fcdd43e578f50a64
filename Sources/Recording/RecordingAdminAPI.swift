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
public final class RecordingAdminAPI: Backend, AdminRoutesProvider, JournalExporter {
    public let name = "recordings-admin"

    public var adminRoutes: [AdminRoute] { Self.endpoints.routes(servedBy: self) }

    public static let endpoints: [AdminEndpoint<RecordingAdminAPI>] = [
        AdminEndpoint(
            "/__admin/recordings/start", "record what no user stub answers from `targetBaseUrl`",
            [.post: { api, call in .response(api.start(call.request)) }], input: [.post: .body(startSchema)]),
        AdminEndpoint("/__admin/recordings/stop", "the mappings recorded, replayed from then on", [.post: { api, _ in .response(api.stop()) }]),
        AdminEndpoint(
            "/__admin/recordings/snapshot", "the mappings recorded so far, recording going on",
            [.post: { api, _ in .response(RecordingAdminAPI.mappings(api.proxy.snapshot)) }]),
        AdminEndpoint(
            "/__admin/recordings/status", "`NeverStarted`, `Recording` or `Stopped`",
            [.get: { api, _ in .response(.json(JSONValue.object([("status", .string(api.proxy.status.rawValue))]).serialized)) }]),
    ]

    /// What `POST /__admin/recordings/start` reads (WireMock's record spec, the part Understudy keeps).
    static let startSchema = InputSchema.object(
        "What to record",
        [
            ("targetBaseUrl", InputSchema.string("the real backend, an http:// or https:// URL", minLength: 8)),
            ("captureHeaders", InputSchema.object("header name → {} : headers the recorded mappings match on")),
            ("repeatsAsScenarios", InputSchema.boolean("a request answered differently each time becomes a scenario")),
            ("redact", InputSchema.array(of: InputSchema.string("a query parameter or header name"), "values replaced in what is saved")),
            ("ignoredQueryParameters", InputSchema.array(of: InputSchema.string("a query parameter name"), "left out of the matching")),
            ("persist", InputSchema.boolean("written under stubs/recorded (true by default)")),
        ], required: ["targetBaseUrl"])

    public let exportFormats = ["har"]

    /// The journal as HAR, with a recording's redaction (`HARExport`).
    public func export(_ entries: [(entry: JournalEntry, stub: JSONValue?)], sessions: [ChannelSession], format: String) -> Response {
        .json(HARExport(options: RecordingOptions()).log(entries, sessions: sessions).serialized)
    }

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

    private func stop() -> Response {
        guard let mappings = proxy.stop() else { return Self.error(400, "Not recording.") }
        replay?.reloadFiles()
        return Self.mappings(mappings)
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
