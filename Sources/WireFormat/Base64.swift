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
