import Foundation
import JSON

/// `stubs/hosts.json`: the real hosts Understudy answers for when it is a device's proxy, and
/// with what. A value names a backend (an emulator: `geocoder`, `informix`, `lotus`, `commerce`;
/// `stubs` for the stub mappings, stub packs included; `recordings`), or maps path prefixes to
/// backends. A key is a host name, an IP address, or `*.domain` (any name under `domain`):
///
/// ```json
/// { "maps.googleapis.com": "geocoder",
///   "www.ibm.com": { "/developerworks/mydeveloperworks": "lotus" },
///   "*.example.com": "stubs" }
/// ```
///
/// Stub mappings (and recordings) answer every mapped host, as they answer everything: a mapping
/// that is for one host only says so with its `host` condition.
public struct HostMap: Sendable {
    /// What answers a mapped host.
    public enum Target: Sendable, Equatable {
        case backend(String)
        /// Longest prefix first.
        case prefixes([Prefix])
    }

    public struct Prefix: Sendable, Equatable {
        public var path: String
        public var backend: String
    }

    private var exact: [String: Target] = [:]
    /// `*.example.com` as `.example.com`, longest first.
    private var wildcards: [(suffix: String, target: Target)] = []
    /// Host keys as written, in file order (for the PAC file and the docs page).
    public private(set) var hosts: [String] = []

    public init() {}

    public var isEmpty: Bool { hosts.isEmpty }

    /// The entry for `host` (lower case, no port), if any.
    public func target(for host: String) -> Target? {
        if let found = exact[host] { return found }
        for wildcard in wildcards where host.hasSuffix(wildcard.suffix) && host.utf8.count > wildcard.suffix.utf8.count {
            return wildcard.target
        }
        return nil
    }

    /// The backend that answers `path` on a host with `target`; nil when no prefix holds it.
    public static func backend(for path: String, in target: Target) -> String? {
        switch target {
        case .backend(let name): return name
        case .prefixes(let prefixes):
            return prefixes.first { Router.path(path, isUnder: $0.path) }?.backend
        }
    }

    /// Reads `file` (absent: an empty map). `backends` are the names a value may use; a problem
    /// names the file and the entry.
    public static func load(_ file: URL, backends: Set<String>) throws(FixtureError) -> HostMap {
        guard let json = try FixtureError.configuration(at: file) else { return HostMap() }
        return try parse(json, file: file, backends: backends)
    }

    /// The map in `json` (an object); `file` is for messages.
    public static func parse(_ json: JSONValue, file: URL, backends: Set<String>) throws(FixtureError) -> HostMap {
        guard let entries = json.objectValue else { throw FixtureError.field(file, "(top level)", "must be an object") }
        var map = HostMap()
        for (key, value) in entries {
            let host = key.lowercased()
            guard let pattern = HostPattern(host) else {
                throw FixtureError.field(file, key, "not a host name, an IP address or *.domain")
            }
            let target: Target
            switch value {
            case .string(let name):
                target = .backend(try known(name, backends, file, key))
            case .object(let members):
                guard !members.isEmpty else { throw FixtureError.field(file, key, "maps no path prefix") }
                var prefixes: [Prefix] = []
                for (path, backend) in members {
                    guard path.hasPrefix("/") else { throw FixtureError.field(file, "\(key).\(path)", "a path prefix starts with /") }
                    guard case .string(let name) = backend else { throw FixtureError.field(file, "\(key).\(path)", "must name a backend") }
                    prefixes.append(Prefix(path: Router.normalized(path), backend: try known(name, backends, file, "\(key).\(path)")))
                }
                target = .prefixes(prefixes.sorted { $0.path.utf8.count > $1.path.utf8.count })
            default:
                throw FixtureError.field(file, key, "must name a backend or map path prefixes to backends")
            }
            guard !map.hosts.contains(host) else { throw FixtureError.field(file, key, "given twice") }
            switch pattern {
            case .exact: map.exact[host] = target
            case .wildcard(let suffix): map.wildcards.append((suffix, target))
            }
            map.hosts.append(host)
        }
        map.wildcards.sort { $0.suffix.utf8.count > $1.suffix.utf8.count }
        return map
    }

    private static func known(_ name: String, _ backends: Set<String>, _ file: URL, _ field: String) throws(FixtureError) -> String {
        guard backends.contains(name) else {
            throw FixtureError.field(file, field, "no backend '\(name)' (there are: \(backends.sorted().joined(separator: ", ")))")
        }
        return name
    }
}

