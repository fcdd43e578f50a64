/// Response bytes built in place: literals copied straight from the binary, text and numbers
/// appended without intermediate strings. (Building the same answer with String concatenation
/// cost several times the instructions of the whole HTTP exchange.)
struct ByteWriter {
    private(set) var bytes: [UInt8] = []

    init(capacity: Int) {
        bytes.reserveCapacity(capacity)
    }

    mutating func write(_ literal: StaticString) {
        bytes.append(contentsOf: UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount))
    }

    mutating func write(_ text: String) {
        var text = text
        text.withUTF8 { bytes.append(contentsOf: $0) }
    }

    /// Whether `text` has one of `special`'s bytes: most texts need no escaping.
    static func contains(_ text: String, anyOf special: (UInt8) -> Bool) -> Bool {
        var text = text
        return text.withUTF8 { $0.contains(where: special) }
    }

    mutating func spaces(_ count: Int) {
        for _ in 0..<count { bytes.append(0x20) }
    }

    /// `-122.0238000`: fixed point with exactly 7 decimals.
    mutating func sevenDecimals(_ value: Double) {
        let scaled = UInt64((abs(value) * 1e7).rounded())
        if value < 0 && scaled != 0 { bytes.append(UInt8(ascii: "-")) }
        digits(scaled / 10_000_000, minimumCount: 1)
        bytes.append(UInt8(ascii: "."))
        digits(scaled % 10_000_000, minimumCount: 7)
    }

    private mutating func digits(_ value: UInt64, minimumCount: Int) {
        var buffer: (UInt64, UInt64, UInt64) = (0, 0, 0)  // 24 bytes on the stack
        withUnsafeMutableBytes(of: &buffer) { raw in
            var value = value, index = raw.count
            repeat {
                index -= 1
                raw[index] = UInt8(ascii: "0") + UInt8(value % 10)
                value /= 10
            } while value > 0 || raw.count - index < minimumCount
            bytes.append(contentsOf: raw[index...])
        }
    }
}
