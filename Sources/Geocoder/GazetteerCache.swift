import Foundation
import MockCore
import WireFormat

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where the gazetteer's image is kept between runs (a `FixtureCache`): one file per content of
/// the CSV files, named by their checksum, so an edited file is indexed again and an unchanged one
/// is only mapped.
public struct GazetteerCache: Sendable {
    public let files: FixtureCache

    public init(directory: URL) {
        files = FixtureCache(directory: directory)
    }

    /// The user's fixture cache (`FixtureCache.user`), or nil: the gazetteer is then indexed at
    /// every start.
    public static var user: GazetteerCache? {
        FixtureCache.user.map { GazetteerCache(directory: $0.directory) }
    }

    /// The CSV files an image is made from, in the order they are checksummed.
    static let sourceFiles = ["countries.csv", "us-states.csv", "regions.csv", "us-zipcodes.csv", "ca-postalcodes.csv", "cities.csv"]

    /// A hash of each source file's name and bytes, and the image version.
    static func checksum(of directory: URL) -> UInt64 {
        var hash = FNV1a.hash(withUnsafeBytes(of: GazetteerImage.version) { Array($0) })
        for name in sourceFiles {
            hash = FixtureCache.checksum(ofFile: directory.appendingPathComponent(name).path, seed: FNV1a.hash(name.utf8, seed: hash))
        }
        return hash
    }

    func path(checksum: UInt64) -> String {
        files.path("gazetteer-\(String(checksum, radix: 16)).image")
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

    /// Writes `bytes` to the cache file at `path`.
    private func write(_ bytes: [UInt8], to path: String) -> Bool {
        files.publish(path) { temporary in
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
            return close(fd) == 0 && complete
        }
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
