import Foundation
import MockCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where the gazetteer's image is kept between runs: one file per content of the CSV files, named
/// by their checksum, so an edited file is indexed again and an unchanged one is only mapped.
/// Parallel servers may build the same image at once: each writes a file of its own and renames
/// it into place, so a reader never sees half of one.
public struct GazetteerCache: Sendable {
    public let directory: URL

    public init(directory: URL) {
        self.directory = directory
    }

    /// `UNDERSTUDY_CACHE_DIR`, else the user's cache folder (`$XDG_CACHE_HOME`, `~/.cache`, or
    /// `~/Library/Caches` on macOS) with `understudy` in it; nil when there is no such folder or
    /// `UNDERSTUDY_CACHE_DIR` is empty (no cache: the gazetteer is indexed at every start).
    public static var user: GazetteerCache? {
        let environment = ProcessInfo.processInfo.environment
        if let configured = environment["UNDERSTUDY_CACHE_DIR"] {
            return configured.isEmpty ? nil : GazetteerCache(directory: URL(fileURLWithPath: configured))
        }
        if let xdg = environment["XDG_CACHE_HOME"], !xdg.isEmpty {
            return GazetteerCache(directory: URL(fileURLWithPath: xdg).appendingPathComponent("understudy"))
        }
        guard let home = environment["HOME"], !home.isEmpty else { return nil }
        #if canImport(Darwin)
        let caches = "Library/Caches"
        #else
        let caches = ".cache"
        #endif
        return GazetteerCache(directory: URL(fileURLWithPath: home).appendingPathComponent(caches).appendingPathComponent("understudy"))
    }

    /// The CSV files an image is made from, in the order they are checksummed.
    static let sourceFiles = ["countries.csv", "us-states.csv", "regions.csv", "us-zipcodes.csv", "ca-postalcodes.csv", "cities.csv"]

    /// A hash of each source file's name and bytes (a missing file counts as absent, not empty),
    /// and the image version.
    static func checksum(of directory: URL) -> UInt64 {
        var hash = FNV1a.hash(withUnsafeBytes(of: GazetteerImage.version) { Array($0) })
        for name in sourceFiles {
            hash = FNV1a.hash(name.utf8, seed: hash)
            guard let data = FileManager.default.contents(atPath: directory.appendingPathComponent(name).path) else {
                hash = FNV1a.hash([0], seed: hash)
                continue
            }
            hash = FNV1a.hash([1], seed: hash)
            hash = data.withUnsafeBytes { wordHash($0, seed: hash) }
        }
        return hash
    }

    /// FNV-1a's step over 8-byte words, then the last bytes one by one: a start checksums 4.6 MB,
    /// and a word at a time is several times quicker than a byte at a time. Each step is a
    /// bijection of the hash, so a change to any one word always changes the checksum.
    private static func wordHash(_ bytes: UnsafeRawBufferPointer, seed: UInt64) -> UInt64 {
        var hash = seed
        let words = bytes.count / 8
        for index in 0..<words {
            hash = (hash ^ bytes.loadUnaligned(fromByteOffset: index * 8, as: UInt64.self)) &* 0x100_0000_01b3
        }
        return FNV1a.hash(bytes[(words * 8)...], seed: hash)
    }

    func path(checksum: UInt64) -> String {
        directory.appendingPathComponent("gazetteer-\(String(checksum, radix: 16)).image").path
    }

    /// How `Gazetteer(directory:cache:)` got its image, for the log.
    public enum Source: Sendable, Equatable {
        /// Mapped from the cache file at this path.
        case mapped(String)
        /// Indexed from the CSV files and written to the cache file at this path.
        case indexedAndCached(String)
        /// Indexed from the CSV files and kept in memory (no cache, or it could not be written).
        case indexed
    }

    /// The image of `directory`'s CSV files: the cached one if it matches, else one made now
    /// (and cached when the cache folder can be written).
    func image(of directory: URL) -> (GazetteerImage, Source) {
        let checksum = Self.checksum(of: directory)
        let path = path(checksum: checksum)
        if let image = GazetteerImage.mapped(path: path, checksum: checksum) { return (image, .mapped(path)) }
        var loader = GazetteerLoader()
        loader.load(from: directory)
        let bytes = GazetteerImageWriter.image(of: loader, checksum: checksum)
        if write(bytes, to: path), let image = GazetteerImage.mapped(path: path, checksum: checksum) {
            return (image, .indexedAndCached(path))
        }
        return (GazetteerImage(copying: bytes), .indexed)
    }

    /// Writes `bytes` to a file of this process's own, then renames it to `path`.
    private func write(_ bytes: [UInt8], to path: String) -> Bool {
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            return false
        }
        let temporary = path + ".\(getpid()).tmp"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { return false }
        // A page at a time: the page cache then keeps the file in single pages, and mapping one
        // page (a lookup) does not make a whole multi-megabyte block of it resident, as it does
        // for a file written in one go on Linux (measured: 8 MB against 1.2 MB of the image).
        let complete = bytes.withUnsafeBytes { buffer -> Bool in
            guard let start = buffer.baseAddress else { return true }
            var offset = 0
            while offset < buffer.count {
                let written = writeBytes(fd, start + offset, min(4096, buffer.count - offset))
                if written < 0 && errno == EINTR { continue }
                guard written > 0 else { return false }
                offset += written
            }
            return true
        }
        guard close(fd) == 0, complete else {
            unlink(temporary)
            return false
        }
        guard rename(temporary, path) == 0 else {
            unlink(temporary)
            return false
        }
        return true
    }
}

extension Gazetteer {
    /// The gazetteer of `directory`'s CSV files through `cache` (see `GazetteerCache`), or indexed
    /// in memory when `cache` is nil, and where its image came from.
    public static func load(directory: URL, cache: GazetteerCache?) -> (Gazetteer, GazetteerCache.Source) {
        guard let cache else { return (Gazetteer(directory: directory), .indexed) }
        let (image, source) = cache.image(of: directory)
        return (Gazetteer(image: image), source)
    }
}

/// `write(2)`, by a name the cache's own `write(_:to:)` does not hide.
private func writeBytes(_ fd: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
    #if canImport(Glibc)
    Glibc.write(fd, bytes, count)
    #else
    Darwin.write(fd, bytes, count)
    #endif
}
