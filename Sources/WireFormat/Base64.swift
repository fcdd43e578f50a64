/// Base64 (RFC 4648, the standard alphabet, padded) of client bytes, without Foundation: a proxy
/// request's credentials are read on the request path, where `Data(base64Encoded:)` and its
/// string bridging cost some ten thousand instructions.
public enum Base64 {
    /// The bytes `text` encodes; nil unless it is padded base64 and nothing else.
    @inlinable
    public static func decode<Text: Collection<UInt8>>(_ text: Text) -> [UInt8]? {
        guard text.count % 4 == 0 else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(text.count / 4 * 3)
        var quantum: UInt32 = 0
        var filled = 0
        var padding = 0
        for byte in text {
            if byte == UInt8(ascii: "=") {
                padding += 1
                guard padding <= 2 else { return nil }
                quantum <<= 6
                filled += 1
            } else {
                guard padding == 0, let value = sextet(byte) else { return nil }
                quantum = quantum << 6 | UInt32(value)
                filled += 1
            }
            if filled == 4 {
                out.append(UInt8(truncatingIfNeeded: quantum >> 16))
                if padding < 2 { out.append(UInt8(truncatingIfNeeded: quantum >> 8)) }
                if padding < 1 { out.append(UInt8(truncatingIfNeeded: quantum)) }
                quantum = 0
                filled = 0
            }
        }
        return out
    }

    /// `bytes` as padded base64.
    public static func encode(_ bytes: some Collection<UInt8>) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
        let bytes = Array(bytes)
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count + 2) / 3 * 4)
        for start in stride(from: 0, to: bytes.count, by: 3) {
            let count = min(3, bytes.count - start)
            var quantum = UInt32(bytes[start]) << 16
            if count > 1 { quantum |= UInt32(bytes[start + 1]) << 8 }
            if count > 2 { quantum |= UInt32(bytes[start + 2]) }
            for index in 0..<4 {
                out.append(index <= count ? alphabet[Int(quantum >> UInt32(18 - 6 * index) & 0x3F)] : UInt8(ascii: "="))
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    @usableFromInline
    static func sextet(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): byte - UInt8(ascii: "A")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): byte - UInt8(ascii: "a") + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0") + 52
        case UInt8(ascii: "+"): 62
        case UInt8(ascii: "/"): 63
        default: nil
        }
    }
}
