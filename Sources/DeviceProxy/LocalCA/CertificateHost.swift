import HTTPServer

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The host a leaf certificate is issued for: a DNS name or an IP address, checked and in the one
/// form the certificate cache is keyed by. Anything else (wildcards, underscores, spaces, NULs,
/// non-ASCII) is refused, so no client-sent text reaches OpenSSL's extension syntax unchecked.
enum CertificateHost: Hashable, Sendable {
    /// Lower-cased letters, digits, hyphens and dots.
    case name(String)
    /// inet_ntop's form: "127.0.0.1", "::1".
    case address(String)

    init?(_ host: String) {
        let bytes = Array(host.utf8)
        guard !bytes.isEmpty, bytes.count <= 255, !bytes.contains(0) else { return nil }
        if let address = Self.canonicalAddress(bytes) {
            self = .address(address)
        } else if Self.isDNSName(bytes) {
            self = .name(String(decoding: bytes.map(Self.lowercased), as: UTF8.self))
        } else {
            return nil
        }
    }

    /// The name as it goes in the certificate's subject.
    var text: String {
        switch self {
        case .name(let name): name
        case .address(let address): address
        }
    }

    /// The subjectAltName entry, in OpenSSL's extension-configuration syntax.
    var subjectAltName: String {
        switch self {
        case .name(let name): "DNS:\(name)"
        case .address(let address): "IP:\(address)"
        }
    }

    /// An IPv4 or IPv6 literal (IPv6 with or without brackets), rewritten as inet_ntop writes it.
    private static func canonicalAddress(_ bytes: [UInt8]) -> String? {
        let bare = bytes.first == UInt8(ascii: "[") && bytes.last == UInt8(ascii: "]") ? Array(bytes.dropFirst().dropLast()) : bytes
        let text = String(decoding: bare, as: UTF8.self)
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        var address = in6_addr()
        for family in [AF_INET, AF_INET6] where inet_pton(family, text, &address) == 1 {
            guard inet_ntop(family, &address, &buffer, socklen_t(buffer.count)) != nil else { return nil }
            return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
        return nil
    }

    /// At most 253 bytes of dot-separated labels, each 1–63 letters, digits and hyphens, not
    /// beginning or ending with a hyphen. A last label of digits only is refused too: browsers
    /// read such a host ("10.0.0", "999.1.1.1") as an IPv4 address, never as a name.
    private static func isDNSName(_ bytes: [UInt8]) -> Bool {
        guard bytes.count <= 253 else { return false }
        let labels = bytes.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        for label in labels {
            guard (1...63).contains(label.count), label.allSatisfy(isLetterDigitOrHyphen),
                label.first != UInt8(ascii: "-"), label.last != UInt8(ascii: "-")
            else { return false }
        }
        return !(labels.last ?? []).allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
    }

    private static func isLetterDigitOrHyphen(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"):
            true
        default: false
        }
    }

    private static func lowercased(_ byte: UInt8) -> UInt8 {
        (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte + 32 : byte
    }
}
