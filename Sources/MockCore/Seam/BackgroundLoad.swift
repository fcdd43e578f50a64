import Foundation
import HTTPServer
import Synchronization

/// A backend's fixture, loaded on a thread of its own so that the server listens at once. A
/// request that comes before it is there waits for it on its own loop's timers (the loop goes on
/// serving meanwhile); `/__admin/health` says 503 until then.
public final class BackgroundLoad<Value: AnyObject & Sendable>: Sendable {
    /// Inlinable, like `value`: unspecialised in an emulator's module, every read asked the
    /// runtime for `AtomicLazyReference<Value>`'s metadata (about 1,000 instructions a request).
    @usableFromInline let loaded = AtomicLazyReference<Value>()

    public init() {}

    /// The value, once loaded.
    @inlinable public var value: Value? { loaded.load() }

    @inlinable public var isLoaded: Bool { loaded.load() != nil }

    /// Publishes the loaded value; the first one published stays.
    public func finish(_ value: Value) {
        _ = loaded.storeIfNil(value)
    }

    /// Loads the value with `load` on a thread of its own, once `gate` lets loads start.
    public func start(after gate: LoadStart = .shared, _ load: @escaping @Sendable () -> Value) {
        gate.whenAllowed {
            Thread.detachNewThread {
                self.finish(load())
                MallocSettings.releaseFreedMemory()
            }
        }
    }

    /// Calls `then` on `reply`'s loop with the value: at once when it is there, or else when a
    /// look every few milliseconds on the loop's timers finds it.
    public func whenLoaded(_ reply: DeferredReply, _ then: @escaping (Value) -> Void) {
        guard let value = loaded.load() else {
            reply.loop.schedule(after: Self.pollInterval) { self.whenLoaded(reply, then) }
            return
        }
        then(value)
    }

    /// For a request that came before the value: `answer` with it once loaded, the reply deferred
    /// meanwhile. (Take `value` first: forming the closure costs an allocation, which a request
    /// answered at once need not pay.) Decide whether to decline before: once deferred, a request
    /// must be answered, so a decline then is a 404.
    public func deferredReply(_ answer: @escaping (Value) -> Reply) -> Reply {
        .deferred { reply in
            self.whenLoaded(reply) { value in
                switch answer(value) {
                case .response(let response): reply.send(response)
                case .deferred(let start): start(reply)
                case .decline: reply.send(.text("Not found\n", status: 404))
                }
            }
        }
    }

    /// Short against a load (a few hundred milliseconds), and a timer costs the loop next to nothing.
    static var pollInterval: Duration { .milliseconds(5) }
}

/// When background loads start. `serve` holds them until its sockets listen: on two cores, four
/// loads started at once took the cores from the start-up and made listening twice as late. Loads
/// start at once when nothing holds them (tests, `check`).
public final class LoadStart: Sendable {
    /// The one `serve` holds; loads wait for it unless given another.
    public static let shared = LoadStart()

    private let held = Mutex<(isHeld: Bool, waiting: [@Sendable () -> Void])>((false, []))

    public init() {}

    /// Loads started from now on wait for `release()`.
    public func hold() {
        held.withLock { $0.isHeld = true }
    }

    /// Starts the loads that waited, and those to come at once.
    public func release() {
        let waiting = held.withLock { state in
            state.isHeld = false
            defer { state.waiting = [] }
            return state.waiting
        }
        for start in waiting { start() }
    }

    func whenAllowed(_ start: @escaping @Sendable () -> Void) {
        let now = held.withLock { state in
            if state.isHeld { state.waiting.append(start) }
            return !state.isHeld
        }
        if now { start() }
    }
}
