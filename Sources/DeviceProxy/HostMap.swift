import Foundation
import HTTPServer
import JSON
import MockCore

/// `stubs/hosts.json`: the real hosts Understudy answers for when it is a device's proxy, and
/// with what. A value names a backend (an emulator, by the name `understudy emulators` lists;
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
