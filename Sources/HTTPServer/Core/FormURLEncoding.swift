/// Percent-decoding of URL parts. Malformed escapes (`%zz`, a trailing `%`) are kept literally,
/// as browsers and most servers do, rather than rejecting the request.
public enum PercentDecoding {
    public static func decode<S: StringProtocol>(_ text: S, plusAsSpace: Bool) -> String {
        var text = String(text)
        return text.withUTF8 { decode(bytes: $0, plusAsSpace: plusAsSpace) }
    }

    /// Works on the bytes in place; a part with nothing to decode (the usual case) becomes its
    /// String directly. This runs for every query parameter of every request.
    static func decode(bytes: UnsafeBufferPointer<UInt8>, plusAsSpace: Bool) -> String {
        guard bytes.contains(where: { $0 == UInt8(ascii: "%") || (plusAsSpace && $0 == UInt8(ascii: "+")) }) else {
            return String(decoding: bytes, as: UTF8.self)
        }
        var decoded: [UInt8] = []
        decoded.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            if byte == UInt8(ascii: "+") && plusAsSpace {
                decoded.append(UInt8(ascii: " "))
            } else if byte == UInt8(ascii: "%"), index + 1 < bytes.count,
                let high = hexValue(bytes[index]), let low = hexValue(bytes[index + 1])
            {
                decoded.append(high << 4 | low)
                index += 2
            } else {
                decoded.append(byte)
            }
        }
        return String(decoding: decoded, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}

/// `application/x-www-form-urlencoded` as used in query strings: `&`-separated pairs, `+` is a
/// space, empty pairs skipped, order and repeats kept.
public enum FormURLEncoding {
    public static func decode(_ text: String) -> [QueryItem] {
        var text = text
        return text.withUTF8 { bytes in
            var items: [QueryItem] = []
            var start = 0
            while start < bytes.count {
                let end = bytes[start...].firstIndex(of: UInt8(ascii: "&")) ?? bytes.count
                if end > start {
                    let pair = UnsafeBufferPointer(rebasing: bytes[start..<end])
                    if let eq = pair.firstIndex(of: UInt8(ascii: "=")) {
                        items.append(
                            QueryItem(
                                name: PercentDecoding.decode(bytes: UnsafeBufferPointer(rebasing: pair[..<eq]), plusAsSpace: true),
                                value: PercentDecoding.decode(bytes: UnsafeBufferPointer(rebasing: pair[(eq + 1)...]), plusAsSpace: true)))
                    } else {
                        items.append(QueryItem(name: PercentDecoding.decode(bytes: pair, plusAsSpace: true), value: nil))
                    }
                }
                start = end + 1
            }
            return items
        }
    }
}
