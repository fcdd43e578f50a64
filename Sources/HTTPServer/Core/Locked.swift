#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A value that threads share, behind a pthread mutex. Used instead of the standard library's
/// `Mutex`: that one waits on a futex inside a library built without ThreadSanitizer, which then
/// cannot see the lock and reports every access it guards as a race (`make test-tsan`).
public final class Locked<Value>: @unchecked Sendable {
    /// The value in memory of its own: a class's stored `var` passed `inout` is checked for
    /// overlapping access at run time (about 150 instructions a call, every request); the mutex
    /// already rules that out.
    @usableFromInline let storage = UnsafeMutablePointer<Value>.allocate(capacity: 1)
    @usableFromInline let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)

    public init(_ value: Value) {
        storage.initialize(to: value)
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
        storage.deinitialize(count: 1)
        storage.deallocate()
    }

    /// Runs `body` with the value, no other thread holding it meanwhile. Inlinable, so callers get
    /// it specialised for their value and closure (it runs on every request).
    @inlinable
    public func withLock<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure) -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&storage.pointee)
    }
}
