#if canImport(Glibc)
import Glibc
#endif

/// How glibc's malloc gives memory back, for a server that loads its fixtures and then idles.
/// Both calls are looked up at run time: Glibc's module does not export them. Elsewhere they do
/// nothing.
public enum MallocSettings {
    /// Keeps the thresholds at glibc's initial values (128 KB). Freeing one large block (a
    /// fixture file read whole, of a few megabytes) otherwise raises them to its size, and then
    /// the free top of every thread's arena below twice that size stays resident: 2.7 MB of the
    /// idle server with the shipped fixtures, which `malloc_trim` does not return for the arenas
    /// of other threads than the main one.
    public static func keepThresholdsFixed() {
        #if canImport(Glibc)
        typealias MallocOption = @convention(c) (Int32, Int32) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "mallopt") else { return }
        let mallopt = unsafeBitCast(symbol, to: MallocOption.self)
        // M_TRIM_THRESHOLD (-1) and M_MMAP_THRESHOLD (-3); setting either stops the adjustment.
        _ = mallopt(-1, 128 * 1024)
        _ = mallopt(-3, 128 * 1024)
        #endif
    }

    /// Gives back the freed memory inside the arenas (a load frees most of what it allocated:
    /// parsed files, temporary values), about 1 MB with the shipped fixtures.
    static func releaseFreedMemory() {
        #if canImport(Glibc)
        typealias MallocTrim = @convention(c) (Int) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim") else { return }
        _ = unsafeBitCast(symbol, to: MallocTrim.self)(0)
        #endif
    }
}
