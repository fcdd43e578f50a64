import Testing
import WireFormat

@Suite struct ShortestDecimalTests {
    private func text(_ value: Double) -> String {
        var out = ByteWriter(capacity: 8)
        out.write(ShortestDecimal(value))
        return String(decoding: out.bytes, as: UTF8.self)
    }

    @Test func writesWhatDescriptionWrites() {
        let values: [Double] = [
            0, -0.0, 1, -1, 0.1, 37.3764, -122.0238, 38.899025280291504, 1e-5, 123_456_789_012_345_680,
            .pi, -.pi, 1e308, -1.7976931348623157e308, .leastNonzeroMagnitude, .infinity, -.infinity, .nan, -.nan, .signalingNaN,
        ]
        for value in values { #expect(text(value) == value.description, "\(value)") }
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2_000 {
            let value = Double(bitPattern: generator.next())
            #expect(text(value) == value.description, "\(value.bitPattern)")
        }
    }
}
