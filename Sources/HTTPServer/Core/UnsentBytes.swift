import Synchronization

/// Memory held by answers written to clients that have not read them yet. A client that never
/// reads keeps its whole answer in libevent's buffer until the idle timeout; forty of them asking
/// for a large SQL result held over half a gigabyte. Every body in memory of at least
/// `trackedSize` bytes is counted from the moment it is queued until libevent lets go of it
/// (written, or the connection freed): a body of its own each time, a shared buffer (an emulator's
/// answer, cached or not, a stub's body) once however many clients hold it, as that is what it
/// costs. A file body is sent from its file and costs no memory. A new answer that would pass the
/// cap is answered 503 instead.
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

    /// Takes a hold on `shared` for one queued answer; the first holder reserves its bytes. False
    /// when they do not fit under `cap` (nothing is then held).
    static func hold(_ shared: SharedBytes, cap: Int) -> Bool {
        var holds = shared.unsentHolds.load(ordering: .relaxed)
        while true {
            if holds > 0 {
                let (exchanged, current) = shared.unsentHolds.compareExchange(expected: holds, desired: holds + 1, ordering: .relaxed)
                if exchanged { return true }
                holds = current
                continue
            }
            guard reserve(shared.count, cap: cap) else { return false }
            let (exchanged, current) = shared.unsentHolds.compareExchange(expected: 0, desired: 1, ordering: .relaxed)
            if exchanged { return true }
            // Another answer took the first hold meanwhile and reserved the bytes itself.
            release(shared.count)
            holds = current
        }
    }

    /// Gives back a hold `hold` took; the last one releases the bytes.
    static func letGo(_ shared: SharedBytes) {
        if shared.unsentHolds.subtract(1, ordering: .relaxed).newValue == 0 { release(shared.count) }
    }

    private static let refusals = LogThrottle { count, seconds in
        "understudy: \(count) more answer(s) refused (503) in the last \(seconds) s: unread answers at --max-unsent-bytes"
    }

    /// Logs (on standard error, throttled) that an answer was refused for the cap.
    static func noteRefusal(_ line: () -> String) {
        for line in refusals.lines(line) { writeToStandardError(line) }
    }
}
