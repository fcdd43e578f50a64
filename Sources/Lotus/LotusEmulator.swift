import MockCore

extension Emulator {
    /// The Lotus Connections 2.5 Atom APIs over the people, blogs and stories in `stubs/lotus/`
    /// (docs/lotus.md).
    public static let lotus = Emulator(
        name: "lotus",
        summary: "Lotus Connections 2.5 Atom APIs (/news, /profiles, /blogs, /search)",
        checkedFiles: "the people, blogs and stories",
        benchmarks: [
            EmulatorBenchmark(
                name: "lotus-blogs", about: "The developerWorks sample app's feed: 30 blog stories of the public updates.",
                path: "/developerworks/mydeveloperworks/news/atom/stories/public?source=blogs&ps=30",
                sameBytesVariant: true)
        ],
        start: { LotusBackend(directory: $0.directory, logger: $0.logger) },
        check: { LotusBackend.check(directory: $0) })
}
