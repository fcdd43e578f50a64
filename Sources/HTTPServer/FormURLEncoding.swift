/// Percent-decoding of URL parts. Malformed escapes (`%zz`, a trailing `%`) are kept literally,
/// as browsers and most servers do, rather than rejecting the request.
public enum PercentDecoding {
    public static func decode<S: StringProtocol>(_ text: S, plusAsSpace: Bool) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        var iterator = Array(text.utf8)[...]
        while let byte = iterator.popFirst() {
            switch byte {
            case UInt8(ascii: "+") where plusAsSpace:
                bytes.append(UInt8(ascii: " "))
            case UInt8(ascii: "%"):
                if iterator.count >= 2, let high = hexValue(iterator[iterator.startIndex]),
                   let low = hexValue(iterator[iterator.startIndex + 1]) {
                    bytes.append(high << 4 | low)
                    iterator = iterator.dropFirst(2)
                } else {
                    bytes.append(byte)
                }
            default:
                bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
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
        text.split(separator: "&", omittingEmptySubsequences: true).map { pair in
            guard let eq = pair.firstIndex(of: "=") else {
                return QueryItem(name: PercentDecoding.decode(pair, plusAsSpace: true), value: nil)
            }
            return QueryItem(
                name: PercentDecoding.decode(pair[..<eq], plusAsSpace: true),
                value: PercentDecoding.decode(pair[pair.index(after: eq)...], plusAsSpace: true)
            )
        }
    }
}
