import CLibevent

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension EventLoop {
    /// Every address `host` resolves to (IPv4 and IPv6, as numeric strings, in the resolver's
    /// order, without repeats), through an asynchronous resolver: `/etc/hosts`, then the name
    /// servers and search domains of `resolv.conf`. `rereading`: with a resolver of its own that
    /// reads both files now (the loop's reads them once), for a name asked again and again whose
    /// answer may change. `completion` runs on this loop; an empty list when nothing answers. Call
    /// on the loop thread.
    public func resolveAddresses(of host: String, rereading: Bool = false, completion: @escaping ([String]) -> Void) {
        assertOnLoopThread()
        let own = rereading ? evdns_base_new(base, EVDNS_BASE_INITIALIZE_NAMESERVERS) ?? evdns_base_new(base, 0) : nil
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        let context = Unmanaged.passRetained(
            Resolution { [self] addresses in
                // Freed on a later turn: not from inside its own callback.
                if let own { schedule(after: .zero) { evdns_base_free(own, 0) } }
                completion(addresses)
            }
        ).toOpaque()
        // The callback may run before this returns (an address literal, a hosts entry); it releases the context.
        _ = evdns_getaddrinfo(own ?? dns, host, nil, &hints, onResolved, context)
    }
}

private final class Resolution {
    let completion: ([String]) -> Void
    init(_ completion: @escaping ([String]) -> Void) { self.completion = completion }
}

private func onResolved(_ result: Int32, _ list: UnsafeMutablePointer<addrinfo>?, _ arg: UnsafeMutableRawPointer?) {
    guard let arg else { return }
    let resolution = Unmanaged<Resolution>.fromOpaque(arg).takeRetainedValue()
    var addresses: [String] = []
    var entry = result == 0 ? list : nil
    while let current = entry {
        if let address = current.pointee.ai_addr, let text = SocketAddress(copying: address)?.host, !addresses.contains(text) {
            addresses.append(text)
        }
        entry = current.pointee.ai_next
    }
    if let list { evutil_freeaddrinfo(list) }
    resolution.completion(addresses)
}

extension SocketAddress {
    /// A copy of an IPv4 or IPv6 `sockaddr`; nil for other families.
    init?(copying address: UnsafePointer<sockaddr>) {
        let family = Int32(address.pointee.sa_family)
        guard family == AF_INET || family == AF_INET6 else { return nil }
        let length = family == AF_INET ? MemoryLayout<sockaddr_in>.size : MemoryLayout<sockaddr_in6>.size
        self.init(storage: sockaddr_storage(), length: socklen_t(length))
        withUnsafeMutableBytes(of: &storage) { $0.copyMemory(from: UnsafeRawBufferPointer(start: address, count: length)) }
    }

    /// The addresses of this machine's network interfaces (loopback included), as numeric hosts.
    public static func interfaceHosts() -> Set<String> {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0 else { return [] }
        defer { freeifaddrs(list) }
        var hosts: Set<String> = []
        var entry = list
        while let current = entry {
            if let address = current.pointee.ifa_addr, let host = SocketAddress(copying: address)?.host { hosts.insert(host) }
            entry = current.pointee.ifa_next
        }
        return hosts
    }
}
