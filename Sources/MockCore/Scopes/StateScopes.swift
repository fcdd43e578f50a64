import Dispatch
import HTTPServer
import Logging
import Synchronization

/// Every live scope: `default` (always there) and the named ones requests made. Named scopes are
/// capped in number (the least recently used goes when a new one would pass the cap) and expire
/// when idle, so a long CI run that names a scope per test cannot grow memory without bound; what
/// goes is logged. Thread-safe.
public final class StateScopes: Sendable {
    public struct Limits: Sendable {
        /// Most named scopes alive at once (`default` not counted).
        public var maxScopes: Int
        /// A named scope unused this long is dropped.
        public var idleSeconds: Int

        public init(maxScopes: Int = 100, idleSeconds: Int = 600) {
            self.maxScopes = max(1, maxScopes)
            self.idleSeconds = max(1, idleSeconds)
        }
    }

    public let `default`: StateScope
    public let limits: Limits
    private let named = Locked<[String: StateScope]>([:])
    /// Monotonic nanoseconds after which idle scopes are looked for again.
    private let nextSweep: Atomic<UInt64>
    private let logger: Logger
    /// A CI run that names more scopes than the cap evicts one per new name: the first few are
    /// logged, the rest summed up.
    private let evictions: LogThrottle
    private let expiries: LogThrottle
    /// What drops the leftovers of gone scopes (their journal entries); run off the request path.
    private let reclaimers = Locked<[@Sendable () -> Void]>([])
    /// Told when a named scope is made (true) or goes (false): a team server's directory.
    private let watchers = Locked<[@Sendable (String, Bool) -> Void]>([])
    private let reclaimPending = Atomic<Bool>(false)
    private let evictionCount = Atomic<Int>(0)
    private let conditioned = ConditionedCount()

    public init(limits: Limits = Limits(), logger: Logger = Logger(label: "understudy")) {
        self.limits = limits
        let cap = limits.maxScopes
        evictions = LogThrottle(windowSeconds: 10, linesPerWindow: 3) { count, seconds in
            "evicted \(count) more scope(s) in the last \(seconds) s to make room for new ones: \(cap) named scopes is the cap (--max-scopes)"
        }
        expiries = LogThrottle(windowSeconds: 10, linesPerWindow: 3) { count, seconds in
            "\(count) more idle scope(s) expired in the last \(seconds) s"
        }
        self.logger = logger
        self.default = StateScope(name: StateScope.defaultName, conditioned: conditioned)
        nextSweep = Atomic(MonotonicClock.nanoseconds() &+ Self.sweepInterval)
    }

    private static let sweepInterval: UInt64 = 1_000_000_000

    /// The scope called `name` (a valid name), made now when there is none.
    public func scope(named name: String, now: UInt64 = MonotonicClock.nanoseconds()) -> StateScope {
        if name == StateScope.defaultName { return self.default }
        var made = false
        let (scope, evicted) = named.withLock { named -> (StateScope, StateScope?) in
            if let existing = named[name] { return (existing, nil) }
            made = true
            var evicted: StateScope?
            if named.count >= limits.maxScopes, let oldest = named.values.min(by: { $0.lastUsed < $1.lastUsed }) {
                named[oldest.name] = nil
                evicted = oldest
            }
            let made = StateScope(name: name, now: now, conditioned: conditioned)
            named[name] = made
            return (made, evicted)
        }
        if let evicted {
            evictionCount.add(1, ordering: .relaxed)
            let idle = (now &- evicted.lastUsed) / 1_000_000_000
            for line in evictions.lines(
                {
                    "scope \"\(evicted.name)\" evicted (idle \(idle) s, \(evicted.requests) requests) to make room for \"\(name)\": \(limits.maxScopes) named scopes is the cap (--max-scopes)"
                }, now: now)
            {
                logger.warning("\(line)")
            }
            evicted.discard()
            scheduleReclaim()
            tell(evicted.name, alive: false)
        }
        if made { tell(name, alive: true) }
        return scope
    }

    /// `body` is told, with the scope's name, when a named scope is made (`true`) and when it
    /// goes (`false`: deleted, evicted or expired); called on the thread that made or dropped it.
    public func onNamedScopeChange(_ body: @escaping @Sendable (_ name: String, _ alive: Bool) -> Void) {
        watchers.withLock { $0.append(body) }
    }

    private func tell(_ name: String, alive: Bool) {
        for watcher in watchers.withLock({ $0 }) { watcher(name, alive) }
    }

    /// Named scopes evicted to make room since the start.
    public var evictionsSoFar: Int { evictionCount.load(ordering: .relaxed) }

    /// `body` runs, off the request path, at most about once a second after scopes have gone: it
    /// drops what still refers to them (the journal's entries of gone scopes), and then the freed
    /// memory is given back to the system. A CI run that churns through scope names keeps neither
    /// its old entries nor the pages they pinned.
    public func onReclaim(_ body: @escaping @Sendable () -> Void) {
        reclaimers.withLock { $0.append(body) }
    }

    private func scheduleReclaim() {
        guard reclaimPending.compareExchange(expected: false, desired: true, ordering: .relaxed).exchanged else { return }
        DispatchQueue.global(qos: .utility).asyncAfter(deadline: .now() + Self.reclaimDelay) { [self] in
            reclaimPending.store(false, ordering: .relaxed)
            for reclaim in reclaimers.withLock({ $0 }) { reclaim() }
            MallocSettings.releaseFreedMemory()
        }
    }

    private static let reclaimDelay = DispatchTimeInterval.milliseconds(500)

    /// The scope called `name` if it is alive.
    public func existing(_ name: String) -> StateScope? {
        name == StateScope.defaultName ? self.default : named.withLock { $0[name] }
    }

    /// `default` first, then the named scopes by name.
    public var all: [StateScope] {
        sweepIdle()
        return [self.default] + named.withLock { Array($0.values) }.sorted { $0.name < $1.name }
    }

    /// Drops the named scope `name` and its state; false when there is none.
    @discardableResult
    public func delete(_ name: String) -> Bool {
        guard let removed = named.withLock({ $0.removeValue(forKey: name) }) else { return false }
        removed.discard()
        scheduleReclaim()
        tell(name, alive: false)
        return true
    }

    /// Drops every named scope that has been idle longer than the limit; cheap to call on every
    /// request (it looks at most once a second).
    public func sweepIfDue(now: UInt64) {
        let due = nextSweep.load(ordering: .relaxed)
        guard now >= due, nextSweep.compareExchange(expected: due, desired: now &+ Self.sweepInterval, ordering: .relaxed).exchanged else { return }
        sweepIdle(now: now)
    }

    private func sweepIdle(now: UInt64 = MonotonicClock.nanoseconds()) {
        let limit = UInt64(limits.idleSeconds) * 1_000_000_000
        let expired = named.withLock { named -> [StateScope] in
            let idle = named.values.filter { now > $0.lastUsed && now - $0.lastUsed > limit }
            for scope in idle { named[scope.name] = nil }
            return idle
        }
        if !expired.isEmpty { scheduleReclaim() }
        for scope in expired {
            for line in expiries.lines(
                { "scope \"\(scope.name)\" expired after \(limits.idleSeconds) s idle (\(scope.requests) requests)" }, now: now)
            {
                logger.info("\(line)")
            }
            scope.discard()
            tell(scope.name, alive: false)
        }
    }
}
