import Foundation
import WireFormat

/// Where emulators keep between runs what they make from their fixtures (the geocoder's gazetteer
/// image, Informix's database), so a start reads it instead of making it again. A file is named by
/// a checksum of everything it was made from: an edited fixture makes a new one. Parallel servers
/// may make the same file at once: each writes one of its own and renames it into place, so a
/// reader never sees half of one.
public struct FixtureCache: Sendable {
    public let directory: URL

    public init(directory: URL) {
        self.directory = directory
    }

    /// `UNDERSTUDY_CACHE_DIR`, else the user's cache folder (`$XDG_CACHE_HOME`, `~/.cache`, or
    /// `~/Library/Caches` on macOS) with `understudy` in it; nil when there is no such folder or
    /// `UNDERSTUDY_CACHE_DIR` is empty (no cache: fixtures are read at every start).
    public static var user: FixtureCache? {
        let environment = ProcessInfo.processInfo.environment
        if let configured = environment["UNDERSTUDY_CACHE_DIR"] {
            return configured.isEmpty ? nil : FixtureCache(directory: URL(fileURLWithPath: configured))
        }
        if let xdg = environment["XDG_CACHE_HOME"], !xdg.isEmpty {
            return FixtureCache(directory: URL(fileURLWithPath: xdg).appendingPathComponent("understudy"))
        }
        guard let home = environment["HOME"], !home.isEmpty else { return nil }
        #if canImport(Darwin)
        let caches = "Library/Caches"
        #else
        let caches = ".cache"
        #endif
        return FixtureCache(directory: URL(fileURLWithPath: home).appendingPathComponent(caches).appendingPathComponent("understudy"))
    }

    /// The path of the cache's file `name`.
    public func path(_ name: String) -> String {
        directory.appendingPathComponent(name).path
    }

    /// Makes the file at `path` (in this cache) with `SafeFile`: `write` fills a file of this
    /// process's own at the path it is given, which is then renamed to `path`. False, leaving
    /// nothing behind, when the folder cannot be made or `write` fails.
    public func publish(_ path: String, _ write: (String) -> Bool) -> Bool {
        struct WriteFailed: Error {}
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try SafeFile.write(to: URL(fileURLWithPath: path)) { temporary in
                guard write(temporary.path) else { throw WriteFailed() }
            }
            return true
        } catch {
            return false
        }
    }

    /// A checksum of `bytes` after `seed`: FNV-1a's step over 8-byte words, then the last bytes one
    /// by one. A start checksums megabytes of fixtures, and a word at a time is several times
    /// quicker than a byte at a time; each step is a bijection of the hash, so a change to any one
    /// word always changes the checksum.
    public static func checksum(_ bytes: UnsafeRawBufferPointer, seed: UInt64) -> UInt64 {
        var hash = seed
        let words = bytes.count / 8
        for index in 0..<words {
            hash = (hash ^ bytes.loadUnaligned(fromByteOffset: index * 8, as: UInt64.self)) &* 0x100_0000_01b3
        }
        return FNV1a.hash(bytes[(words * 8)...], seed: hash)
    }

    /// A checksum of the file at `path` after `seed` (see `checksum(_:seed:)`); a missing file
    /// counts as absent, not as empty.
    public static func checksum(ofFile path: String, seed: UInt64) -> UInt64 {
        guard let data = FileManager.default.contents(atPath: path) else { return FNV1a.hash([0], seed: seed) }
        return data.withUnsafeBytes { checksum($0, seed: FNV1a.hash([1], seed: seed)) }
    }
}
