import Foundation
import WireFormat

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
        var out = ByteWriter(capacity: 64)
        var id: PlaceIDWriter
        switch self {
        case .postalCode(let zip):
            id = PlaceIDWriter(tag: "Z", to: &out)
            id.field(zip, to: &out)
        case .state(let code):
            id = PlaceIDWriter(tag: "S", to: &out)
            id.field(code, to: &out)
        case .country(let code):
            id = PlaceIDWriter(tag: "C", to: &out)
            id.field(code, to: &out)
        case .locality(let country, let region, let name):
            id = PlaceIDWriter(tag: "L", to: &out)
            id.field(country, to: &out)
            id.field(region, to: &out)
            id.field(name, to: &out)
        case .userPlace(let key):
            id = PlaceIDWriter(tag: "U", to: &out)
            id.field(key, to: &out)
        }
        id.finish(to: &out)
        return String(decoding: out.bytes, as: UTF8.self)
    }

    init?(placeID: String) {
        guard placeID.hasPrefix("ChIJ") else { return nil }
        var base64 = placeID.dropFirst(4).replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.utf8.count % 4) % 4)
        guard let data = Data(base64Encoded: base64) else { return nil }
        var bytes = data.enumerated().map { $1 ^ PlaceIDWriter.mask(at: $0) }
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
}

/// Writes a place ID as it goes, without intermediate strings (this runs for every result):
/// `ChIJ`, then the key — a tag byte and its fields, each after a "|" — at least 20 bytes
/// (NUL-padded, so every ID is as long as Google's, 27 characters or more), masked, in unpadded
/// base64url (RFC 4648 §5).
struct PlaceIDWriter {
    /// Key bytes not yet written (up to 3, a base64 group), and how many key bytes there were.
    private var group: UInt32 = 0, groupCount = 0, count = 0

    init(tag: Unicode.Scalar, to out: inout ByteWriter) {
        out.write("ChIJ")
        append(UInt8(ascii: tag), to: &out)
    }

    /// `|` and a field's bytes.
    mutating func field(_ text: PlaceText, to out: inout ByteWriter) {
        append(UInt8(ascii: "|"), to: &out)
        bytes(text, to: &out)
    }

    mutating func field(_ text: String, to out: inout ByteWriter) {
        append(UInt8(ascii: "|"), to: &out)
        for byte in text.utf8 { append(byte, to: &out) }
    }

    /// Bytes that continue the current field.
    mutating func bytes(_ text: PlaceText, to out: inout ByteWriter) {
        for byte in text.bytes { append(byte, to: &out) }
    }

    mutating func finish(to out: inout ByteWriter) {
        while count < 20 { append(0, to: &out) }
        guard groupCount > 0 else { return }
        // The last 1 or 2 bytes make 2 or 3 characters.
        let value = group << (8 * UInt32(3 - groupCount))
        for sextet in 0...groupCount { out.write(byte: Self.character(value >> (18 - 6 * UInt32(sextet)))) }
    }

    private mutating func append(_ byte: UInt8, to out: inout ByteWriter) {
        group = group << 8 | UInt32(byte ^ Self.mask(at: count))
        count += 1
        groupCount += 1
        guard groupCount == 3 else { return }
        // Four characters, written at once.
        var characters =
            UInt32(Self.character(group >> 18)) | UInt32(Self.character(group >> 12)) << 8
            | UInt32(Self.character(group >> 6)) << 16 | UInt32(Self.character(group)) << 24
        characters = characters.littleEndian
        withUnsafeBytes(of: &characters) { out.write($0) }
        group = 0
        groupCount = 0
    }

    private static func character(_ value: UInt32) -> UInt8 {
        let alphabet: StaticString = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
        return alphabet.utf8Start[Int(value & 63)]
    }

    /// The byte that masks key byte `position`: the key is lightly scrambled, so nobody parses it.
    static func mask(at position: Int) -> UInt8 {
        let mask: UInt64 = 0x3BF0_6E21_88C3_175A  // 5A 17 C3 88 21 6E F0 3B, from the lowest byte
        return UInt8(truncatingIfNeeded: mask >> (8 * UInt64(position & 7)))
    }
}