/// A host as a client names it in a request: a DNS name or an IP address (IPv6 in brackets for
/// `Host` and CONNECT), checked before it is trusted with a certificate or a map look-up.
public enum HostPattern: Equatable {
    case exact
    /// `*.example.com`: `.example.com`.
    case wildcard(String)

    init?(_ key: String) {
        if key.hasPrefix("*.") {
            let suffix = String(key.dropFirst(1))
            guard HostName.isValid(String(suffix.dropFirst())) else { return nil }
            self = .wildcard(suffix)
        } else {
            guard HostName.isValid(key) || HostName.isIPAddress(key) else { return nil }
            self = .exact
        }
    }
}

public enum HostName {
    /// A DNS name as RFC 1123 allows it: at most 253 bytes, labels of 1 to 63 letters, digits
    /// and hyphens, not starting or ending with a hyphen.
    public static func isValid(_ name: String) -> Bool { isValidName(name.utf8) }

    private static func isValidName(_ bytes: some Collection<UInt8>) -> Bool {
        guard !bytes.isEmpty, bytes.count <= 253 else { return false }
        var labelLength = 0
        var previous: UInt8 = UInt8(ascii: ".")
        for byte in bytes {
            if byte == UInt8(ascii: ".") {
                guard labelLength > 0, previous != UInt8(ascii: "-") else { return false }
                labelLength = 0
            } else {
                let letterOrDigit = (byte >= 0x30 && byte <= 0x39) || (byte | 0x20 >= 0x61 && byte | 0x20 <= 0x7A)
                guard letterOrDigit || byte == UInt8(ascii: "-") else { return false }
                guard byte != UInt8(ascii: "-") || labelLength > 0 else { return false }
                labelLength += 1
                guard labelLength <= 63 else { return false }
            }
            previous = byte
        }
        return labelLength > 0 && previous != UInt8(ascii: "-")
    }

    /// `localhost` (and names under it, RFC 6761), `::1` or 127.0.0.0/8: this machine.
    public static func isLoopback(_ host: String) -> Bool {
        let name = host.lowercased()
        return name == "localhost" || name.hasSuffix(".localhost") || name == "::1" || name.hasPrefix("127.")
    }

    /// An IPv4 or IPv6 address (without brackets).
    public static func isIPAddress(_ text: String) -> Bool {
        var v4 = in_addr()
        var v6 = in6_addr()
        return inet_pton(AF_INET, text, &v4) == 1 || inet_pton(AF_INET6, text, &v6) == 1
    }

    /// `host` of `host[:port]` or `[v6]:port`, lower case, brackets off; nil when it is neither a
    /// DNS name nor an IP address. Bytes only: device mode reads it for every proxied request.
    public static func of(authority: Substring) -> (host: String, port: Int?)? {
        let utf8 = authority.utf8
        guard utf8.allSatisfy({ $0 < 0x80 }) else { return nil }  // neither a name nor an address
        var hostEnd = utf8.endIndex
        var port: Int?
        if utf8.first == UInt8(ascii: "[") {
            guard let close = utf8.firstIndex(of: UInt8(ascii: "]")) else { return nil }
            let after = utf8[utf8.index(after: close)...]
            if let first = after.first {
                guard first == UInt8(ascii: ":"), let number = portNumber(after.dropFirst()) else { return nil }
                port = number
            }
            let address = lowercased(utf8[utf8.index(after: utf8.startIndex)..<close])
            return isIPAddress(address) ? (address, port) : nil
        }
        if let colon = utf8.lastIndex(of: UInt8(ascii: ":")) {
            guard let number = portNumber(utf8[utf8.index(after: colon)...]) else { return nil }
            port = number
            hostEnd = colon
        }
        let hostBytes = utf8[..<hostEnd]
        let name = lowercased(hostBytes)
        guard isValidName(hostBytes) || isIPAddress(name) else { return nil }
        return (name, port)
    }

    /// 1 to 65535 in decimal digits, nothing else.
    private static func portNumber(_ digits: Substring.UTF8View.SubSequence) -> Int? {
        guard (1...5).contains(digits.count) else { return nil }
        var number = 0
        for byte in digits {
            guard byte >= 0x30 && byte <= 0x39 else { return nil }
            number = number * 10 + Int(byte - 0x30)
        }
        return (1...65535).contains(number) ? number : nil
    }

    /// ASCII letters lowered (the caller has checked every byte is ASCII).
    private static func lowercased(_ bytes: Substring.UTF8View.SubSequence) -> String {
        String(decoding: bytes.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }, as: UTF8.self)
    }
}
