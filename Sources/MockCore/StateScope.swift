import HTTPServer

/// Names an isolated set of emulator state. Today every request uses `.shared`; parallel CI jobs
/// sharing one server will each get their own scope, which is why state lives in `ScopedState`
/// from the start.
public struct StateScope: Hashable, Sendable, CustomStringConvertible {
    public let id: String

    public init(_ id: String) { self.id = id }

    public static let shared = StateScope("shared")
    public var description: String { id }
}

/// A backend's mutable state, one value per scope, made fresh on first use and on reset.
/// Thread-safe: requests on every worker loop go through it.
public final class ScopedState<Value: Sendable>: Sendable {
    private let makeInitial: @Sendable () -> Value
    private let values = Locked<[StateScope: Value]>([:])

    public init(_ makeInitial: @escaping @Sendable () -> Value) {
        self.makeInitial = makeInitial
    }

    /// Reads or changes the value of `scope` under the state's lock: keep `body` short.
    public func withValue<Result>(in scope: StateScope, _ body: (inout Value) throws -> Result) rethrows -> Result {
        try values.withLock { values in
            if values[scope] == nil { values[scope] = makeInitial() }
            return try body(&values[scope]!)
        }
    }

    /// Back to the initial value: for one scope, or for all when `scope` is nil.
    public func reset(_ scope: StateScope?) {
        values.withLock { values in
            if let scope { values[scope] = nil } else { values.removeAll() }
        }
    }
}
