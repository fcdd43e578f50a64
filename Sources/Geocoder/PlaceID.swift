import Foundation

/// What a place ID names: a stable key of the place in the gazetteer or the user's places.
/// Google's IDs are opaque base64url strings starting `ChIJ`; ours look alike and carry the key
/// itself (lightly scrambled, so nobody parses them), so they survive restarts and data edits
/// that keep the place, and resolve without a table.
enum PlaceKey: Equatable {
    case postalCode(String)
    case state(String)
    case country(String)
    /// Country, region code and name key: what tells a town apart.
    case locality(country: String, region: String, name: String)
    case userPlace(String)

    var placeID: String {
        // The key's fields joined by "|", without intermediate strings: this runs for every result.
        var bytes: [UInt8] = []
        bytes.reserveCapacity(48)
        func field(_ text: String) {
            bytes.append(UInt8(ascii: "|"))
            bytes.append(contentsOf: text.utf8)
        }
        switch self {
        case .postalCode(let zip): bytes.append(UInt8(ascii: "Z")); field(zip)
        case .state(let code): bytes.append(UInt8(ascii: "S")); field(code)
        case .country(let code): bytes.append(UInt8(ascii: "C")); field(code)
        case .locality(let country, let region, let name): bytes.append(UInt8(ascii: "L")); field(country); field(region); field(name)
        case .userPlace(let key): bytes.append(UInt8(ascii: "U")); field(key)
        }
        // At least 20 bytes, NUL-padded, so every ID is as long as Google's (27 characters or more).
        if bytes.count < 20 { bytes += repeatElement(0, count: 20 - bytes.count) }
        for index in bytes.indices { bytes[index] ^= Self.mask[index & 7] }
        return Self.base64URL(bytes, after: "ChIJ")
    }

    /// `prefix`, then `bytes` in unpadded base64url (RFC 4648 §5), without Foundation.
    private static func base64URL(_ bytes: [UInt8], after prefix: StaticString) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(prefix.utf8CodeUnitCount + (bytes.count * 4 + 2) / 3)
        out.append(contentsOf: UnsafeBufferPointer(start: prefix.utf8Start, count: prefix.utf8CodeUnitCount))
        var index = 0
        while index < bytes.count {
            let count = min(3, bytes.count - index)
            var value = UInt32(bytes[index]) << 16
            if count > 1 { value |= UInt32(bytes[index + 1]) << 8 }
            if count > 2 { value |= UInt32(bytes[index + 2]) }
            for sextet in 0...count { out.append(alphabet[Int(value >> (18 - 6 * UInt32(sextet)) & 63)]) }
            index += 3
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    init?(placeID: String) {
        guard placeID.hasPrefix("ChIJ") else { return nil }
        var base64 = placeID.dropFirst(4).replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.utf8.count % 4) % 4)
        guard let data = Data(base64Encoded: base64) else { return nil }
        var bytes = data.enumerated().map { $1 ^ Self.mask[$0 % Self.mask.count] }
        while bytes.last == 0 { bytes.removeLast() }
        guard let text = String(validating: bytes, as: UTF8.self) else { return nil }
        let parts = text.split(separator: "|", omittingEmptySubsequences: false).map(String.init)
        switch (parts.first, parts.count) {
        case ("Z", 2): self = .postalCode(parts[1])
        case ("S", 2): self = .state(parts[1])
        case ("C", 2): self = .country(parts[1])
        case ("L", 4): self = .locality(country: parts[1], region: parts[2], name: parts[3])
        case ("U", 2): self = .userPlace(parts[1])
        default: return nil
        }
    }

    private static let mask: [UInt8] = [0x5A, 0x17, 0xC3, 0x88, 0x21, 0x6E, 0xF0, 0x3B]
}
