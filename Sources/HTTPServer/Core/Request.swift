import Synchronization

/// One decoded query parameter. `value` is nil for a bare name (`?flag`), "" for `?flag=`.
public struct QueryItem: Sendable, Hashable {
    public var name: String
    public var value: String?

    public init(name: String, value: String?) {
        self.name = name
        self.value = value
    }
}

/// An incoming HTTP request, decoded from libevent's request once, on the loop that received it.
/// A value: it can be kept (the journal does) after the connection is gone.
public struct Request: Sendable {
    public var method: HTTPMethod
    /// The request target exactly as sent, e.g. `/maps/api/geocode/xml?address=94086`.
    public var target: String { didSet { rawPathEnd = Self.rawPathEnd(of: target) } }
    /// Where `rawPath` ends in `target`'s UTF-8, -1 when the target has no `?`: found when the
    /// target is set, as a stub request reads the path several times.
    private var rawPathEnd = -1
    /// The percent-decoded path of the target.
    public var path: String
    /// The raw query string after `?`, without it; nil when the target has no `?`.
    public var rawQuery: String? {
        get { query.value }
        set { query.value = newValue }
    }
    private var query: Wrapped<String>
    /// Query parameters, percent- and `+`-decoded, in the order they were sent.
    public var queryItems: [QueryItem]
    /// Header fields in the order they were sent; repeated names stay separate fields.
    public var headers: HTTPHeaders
    public var body: [UInt8]
    /// The client's address (numeric) and port.
    public var remoteAddress: String
    public var remotePort: Int
    /// The local port the request arrived on: tells listeners apart.
    public var localPort: Int
    /// Monotonic nanoseconds at which the request was handed to the handler.
    public var receivedAtNanos: UInt64
    /// Came over TLS: an `https://` listener, or a CONNECT tunnel whose TLS the server ended.
    public var isSecure = false
    /// How a request meant for another server came through this one; nil for most. One reference:
    /// requests are moved and copied several times each, and most have none of it.
    private var proxied: Wrapped<ProxiedRequest>
    /// Numbers the requests of this process in the order they were made, from 1.
    public let serial: UInt64 = Request.serials.add(1, ordering: .relaxed).oldValue

    private static let serials = Atomic<UInt64>(1)
    /// Random per process, so that ids differ between runs.
    private static let runID = UInt64.random(in: 1...UInt64.max)

    /// A UUID-shaped id, unique per process (random part) and request (`serial`): the journal's
    /// id for the exchange, and WireMock 3's `request.id` in templates (the serve event's id).
    public var id: String { Self.serialID(serial) }

    /// An id in UUID form made of this run's random part and `serial`: unique within the run,
    /// made without a random draw per id.
    public static func serialID(_ serial: UInt64) -> String {
        let hex = Self.hex16(Self.runID) + Self.hex16(serial)
        let chars = Array(hex.utf8)
        return [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { String(decoding: chars[$0], as: UTF8.self) }.joined(separator: "-")
    }

    private static func hex16(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.utf8.count) + digits
    }

    /// For a request that came through a CONNECT tunnel: the host the client asked to reach
    /// (lower case, no port).
    public var tunnelHost: String? {
        get { proxied.value?.tunnelHost }
        set { proxied.value = ProxiedRequest.made(authority: proxiedAuthority, tunnelHost: newValue, tunnelScope: tunnelScope) }
    }

    /// For a request that came through a CONNECT tunnel: the state scope the CONNECT's proxy
    /// credentials named (`Proxy-Authorization` user name), nil when they named none.
    public var tunnelScope: String? {
        get { proxied.value?.tunnelScope }
        set { proxied.value = ProxiedRequest.made(authority: proxiedAuthority, tunnelHost: tunnelHost, tunnelScope: newValue) }
    }

    /// For a request sent to this server as a proxy in absolute form (`GET http://host:port/path`):
    /// `host:port` as sent. `target` is then the origin form (`/path`), as for any other request.
    public var proxiedAuthority: String? { proxied.value?.authority }

    public init(
        method: HTTPMethod, target: String, headers: HTTPHeaders = [:], body: [UInt8] = [],
        remoteAddress: String = "127.0.0.1", remotePort: Int = 0, localPort: Int = 0,
        receivedAtNanos: UInt64 = MonotonicClock.nanoseconds()
    ) {
        // Worked out first, then stored without branches: stored in branches, the request was
        // copied once more on its way out (as with an optional property, see `Wrapped`).
        let parts = RequestTarget(target)
        let originForm = parts.originForm
        self.method = method
        self.target = originForm ?? target
        proxied = Wrapped(value: originForm == nil ? nil : ProxiedRequest(authority: parts.authority, tunnelHost: nil, tunnelScope: nil))
        // `queryMark` is where `?` is in the target as sent; an origin form is a new string.
        rawPathEnd = originForm.map(Self.rawPathEnd) ?? parts.queryMark ?? -1
        self.path = parts.path
        query = Wrapped(value: parts.rawQuery)
        self.queryItems = parts.rawQuery.map(FormURLEncoding.decode) ?? []
        self.headers = headers
        self.body = body
        self.remoteAddress = remoteAddress
        self.remotePort = remotePort
        self.localPort = localPort
        self.receivedAtNanos = receivedAtNanos
    }

    /// The request was meant for another server, through this one as its proxy: an absolute-form
    /// target (`GET http://host/path`) or a tunnelled request.
    public var isProxied: Bool { proxied.value != nil }

