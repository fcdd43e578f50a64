#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// SIGINT and SIGTERM, blocked on creation (threads started afterwards inherit the mask) and
/// then awaited with sigwait: the stop request arrives as an ordinary return on the main thread.
struct ShutdownSignals {
    private var set = sigset_t()

    init() {
        sigemptyset(&set)
        sigaddset(&set, SIGINT)
        sigaddset(&set, SIGTERM)
        pthread_sigmask(SIG_BLOCK, &set, nil)
    }

    /// Blocks until SIGINT or SIGTERM arrives; returns its name.
    func wait() -> String {
        var set = self.set
        var received: Int32 = 0
        while sigwait(&set, &received) != 0 {}
        return received == SIGINT ? "SIGINT" : "SIGTERM"
    }
}
