import MockCore

extension Emulator {
    /// The Informix PHP SQL services over the `stores_demo` database in `stubs/informix/`
    /// (docs/informix.md); the only emulator that keeps state in `serve --data-dir`.
    public static let informix = Emulator(
        name: "informix",
        summary: "Informix PHP SQL services (/informix/generic.php, …) on stores_demo",
        checkedFiles: "the database script and configuration",
        benchmarks: [
            EmulatorBenchmark(
                name: "informix-customers",
                about: "The Informix demo app's call: a form POST of the statement, the whole table back as XML.",
                path: "/informix/generic.php", formBody: "sql_stmt=SELECT+*+FROM+customer&tableName=customer")
        ],
        start: { InformixBackend(directory: $0.directory, dataDirectory: $0.dataDirectory, logger: $0.logger) },
        check: { InformixBackend.check(directory: $0) })
}
