import HTTPServer
import Synchronization

/// One isolated set of mutable state: what requests naming the same scope (the header
/// `X-Understudy-Scope: NAME`, the path prefix `/__scope/NAME/`, or neither: `default`) read and
/// change. Each backend keeps its part of a scope's state in the scope itself, under a
/// `ScopeKey`, so resetting or dropping a scope reaches every backend and no backend keeps a map
/// of scopes of its own. Thread-safe: requests on every worker loop use it.
public final class StateScope: Sendable, CustomStringConvertible {
    public let name: String
    /// Whether this is `default`, the scope of requests that name none.
    public let isDefault: Bool
    /// Wall-clock seconds since the Unix epoch at which the scope was made.
    public let createdAt: Double
    private let lastUsedNanos: Atomic<UInt64>
    private let requestCount = Atomic<Int>(0)
    /// Each backend's state, at its key's index; made on first use.
    private let slots = Locked<[(any ScopeState)?]>([])
    private let discarded = Atomic<Bool>(false)
    /// The simulated network its answers go through (`NetworkConditions`); nil for most.
    private let network = Locked<NetworkConditions?>(nil)
    /// How many scopes have conditions, shared by all of them: while none has, a request looks
    /// at no scope's lock for them.
    private let conditioned: ConditionedCount

    public static let defaultName = "default"

    init(name: String, now: UInt64 = MonotonicClock.nanoseconds(), conditioned: ConditionedCount = ConditionedCount()) {
        self.conditioned = conditioned
        self.name = name
        isDefault = name == Self.defaultName
        createdAt = MonotonicClock.wallSeconds()
        lastUsedNanos = Atomic(now)
    }

    public var description: String { name }

    /// This scope's state for `key`, made by the key on first use. The key's `make` runs under
    /// the scope's lock: it must not read other keys of the same scope.
    public subscript<State>(_ key: ScopeKey<State>) -> State {
        slots.withLock { slots in
            if key.index >= slots.count { slots += Array(repeating: nil, count: key.index + 1 - slots.count) }
            if let state = slots[key.index] { return unsafeDowncast(state as AnyObject, to: State.self) }
            let made = key.make(self)
            slots[key.index] = made
            return made
        }
    }

    /// Every state made so far, in key order.
    private var states: [any ScopeState] { slots.withLock { $0.compactMap { $0 } } }

    /// Every backend's state back to how it was made (`POST /__admin/reset` in this scope).
    public func reset() {
        for state in states { state.reset() }
    }

    /// The scope is gone (deleted or expired): each state releases what memory alone does not
    /// (files, entries in shared caches); later use of this object makes fresh, unshared state.
    func discard() {
        discarded.store(true, ordering: .relaxed)
        networkConditions = nil
        let dropped = slots.withLock { slots -> [(any ScopeState)?] in
            defer { slots = [] }
            return slots
        }
        for state in dropped { state?.discard() }
    }

    /// The scope's simulated network, nil for none. Read on the request path only while some
    /// scope has conditions.
    public var networkConditions: NetworkConditions? {
        get { conditioned.value.load(ordering: .relaxed) == 0 ? nil : network.withLock { $0 } }
        set {
            let (had, has) = network.withLock { value in
                defer { value = newValue }
                return (value != nil, newValue != nil)
            }
            if had != has { conditioned.value.add(has ? 1 : -1, ordering: .relaxed) }
        }
    }

    /// Whether the scope has gone (evicted, expired or deleted): what still refers to it (journal
    /// entries) is dropped by the next reclaim (`StateScopes.onReclaim`).
    public var isDiscarded: Bool { discarded.load(ordering: .relaxed) }

    /// Roughly how many bytes the scope's state holds, for `GET /__admin/scopes`.
    public var estimatedBytes: Int { states.reduce(0) { $0 + $1.estimatedBytes } }

    /// A request used this scope (an app's request is counted; an admin call only keeps it alive).
    public func noteUse(at nanos: UInt64, countsRequest: Bool) {
        if countsRequest { requestCount.add(1, ordering: .relaxed) }
        lastUsedNanos.store(nanos, ordering: .relaxed)
    }

    public var requests: Int { requestCount.load(ordering: .relaxed) }
    /// Monotonic nanoseconds of the last request (or of the scope's making).
    public var lastUsed: UInt64 { lastUsedNanos.load(ordering: .relaxed) }
}

/// The count of scopes with network conditions, shared by a server's scopes.
final class ConditionedCount: Sendable {
    let value = Atomic<Int>(0)
}

/// One backend's part of a scope's state. A class: the scope keeps it and hands it out by reference;
/// it guards its own data (requests of one scope run on several threads).
public protocol ScopeState: AnyObject, Sendable {
    /// Back to the state the key made (POST /__admin/reset in the scope).
    func reset()
    /// Rough bytes held, for the scope list.
    var estimatedBytes: Int { get }
    /// The scope is gone: release what is not plain memory (files, shared caches' entries).
    func discard()
}

extension ScopeState {
    public var estimatedBytes: Int { 0 }
    public func discard() {}
}

private let nextScopeKeyIndex = Atomic<Int>(0)

/// Names one backend's part of every scope and says how it is made. Made once per backend
/// instance (each gets its own slot in every scope).
public final class ScopeKey<State: ScopeState>: Sendable {
    let index: Int
    let make: @Sendable (StateScope) -> State

    public init(_ make: @escaping @Sendable (StateScope) -> State) {
        index = nextScopeKeyIndex.add(1, ordering: .relaxed).oldValue
        self.make = make
    }
}

/// A value type's state in a scope, behind a lock: for backends whose per-scope state is one
/// struct. Reset makes the value again.
public final class ScopedValue<Value: Sendable>: ScopeState {
    private let make: @Sendable () -> Value
    private let measure: @Sendable (Value) -> Int
    private let value: Locked<Value>

    /// `measure` estimates the bytes a value holds (for the scope list).
    public init(_ make: @escaping @Sendable () -> Value, measure: @escaping @Sendable (Value) -> Int = { _ in MemoryLayout<Value>.size }) {
        self.make = make
        self.measure = measure
        value = Locked(make())
    }

    /// Reads or changes the value under its lock: keep `body` short.
    public func withValue<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure) -> Result {
        try value.withLock(body)
    }

    public func reset() {
        let fresh = make()
        value.withLock { $0 = fresh }
    }

    public var estimatedBytes: Int { measure(value.withLock { $0 }) }
}
