import CLibevent

/// How an answer travels, for a simulated network (a state scope's conditions): sent after a
/// delay (latency, the time the upload would have taken), through a connection that writes at
/// most `bytesPerSecond` (libevent's token-bucket rate limit on the connection). Timers and
/// rate limits, never a blocked loop.
public struct Pacing: Sendable {
    public var delay: Duration
    /// nil: the connection writes as fast as it can (a limit an earlier answer set is lifted).
    public var bytesPerSecond: Int?

    public init(delay: Duration, bytesPerSecond: Int?) {
        self.delay = delay
        self.bytesPerSecond = bytesPerSecond
    }

    /// Limits (or frees) the writes of `events`. A kept-alive connection's bucket may have filled
    /// while it was idle: an answer starts with one tick's worth at most, so its rate holds from
    /// its first byte.
    func apply(to events: OpaquePointer) {
        _ = bufferevent_set_rate_limit(events, bytesPerSecond.flatMap(Self.config))
        guard let bytesPerSecond else { return }
        let extra = bufferevent_get_write_limit(events) - Self.perTick(bytesPerSecond)
        if extra > 0 { _ = bufferevent_decrement_write_limit(events, extra) }
    }

    private static func perTick(_ bytesPerSecond: Int) -> Int { max(1, bytesPerSecond / 100) }

    /// libevent keeps a pointer to the configuration for as long as a connection uses it: one per
    /// rate, kept for the process (the rates are few: each scope's setting).
    private static func config(_ bytesPerSecond: Int) -> OpaquePointer? {
        configs.withLock { configs in
            if let made = configs[bytesPerSecond] { return made.wrappedValue }
            // libevent's EV_RATE_LIMIT_MAX (its largest ssize_t), a macro Swift cannot see.
            let unlimited = Int.max
            let rate = max(1, bytesPerSecond)
            // Unlimited reads; writes at the rate, a hundredth of a second's worth per tick of 10 ms:
            // a full bucket lets its level go at once, so a short tick keeps a short transfer's
            // rate true (a 1 MB answer at 50 Mbit/s takes 168 ms; 100 ms ticks sent it at 1.6
            // times the rate). The bucket holds two ticks' worth: libevent refills it when its
            // timer fires, a little after each tick, and a one-tick bucket loses the tokens of a
            // tick missed so (3G at 0.83 of its rate). `make bench` (bench/network.py) measures it.
            let tick = timeval(tv_sec: 0, tv_usec: 10_000)
            let perTick = perTick(rate)
            let made = withUnsafePointer(to: tick) { ev_token_bucket_cfg_new(unlimited, unlimited, perTick, 2 * perTick, $0) }
            configs[bytesPerSecond] = UnsafeTransfer(made)
            return made
        }
    }

    private static let configs = Locked<[Int: UnsafeTransfer<OpaquePointer?>]>([:])
}
