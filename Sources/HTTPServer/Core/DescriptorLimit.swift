#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The process's open-file limit. A mock server for parallel test suites holds many idle
/// keep-alive connections: the soft limit (often 1,024) is raised to the hard one at start.
public enum DescriptorLimit {
    /// Raises the soft limit to the hard limit (capped where the system caps it); the soft limit
    /// in force afterwards.
    @discardableResult
    public static func raiseToHardLimit() -> Int {
        var limit = rlimit()
        guard getrlimit(Self.resource, &limit) == 0 else { return -1 }
        if limit.rlim_cur < limit.rlim_max {
            var raised = limit
            raised.rlim_cur = limit.rlim_max
            #if canImport(Darwin)
            // macOS refuses more than OPEN_MAX for an unlimited hard limit.
            if raised.rlim_cur == RLIM_INFINITY { raised.rlim_cur = rlim_t(OPEN_MAX) }
            #endif
            if setrlimit(Self.resource, &raised) == 0 { limit = raised }
        }
        return Int(clamping: limit.rlim_cur)
    }

    #if canImport(Glibc)
    private static let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
    #else
    private static let resource = RLIMIT_NOFILE
    #endif
}
