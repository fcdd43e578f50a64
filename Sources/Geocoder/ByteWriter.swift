/// Response bytes built in place: literals copied straight from the binary, text and numbers
/// appended without intermediate strings. (Building the same answer with String concatenation
/// cost several times the instructions of the whole HTTP exchange.)
struct ByteWriter: ~Copyable {
    // Growable bytes appended with memcpy: `Array.append(contentsOf:)` costs over a hundred
    // instructions a call, and an answer is a few hundred short pieces. Non-copyable, so the
    // buffer has one owner and is freed when the writer ends.
    private var base: UnsafeMutablePointer<UInt8>
    private var capacity: Int
    private var count = 0

    init(capacity: Int) {
        self.capacity = max(capacity, 64)
        base = .allocate(capacity: self.capacity)
    }

    deinit { base.deallocate() }

    var bytes: [UInt8] { Array(UnsafeBufferPointer(start: base, count: count)) }

    private mutating func append(_ source: UnsafePointer<UInt8>, _ length: Int) {
        if count + length > capacity {
            capacity = max(capacity * 2, count + length)
            let grown = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity)
            grown.update(from: base, count: count)
            base.deallocate()
            base = grown
        }
        (base + count).update(from: source, count: length)
        count += length
    }

    mutating func write(_ literal: StaticString) {
        append(literal.utf8Start, literal.utf8CodeUnitCount)
    }

    mutating func write(_ text: String) {
        // Long native strings are read in place; short ones live inside the String value itself.
        if text.utf8.withContiguousStorageIfAvailable({ append($0.baseAddress!, $0.count) }) == nil {
            var text = text
            text.withUTF8 { append($0.baseAddress!, $0.count) }
        }
    }

    mutating func write(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress else { return }
        append(base.assumingMemoryBound(to: UInt8.self), bytes.count)
    }

    mutating func spaces(_ count: Int) {
        let blanks: StaticString = "                    "
        append(blanks.utf8Start, min(count, blanks.utf8CodeUnitCount))
    }

    /// The shortest text that reads back as `value` (Swift's own algorithm), at most 16
    /// significant digits as Google prints them, never in exponent form.
    mutating func number(_ value: Double) {
        write(GeocodeJSONWriter.number(value))
    }

    /// Whether `text` has one of `special`'s bytes: most texts need no escaping.
    static func contains(_ text: String, anyOf special: (UInt8) -> Bool) -> Bool {
        text.utf8.withContiguousStorageIfAvailable { $0.contains(where: special) } ?? text.utf8.contains(where: special)
    }

    /// `-122.0238000`: fixed point with exactly 7 decimals.
    mutating func sevenDecimals(_ value: Double) {
        let scaled = UInt64((abs(value) * 1e7).rounded())
        if value < 0 && scaled != 0 { write("-") }
        digits(scaled / 10_000_000, minimumCount: 1)
        write(".")
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
            write(UnsafeRawBufferPointer(rebasing: raw[index...]))
        }
    }
}
