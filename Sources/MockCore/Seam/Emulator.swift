import Foundation
import Logging

/// An emulated backend as the executable registers it: its folder under `stubs/`, how to start it
/// from that folder, how to check the folder without serving it, and the requests the load
/// benchmark measures it by. Each emulator module exposes one (`Emulator.geocoder`, …); the
/// executable's list of them is the one place that names the emulators, and `serve`, `check`,
/// the help text and `bench/run.py` derive from it (docs/architecture.md).
public struct Emulator: Sendable {
    /// What an emulator starts from.
    public struct Context: Sendable {
        /// Its folder, `stubs/<name>`.
        public var directory: URL
        /// `serve --data-dir`: where state may outlive the process (nil: in memory only).
        public var dataDirectory: URL?
        public var logger: Logger

        public init(directory: URL, dataDirectory: URL? = nil, logger: Logger = Logger(label: "understudy")) {
            self.directory = directory
            self.dataDirectory = dataDirectory
            self.logger = logger
        }
    }

    /// The backend's name and its folder under `stubs/`, e.g. "geocoder".
    public let name: String
    /// One line for the help text: what it emulates (at most `maxSummaryLength` characters, so
    /// help lines stay under 80; a longer one stops the server at start, saying so).
    public let summary: String
    public static let maxSummaryLength = 68
    /// What `check` reads in the folder, for its help text, e.g. "the gazetteer, places and settings".
    public let checkedFiles: String
    /// The requests `bench/run.py` measures it by, on the shipped fixtures.
    public let benchmarks: [EmulatorBenchmark]
    private let start: @Sendable (Context) -> any Backend
    private let checkFolder: @Sendable (URL) -> [FixtureError]

    public init(
        name: String, summary: String, checkedFiles: String, benchmarks: [EmulatorBenchmark] = [],
        start: @escaping @Sendable (Context) -> any Backend, check: @escaping @Sendable (URL) -> [FixtureError]
    ) {
        // A registration that breaks the help's layout is the programmer's to fix, said at start.
        precondition(
            summary.count <= Self.maxSummaryLength && !summary.contains("\n"),
            "emulator \(name): its summary is one line of at most \(Self.maxSummaryLength) characters (serve --help), "
                + "not \(summary.count): \(summary)")
        self.name = name
        self.summary = summary
        self.checkedFiles = checkedFiles
        self.benchmarks = benchmarks
        self.start = start
        self.checkFolder = check
    }

    /// The backend serving `context.directory`; it may go on loading in the background (`isReady`).
    public func makeBackend(_ context: Context) -> any Backend { start(context) }

    /// Every problem with the files of `directory`, for `understudy check`.
    public func check(directory: URL) -> [FixtureError] { checkFolder(directory) }

    /// Its folder under `stubs`.
    public func directory(in stubs: URL) -> URL { stubs.appendingPathComponent(name) }
}
