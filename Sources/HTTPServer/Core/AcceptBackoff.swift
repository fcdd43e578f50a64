import CLibevent

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What a loop does when `accept` fails for a reason that will not pass by itself at once (out of
/// descriptors: EMFILE, ENFILE; out of memory): it stops accepting for a moment instead of
/// spinning on a socket that stays readable, and the failures are logged once per interval with
/// their count instead of once each (which wrote millions of lines in seconds).
enum AcceptBackoff {
    static let pause = Duration.milliseconds(100)
    static let logInterval: UInt64 = 5_000_000_000

    /// The loop of each `evhttp`: libevent hands the listener's error callback the evhttp.
    private static let loops = Locked<[UInt: Unmanaged<EventLoop>]>([:])

    static func register(_ loop: EventLoop, http: OpaquePointer, listener: OpaquePointer) {
        loops.withLock { $0[UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(http)))] = .passUnretained(loop) }
        evconnlistener_set_error_cb(listener, onAcceptError)
    }

    static func unregister(http: OpaquePointer) {
        _ = loops.withLock { $0.removeValue(forKey: UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(http)))) }
    }

    static func loop(for http: UnsafeMutableRawPointer) -> EventLoop? {
        loops.withLock { $0[UInt(bitPattern: Int(bitPattern: http))] }?.takeUnretainedValue()
    }

    private struct Tally {
        var failures = 0
        var lastLogged: UInt64 = 0
    }
    private static let tally = Locked(Tally())

    /// Counts a failure; writes one line when the last was written more than `logInterval` ago.
    static func note(_ error: Int32) {
        let now = MonotonicClock.nanoseconds()
        let line: String? = tally.withLock { tally in
            tally.failures += 1
            guard tally.lastLogged == 0 || now &- tally.lastLogged >= logInterval else { return nil }
            defer {
                tally.failures = 0
                tally.lastLogged = now
            }
            return "understudy: accepting connections failed \(tally.failures) time(s) since the last report (\(String(cString: strerror(error)))): "
                + "pausing new connections \(pause) at a time; the open ones are served\n"
        }
        if let line { _ = line.withCString { write(STDERR_FILENO, $0, strlen($0)) } }
    }
}

private func onAcceptError(_ listener: OpaquePointer?, _ http: UnsafeMutableRawPointer?) {
    let error = errno
    AcceptBackoff.note(error)
    guard let listener, let http, let loop = AcceptBackoff.loop(for: http) else { return }
    loop.pauseAccepting(listener, for: AcceptBackoff.pause)
}
