import Foundation
import WireFormat

/// Numbers as Google's geocoder prints them.
extension ByteWriter {
    /// The shortest text that reads back as `value` (Swift's own algorithm), but at most 16
    /// significant digits, as Google prints them (`38.8990252802915` where the shortest form is
    /// `38.899025280291504`); never in exponent form (Swift writes 1e-05 for 0.00001).
    mutating func number(_ value: Double) {
        // Every gazetteer coordinate has at most 7 decimals: such a value (the double nearest to a
        // decimal of at most 15 digits) reads back from exactly those digits, so they are its
        // shortest form, written without the shortest-digits search. The nearest multiple of
        // 10⁻⁷ is found without a call to `rounded()`; the comparison checks it.
        if abs(value) < 1e8 {
            let scaled = Int64(value * 1e7 + (value < 0 ? -0.5 : 0.5))
            if Double(scaled) / 1e7 == value { return fixedPoint(scaled.magnitude, negative: value < 0, trimmingZeros: true) }
        }
        if value == value.rounded(), abs(value) < 1e15 {
            if value < 0 { write(byte: UInt8(ascii: "-")) }
            return decimal(UInt64(abs(value)))
        }
        shortestNumber(value)
    }

    /// `number` of a value that is not whole, by the shortest-digits search alone (the reference
    /// the tests hold the faster path to).
    mutating func shortestNumber(_ value: Double) {
        guard abs(value) >= 1e-4 else { return write(GeocodeXMLWriter.sevenDecimals(value).droppingZeroTail()) }
        let shortest = ShortestDecimal(value)
        let digits = shortest.withBytes { $0.count(where: { (0x30...0x39).contains($0) }) }
        guard shortest.count > 17, digits > 16 else { return write(shortest) }
        write(String(format: "%.16g", value).droppingZeroTail())
    }

    /// `-122.0238000`: fixed point with exactly 7 decimals.
    mutating func sevenDecimals(_ value: Double) {
        let scaled = UInt64((abs(value) * 1e7).rounded())
        fixedPoint(scaled, negative: value < 0 && scaled != 0, trimmingZeros: false)
    }

    /// `digits` × 10⁻⁷ with 7 decimals, or without the fraction's trailing zeros (and without
    /// the point when they are all zeros). Made on the stack and written at once: this runs for
    /// every coordinate.
    private mutating func fixedPoint(_ digits: UInt64, negative: Bool, trimmingZeros: Bool) {
        var buffer: (UInt64, UInt64, UInt64) = (0, 0, 0)  // 24 bytes: 20 digits, the point and a sign
        withUnsafeMutableBytes(of: &buffer) { text in
            // The 7 decimals at the end (two at a time), then the point and the whole part.
            var fraction = UInt32(digits % 10_000_000)
            var whole = digits / 10_000_000
            let point = text.count - 8
            var end = text.count
            for pair in 0..<3 {
                let twoDigits = Int(fraction % 100) * 2
                fraction /= 100
                text[end - 2 * pair - 1] = Self.digitPairs[twoDigits + 1]
                text[end - 2 * pair - 2] = Self.digitPairs[twoDigits]
            }
            text[point + 1] = UInt8(ascii: "0") + UInt8(fraction)
            text[point] = UInt8(ascii: ".")
            if trimmingZeros {
                while end > point + 1, text[end - 1] == UInt8(ascii: "0") { end -= 1 }
                if end == point + 1 { end = point }
            }
            var start = point
            repeat {
                start -= 1
                text[start] = UInt8(ascii: "0") + UInt8(whole % 10)
                whole /= 10
            } while whole > 0
            if negative {
                start -= 1
                text[start] = UInt8(ascii: "-")
            }
            write(UnsafeRawBufferPointer(rebasing: text[start..<end]))
        }
    }
}

extension ByteWriter {
    /// "00" to "99", for writing two digits at a time.
    fileprivate static var digitPairs: UnsafeBufferPointer<UInt8> {
        let pairs: StaticString =
            "00010203040506070809101112131415161718192021222324252627282930313233343536373839404142434445464748495051525354555657585960616263646566676869707172737475767778798081828384858687888990919293949596979899"
        return UnsafeBufferPointer(start: pairs.utf8Start, count: pairs.utf8CodeUnitCount)
    }
}

extension String {
    /// `0.0000100` → `0.00001`.
    fileprivate func droppingZeroTail() -> String {
        var text = self
        while text.hasSuffix("0") { text.removeLast() }
        return text
    }
}