    /// `http` or `https`.
    public var scheme: String { isSecure ? "https" : "http" }

    /// The path as sent (not decoded): the target up to `?`; the target itself (no copy) when
    /// it has no query, as most requests.
    public var rawPath: String {
        rawPathEnd < 0 ? target : String(Substring(target.utf8.prefix(rawPathEnd)))
    }

    private static func rawPathEnd(of target: String) -> Int {
        var target = target
        return target.withUTF8 { $0.firstIndex(of: UInt8(ascii: "?")) ?? -1 }
    }

    /// The first value of query parameter `name`.
    public func query(_ name: String) -> String? {
        queryItems.first { $0.name == name }?.value
    }

    /// Cookies from every `Cookie` header, in order (RFC 6265 §5.4 syntax: `a=1; b=2`).
    public var cookies: [(name: String, value: String)] {
        headers.values(for: "Cookie").flatMap { line in
            line.split(separator: ";").compactMap { pair -> (name: String, value: String)? in
                let trimmed = pair.drop { $0 == " " }
                guard let eq = trimmed.firstIndex(of: "=") else { return nil }
                var value = trimmed[trimmed.index(after: eq)...]
                if value.count >= 2, value.first == "\"", value.last == "\"" {
                    value = value.dropFirst().dropLast()
                }
                return (String(trimmed[..<eq]), String(value))
            }
        }
    }

    public func cookie(_ name: String) -> String? {
        cookies.first { $0.name == name }?.value
    }

    /// The body as UTF-8 text (invalid bytes replaced).
    public var bodyText: String { String(decoding: body, as: UTF8.self) }
}

/// An optional stored property of `Request`, in a struct of its own. With an optional of its own
/// among its stored properties, a `Request` came out of its initialiser copied once more (Swift
/// 6.3's optimiser left a retain and a release of every field there: ~380 instructions a request).
struct Wrapped<Value: Sendable>: Sendable {
    var value: Value?
}

/// The part of a request that only proxied requests have.
final class ProxiedRequest: Sendable {
    let authority: String?
    let tunnelHost: String?
    let tunnelScope: String?

    init(authority: String?, tunnelHost: String?, tunnelScope: String?) {
        self.authority = authority
        self.tunnelHost = tunnelHost
        self.tunnelScope = tunnelScope
    }

    /// nil when there is nothing to say: most requests.
    static func made(authority: String?, tunnelHost: String?, tunnelScope: String?) -> ProxiedRequest? {
        authority == nil && tunnelHost == nil && tunnelScope == nil
            ? nil
            : ProxiedRequest(authority: authority, tunnelHost: tunnelHost, tunnelScope: tunnelScope)
    }
}

/// Splits a request target into its decoded path and raw query. Works on the UTF-8 bytes: this
/// runs for every request.
struct RequestTarget {
    var path: String
    var rawQuery: String?
    /// For an absolute-form target: its `host:port`, and the target in origin form.
    var authority: String?
    var originForm: String?
    /// Where the first `?` is in the target's UTF-8 (even after a `#`), if it has one.
    var queryMark: Int?

    init(_ target: String) {
        var target = target
        var pathStart = 0
        var pathEnd = 0
        var end = 0
        var needsDecoding = false
        var authorityStart = 0
        var queryMark: Int?
        target.withUTF8 { bytes in
            end = bytes.count
            pathEnd = -1
            // One pass: the first "?" ends the path, "#" ends everything, "%" means decoding.
            for index in 0..<bytes.count {
                switch bytes[index] {
                case UInt8(ascii: "?") where pathEnd < 0: pathEnd = index
                case UInt8(ascii: "%") where pathEnd < 0: needsDecoding = true
                case UInt8(ascii: "#"): end = index
                default: continue
                }
                if end == index { break }
            }
            if pathEnd < 0 { pathEnd = end }
            queryMark = pathEnd < end ? pathEnd : bytes[end...].firstIndex(of: UInt8(ascii: "?"))
            // An absolute-form target (`GET http://host/path`, as sent to proxies) routes by its path.
            if end > 0 && bytes[0] != UInt8(ascii: "/"),
                let colon = bytes[..<pathEnd].firstIndex(of: UInt8(ascii: ":")),
                colon + 2 < pathEnd, bytes[colon + 1] == UInt8(ascii: "/"), bytes[colon + 2] == UInt8(ascii: "/")
            {
                authorityStart = colon + 3
                pathStart = bytes[(colon + 3)..<pathEnd].firstIndex(of: UInt8(ascii: "/")) ?? pathEnd
            }
        }
        if authorityStart > 0 {
            authority = Self.slice(&target, authorityStart, pathStart)
            let rest = Self.slice(&target, pathStart, target.utf8.count)
            originForm = rest.hasPrefix("/") ? rest : "/" + rest
        }
        if pathStart == 0 && pathEnd == target.utf8.count && !needsDecoding {
            path = target
        } else if pathStart == pathEnd {
            path = "/"
        } else {
            let raw = Self.slice(&target, pathStart, pathEnd)
            path = needsDecoding ? PercentDecoding.decode(raw, plusAsSpace: false) : raw
        }
        rawQuery = pathEnd < end ? Self.slice(&target, pathEnd + 1, end) : nil
        self.queryMark = queryMark
    }

    private static func slice(_ text: inout String, _ start: Int, _ end: Int) -> String {
        text.withUTF8 { String(decoding: UnsafeBufferPointer(rebasing: $0[start..<end]), as: UTF8.self) }
    }
}
