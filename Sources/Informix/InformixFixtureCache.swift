import Foundation
import MockCore
import WireFormat

/// The fixture database as SQLite wrote it, kept between runs in a `FixtureCache`: a start copies
/// it into memory (a few milliseconds) instead of running `stores_demo.sql` through the dialect
/// (tens of milliseconds). Its name is a checksum of the SQL file, the database settings and the
/// running executable: an edited fixture, other settings or another build of Understudy (whose
/// dialect may make other tables) make a new file. A fixture with problems is not cached, so they
/// are logged at every start.
struct InformixFixtureCache: Sendable {
    let files: FixtureCache

    /// How the database was made, for the log.
    enum Source: Equatable {
        /// Copied from the cache file at this path.
        case copied(String)
        /// Made from the SQL file and written to the cache file at this path.
        case loadedAndCached(String)
        /// Made from the SQL file (no cache, problems, or a cache that could not be written).
        case loaded
    }

    /// Bumped when what is written to the cache changes.
    static let version: UInt64 = 1

    func path(checksum: UInt64) -> String {
        files.path("informix-\(String(checksum, radix: 16)).sqlite")
    }

    static func checksum(of fixture: URL, _ settings: DatabaseSettings) -> UInt64 {
        var hash = FNV1a.hash(withUnsafeBytes(of: version) { Array($0) })
        hash = FNV1a.hash(String(describing: settings).utf8, seed: hash)
        hash = FNV1a.hash(executableIdentity.utf8, seed: hash)
        return FixtureCache.checksum(ofFile: fixture.path, seed: hash)
    }

    /// The running executable's path, size and modification time: a rebuilt one reads no cache
    /// file that an older build wrote.
    private static let executableIdentity: String = {
        guard let path = Bundle.main.executablePath,
            let attributes = try? FileManager.default.attributesOfItem(atPath: path)
        else { return "unknown executable" }
        let size = (attributes[.size] as? NSNumber)?.int64Value ?? -1
        let modified = (attributes[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0
        return "\(path) \(size) \(modified)"
    }()

    /// The database of `fixture`: the cached copy if there is a sound one, else made by `load`
    /// (and cached when it had no problems and the cache folder can be written).
    func database(
        of fixture: URL, _ settings: DatabaseSettings,
        load: () -> (InformixDatabase, [InformixFixtureError])
    ) -> (InformixDatabase, [InformixFixtureError], Source) {
        let path = path(checksum: Self.checksum(of: fixture, settings))
        if let database = Self.copy(path, settings) { return (database, [], .copied(path)) }
        let (database, problems) = load()
        guard problems.isEmpty else { return (database, problems, .loaded) }
        let written = files.publish(path) { temporary in
            guard let file = try? SQLiteConnection(path: temporary) else { return false }
            return (try? file.copy(from: database.connection)) != nil
        }
        return (database, problems, written ? .loadedAndCached(path) : .loaded)
    }

    /// An in-memory copy of the cache file at `path`, or nil when there is none or it is not
    /// sound (damaged, or not a fixture database).
    private static func copy(_ path: String, _ settings: DatabaseSettings) -> InformixDatabase? {
        guard FileManager.default.fileExists(atPath: path),
            let file = try? SQLiteConnection(path: path),
            let check = try? file.rows("PRAGMA quick_check"), check == [[.text("ok")]],
            let database = try? InformixDatabase(settings: settings, path: ":memory:"),
            (try? database.restore(fromFile: file)) != nil,
            !database.definitions.isEmpty
        else { return nil }
        return database
    }
}
