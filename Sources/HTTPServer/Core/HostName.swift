#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Host names and authorities (`host[:port]`) as clients send them, read by bytes.
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

    /// `localhost`, or an address of 127.0.0.0/8 or `::1` (an IPv4-mapped one too): this machine.
    /// Judged by the address, never by how a name is spelt: `127.evil.test` and `evil.localhost`
    /// are names like any other, which DNS may point anywhere.
    public static func isLoopback(_ host: String) -> Bool {
        host.lowercased() == "localhost" || isLoopbackAddress(host)
    }

    /// Whether `text` is a numeric IPv4 or IPv6 address of loopback (127.0.0.0/8, `::1`,
    /// `::ffff:127.x.y.z`); false for any name and for the unspecified addresses.
    public static func isLoopbackAddress(_ text: String) -> Bool {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 { return UInt32(bigEndian: v4.s_addr) >> 24 == 127 }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, text, &v6) == 1 else { return false }
        let bytes = withUnsafeBytes(of: &v6) { Array($0) }
        if bytes[0..<15].allSatisfy({ $0 == 0 }) { return bytes[15] == 1 }  // ::1
        let mapped = bytes[0..<10].allSatisfy { $0 == 0 } && bytes[10] == 0xFF && bytes[11] == 0xFF
        return mapped && bytes[12] == 127
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

extension Request {
    /// The host (lower case, no port) and port a request is for: the tunnel's, an absolute-form
    /// target's, or `Host`'s; the port is the scheme's default when none is given.
    public var requestedHost: (host: String, port: Int)? {
        let defaultPort = isSecure ? 443 : 80
        if let tunnelHost {
            let port = headers["Host"].flatMap { HostName.of(authority: Substring($0))?.port }
            return (tunnelHost, port ?? defaultPort)
        }
        let authority: Substring
        if let proxiedAuthority {
            authority = Substring(proxiedAuthority)
        } else if let host = headers["Host"] {
            authority = Substring(host)
        } else {
            return nil
        }
        return HostName.of(authority: authority).map { ($0.host, $0.port ?? defaultPort) }
    }
}
