import CLibevent

/// A one-shot timer on an event loop: the way to delay without blocking the loop's thread.
public final class LoopTimer {
    private unowned let loop: EventLoop
    private var event: OpaquePointer?
    private var body: (() -> Void)?

    init(loop: EventLoop, body: @escaping () -> Void) {
        self.loop = loop
        self.body = body
    }

    func arm(_ delay: Duration) {
        event = event_new(loop.base, -1, 0, onTimer, Unmanaged.passUnretained(self).toOpaque())
        var interval = timeval(delay)
        // libevent counts from the time it cached when this loop turn began, which may be
        // milliseconds before now (a turn that parsed requests, rendered answers): a delay is
        // counted from when it was asked for, never less.
        event_base_update_cache_time(loop.base)
        event_add(event, &interval)
    }

    /// Stops the timer if it has not fired. Call on the loop thread.
    public func cancel() {
        loop.assertOnLoopThread()
        guard body != nil else { return }
        release()
        loop.forget(self)
    }

    fileprivate func fire() {
        let work = body
        release()
        loop.forget(self)
        work?()
    }

    func release() {
        if let event { event_free(event) }
        event = nil
        body = nil
    }
}

@available(*, unavailable)
extension LoopTimer: Sendable {}

private func onTimer(_ fd: Int32, _ what: Int16, _ arg: UnsafeMutableRawPointer?) {
    guard let arg else { return }
    Unmanaged<LoopTimer>.fromOpaque(arg).takeUnretainedValue().fire()
}
