import Commerce
import Foundation
import Geocoder
import Informix
import Lotus
import MockCore

extension Emulator {
    /// Every emulator this build serves, one line each: `serve`, `check`, the help text and
    /// `understudy emulators` (which bench/run.py reads) derive from this list.
    static let registered: [Emulator] = [
        .geocoder,
        .informix,
        .lotus,
        .commerce,
    ]

    /// The registered emulators whose folder `stubs` has: what `serve` starts and `check` checks.
    static func present(in stubs: URL) -> [Emulator] {
        registered.filter { FileManager.default.fileExists(atPath: $0.directory(in: stubs).path) }
    }

    /// The registered emulators, a line each: `  geocoder   Google's geocoding web service …`.
    static var listing: String {
        let width = registered.map(\.name.count).max() ?? 0
        return registered.map { "  " + $0.name + String(repeating: " ", count: width - $0.name.count + 2) + $0.summary }.joined(separator: "\n")
    }
}
