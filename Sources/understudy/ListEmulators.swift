import ArgumentParser
import JSON
import MockCore

/// `understudy emulators`: the registered emulators, as text, or with `--json` as tools read them
/// (the load benchmark's emulator scenarios come from here).
struct ListEmulators: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "emulators", abstract: "List the emulators this build serves (--json: with their bench scenarios).")

    @Flag(help: "Print JSON: each emulator's name, summary, checked files and bench scenarios.")
    var json = false

    func run() {
        print(json ? Self.json(Emulator.registered).serialized : Emulator.listing)
    }

    /// `{"emulators": [{"name": …, "summary": …, "checkedFiles": …, "benchmarks": [{"name": …, "method": …, "path": …,
    /// "formBody": …, "uncachedVariant": …, "sameBytesVariant": …, "about": …}]}]}`.
    static func json(_ emulators: [Emulator]) -> JSONValue {
        .object([
            (
                "emulators",
                .array(
                    emulators.map { emulator in
                        .object([
                            ("name", .string(emulator.name)),
                            ("summary", .string(emulator.summary)),
                            ("checkedFiles", .string(emulator.checkedFiles)),
                            (
                                "benchmarks",
                                .array(
                                    emulator.benchmarks.map { benchmark in
                                        .object([
                                            ("name", .string(benchmark.name)),
                                            ("method", .string(benchmark.method)),
                                            ("path", .string(benchmark.path)),
                                            ("formBody", benchmark.formBody.map(JSONValue.string) ?? .null),
                                            ("uncachedVariant", .bool(benchmark.uncachedVariant)),
                                            ("sameBytesVariant", .bool(benchmark.sameBytesVariant)),
                                            ("about", .string(benchmark.about)),
                                        ])
                                    })
                            ),
                        ])
                    })
            )
        ])
    }
}
