/// Waits until `condition` holds, asking every 10 ms, for at most `timeout`: a test waits for
/// what it needs to see, never for a guessed time. Returns whether the condition held.
public func poll(until condition: () throws -> Bool, timeout: Duration = .seconds(10)) async rethrows -> Bool {
    let deadline = ContinuousClock.now + timeout
    while true {
        if try condition() { return true }
        if ContinuousClock.now >= deadline { return false }
        try? await Task.sleep(for: .milliseconds(10))
    }
}
