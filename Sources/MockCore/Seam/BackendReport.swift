import JSON

/// What a backend says about itself outside the request path: what it has loaded (for the
/// start-up summary and the dashboard) and what it has counted (for the metrics). Read only when
/// someone asks, so counting stays where the backend already keeps its state.
public struct BackendReport: Sendable {
    /// What the backend loaded, by kind, e.g. `("places", 1200)`, in the order to show them.
    public var fixtures: [(kind: String, count: Int)] = []
    /// Its response cache's lookups, when it has one.
    public var cache: AnswerCache.Statistics?
    /// For a recorder: whether it is recording and how many exchanges it has recorded.
    public var recorder: RecorderCounts?

    public init(fixtures: [(kind: String, count: Int)] = [], cache: AnswerCache.Statistics? = nil, recorder: RecorderCounts? = nil) {
        self.fixtures = fixtures
        self.cache = cache
        self.recorder = recorder
    }

    public struct RecorderCounts: Sendable {
        public var isRecording: Bool
        /// Exchanges recorded since the server started.
        public var recorded: Int

        public init(isRecording: Bool, recorded: Int) {
            self.isRecording = isRecording
            self.recorded = recorded
        }
    }

    /// `"1200 places, 3 tables"`, or "" when nothing is loaded.
    public var fixtureSummary: String {
        fixtures.map { "\($0.count) \($0.kind)" }.joined(separator: ", ")
    }

    /// As JSON for `GET /__admin/backends`.
    var json: [(String, JSONValue)] {
        var fields: [(String, JSONValue)] = [("fixtures", .object(fixtures.map { ($0.kind, .int($0.count)) }))]
        if let cache {
            fields.append(("cache", .object([("hits", .int(cache.hits)), ("misses", .int(cache.misses))])))
        }
        if let recorder {
            fields.append(("recorder", .object([("recording", .bool(recorder.isRecording)), ("recorded", .int(recorder.recorded))])))
        }
        return fields
    }
}
