import WireFormat

/// Numbers as Google's geocoder prints them.
extension ByteWriter {
    /// The shortest text that reads back as `value` (Swift's own algorithm), at most 16
    /// significant digits as Google prints them, never in exponent form.
    mutating func number(_ value: Double) {
        write(GeocodeJSONWriter.number(value))
    }

    /// `-122.0238000`: fixed point with exactly 7 decimals.
    mutating func sevenDecimals(_ value: Double) {
        let scaled = UInt64((abs(value) * 1e7).rounded())
        if value < 0 && scaled != 0 { write("-") }
        decimal(scaled / 10_000_000)
        write(".")
        decimal(scaled % 10_000_000, minimumCount: 7)
    }
}
