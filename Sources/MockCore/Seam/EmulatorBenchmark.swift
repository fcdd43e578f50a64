/// A request the load benchmark (`bench/run.py`, docs/performance.md) sends an emulator over and
/// over, with only that emulator's shipped folder under `--stubs`. Its name is the scenario's.
public struct EmulatorBenchmark: Sendable, Equatable {
    /// The scenario's name, e.g. "geocode-zip".
    public let name: String
    /// What the request stands for, for the reader of the figures.
    public let about: String
    /// Path and query.
    public let path: String
    /// Sent as an `application/x-www-form-urlencoded` POST when present, else a GET.
    public let formBody: String?
    /// Also measured as `<name>-uncached`, with the emulator's response cache off
    /// (`"responseCache": 0` in its config.json): every request works its answer out.
    public let uncachedVariant: Bool
    /// Also measured as `<name>-same-bytes`, against the C server answering the very bytes
    /// Understudy answers (the ceiling for that payload) instead of the fixed body.
    public let sameBytesVariant: Bool

    public init(name: String, about: String, path: String, formBody: String? = nil, uncachedVariant: Bool = true, sameBytesVariant: Bool = false) {
        self.name = name
        self.about = about
        self.path = path
        self.formBody = formBody
        self.uncachedVariant = uncachedVariant
        self.sameBytesVariant = sameBytesVariant
    }

    /// "POST" with a form body, else "GET".
    public var method: String { formBody == nil ? "GET" : "POST" }
}
