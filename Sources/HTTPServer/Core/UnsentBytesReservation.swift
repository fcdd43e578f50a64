extension EventLoop {
    /// Counts `count` bytes held for a later send (a webhook waiting out its delay or its answer)
    /// in the bound on unsent bytes (`--max-unsent-bytes`) that answers to slow clients share;
    /// false, with nothing counted, when they do not fit. Pair with `releaseUnsentBytes(_:)`.
    public func reserveUnsentBytes(_ count: Int) -> Bool {
        UnsentBytes.reserve(count, cap: maxUnsentBytes)
    }

    /// Gives back what `reserveUnsentBytes(_:)` counted.
    public func releaseUnsentBytes(_ count: Int) {
        UnsentBytes.release(count)
    }
}
