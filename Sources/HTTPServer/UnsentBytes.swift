import Synchronization

/// Memory held by answers written to clients that have not read them yet. A client that never
/// reads keeps its whole answer in libevent's buffer until the idle timeout; forty of them asking
/// for a large SQL result held over half a gigabyte. Bodies made for one request (not a cached
/// or file body, which cost nothing more per client) of at least `trackedSize` bytes are counted
/// from the moment they are queued until libevent lets go of them (written, or the connection
/// freed); a new one that would pass the cap is answered 503 instead.
enum UnsentBytes {
    static let trackedSize = 64 * 1024
    private static let total = Atomic(0)

    /// Counts `count` bytes if they fit under `cap`.
    static func reserve(_ count: Int, cap: Int) -> Bool {
        let after = total.add(count, ordering: .relaxed).newValue
        guard after > cap else { return true }
        total.subtract(count, ordering: .relaxed)
        return false
    }

    static func release(_ count: Int) {
        total.subtract(count, ordering: .relaxed)
    }
}
