// WorkLimits: how much work one request may do on an event loop. Below every module that runs
// stub authors' or clients' expressions (matchers, templates, webhooks), so that they all draw on
// the same budget.

import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The work one request may do on its loop: a deadline shared by everything that runs for it
/// (matching, templating, helpers, webhook rendering), so that no request holds a loop for longer
/// than the budget however its work adds up (docs/security.md).
///
/// A request's work runs synchronously on one thread, so the budget is the thread's: `begin()` when
/// the request arrives, `end()` when its handler returns. Loops whose work grows with the input
/// call `spend(_:in:)` as they go; a cheap counter, and a clock read every `stepsPerClockRead`
/// steps. The clock starts at the request's first metered step, so a request that does no such
/// work never reads it. Outside a request (a test calling a matcher, a CLI command) nothing is
/// limited.
public final class RequestBudget: @unchecked Sendable {
    // @unchecked: an instance is only ever touched by the thread it belongs to.

    /// The work a request may do, in nanoseconds of its loop's time, where whoever begins the
    /// budget names none (`--request-cpu-budget` sets it; a router may be given its own).
    public static let defaultLimitNanoseconds = Atomic<UInt64>(100_000_000)

    /// How many steps pass between two reads of the clock: a step is at most a few microseconds
    /// (one comparison, one key looked up), so the deadline is overrun by at most a few ms.
    static let stepsPerClockRead = 256

    // Unchecked: only the budget's own thread touches these, and a dynamic exclusivity check
    // costs ~40 instructions an access (every request begins a budget).
    @exclusivity(unchecked) private var active = false
    @exclusivity(unchecked) private var limitNanoseconds: UInt64 = 0
    @exclusivity(unchecked) private var steps = 0
    @exclusivity(unchecked) private var nextClockRead = 0
    /// When the budget runs out; 0 until the first metered step reads the clock.
    @exclusivity(unchecked) private var deadline: UInt64 = 0
    /// Where the budget ran out (a matcher's or a helper's name); nil while there is some left.
    @exclusivity(unchecked) public private(set) var exhaustedIn: String?
    @exclusivity(unchecked) private var attributed = false

    private init() {}

    /// Starts a fresh budget for the request this thread is about to handle.
    @discardableResult
    public static func begin(limitNanoseconds: UInt64? = nil) -> RequestBudget {
        let budget = forThisThread()
        budget.active = true
        budget.limitNanoseconds = limitNanoseconds ?? defaultLimitNanoseconds.load(ordering: .relaxed)
        budget.steps = 0
        budget.nextClockRead = 0
        budget.deadline = 0
        budget.exhaustedIn = nil
        budget.attributed = false
        return budget
    }

    /// The request's work is done: later work on this thread is not limited until the next `begin()`.
    public func end() { active = false }

    /// The budget of the request this thread is handling; nil outside one.
    public static var current: RequestBudget? {
        guard let raw = pthread_getspecific(key) else { return nil }
        let budget = Unmanaged<RequestBudget>.fromOpaque(raw).takeUnretainedValue()
        return budget.active ? budget : nil
    }

    /// Runs `body` within a budget of its own (work done later than its request, such as a
    /// webhook rendered after its delay); inside a running request's, it shares that one.
    public static func run<Result>(_ body: () throws -> Result) rethrows -> Result {
        if current != nil { return try body() }
        let budget = begin()
        defer { budget.end() }
        return try body()
    }

    /// Counts `count` steps of work done in `place`; false once the request's budget is spent
    /// (and for every call after that), true outside a request.
    @inline(__always)
    public static func spend(_ count: Int = 1, in place: @autoclosure () -> String) -> Bool {
        guard let budget = current else { return true }
        return budget.spend(count, in: place())
    }

    /// Reads the clock now (a regular expression's progress report, between whose calls the
    /// engine did an unknown amount of work); false once the budget is spent.
    public static func checkClock(in place: @autoclosure () -> String) -> Bool {
        guard let budget = current else { return true }
        budget.nextClockRead = budget.steps
        return budget.spend(0, in: place())
    }

    /// Names what called the code that ran out (a template helper around a JSONPath, say), once:
    /// the place then reads "jsonRemove (a JSONPath)".
    public func attribute(to caller: String) {
        guard let place = exhaustedIn, !attributed else { return }
        attributed = true
        if place != caller { exhaustedIn = "\(caller) (\(place))" }
    }

    /// The running request's limit (else the default) as people read it ("100 ms"), for the
    /// messages that say it ran out.
    public static var limitDescription: String {
        let nanoseconds = current?.limitNanoseconds ?? defaultLimitNanoseconds.load(ordering: .relaxed)
        return nanoseconds % 1_000_000 == 0 ? "\(nanoseconds / 1_000_000) ms" : "\(Double(nanoseconds) / 1_000_000) ms"
    }

    /// Whether the request's budget is spent (false outside a request).
    public static var isExhausted: Bool { current?.exhaustedIn != nil }

    /// `spend(_:in:)` on a budget already at hand (saves looking up the thread's).
    @inline(__always)
    public func spend(_ count: Int = 1, in place: @autoclosure () -> String) -> Bool {
        if exhaustedIn != nil { return false }
        steps &+= count
        guard steps >= nextClockRead else { return true }
        nextClockRead = steps &+ Self.stepsPerClockRead
        let now = Self.now()
        if deadline == 0 {
            deadline = now &+ limitNanoseconds
            return true
        }
        guard now > deadline else { return true }
        exhaustedIn = place()
        return false
    }

    private static func now() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) &* 1_000_000_000 &+ UInt64(time.tv_nsec)
    }

    /// Each thread's budget, made on its first request and kept for the thread's life.
    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        let created = pthread_key_create(&key) { raw in
            #if canImport(Darwin)
            Unmanaged<RequestBudget>.fromOpaque(raw).release()
            #else
            if let raw { Unmanaged<RequestBudget>.fromOpaque(raw).release() }
            #endif
        }
        precondition(created == 0, "no thread-specific key for the request budget")
        return key
    }()

    private static func forThisThread() -> RequestBudget {
        if let raw = pthread_getspecific(key) { return Unmanaged<RequestBudget>.fromOpaque(raw).takeUnretainedValue() }
        let budget = RequestBudget()
        pthread_setspecific(key, Unmanaged.passRetained(budget).toOpaque())
        return budget
    }
}
