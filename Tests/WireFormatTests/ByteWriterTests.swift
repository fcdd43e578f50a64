import Testing
import WireFormat

@Suite struct ByteWriterTests {
    @Test func appendsPiecesInOrderAndGrows() {
        var writer = ByteWriter(capacity: 4)
        let emptyAtFirst = writer.isEmpty
        #expect(emptyAtFirst)
        writer.write("<a>" as StaticString)
        writer.write(String(repeating: "x", count: 100))
        writer.write([0x41, 0x42])
        writer.write(byte: UInt8(ascii: "!"))
        writer.spaces(3)
        writer.decimal(42)
        writer.write(" ")
        writer.decimal(7, minimumCount: 3)
        writer.write(" ")
        writer.decimal(0)
        #expect(String(decoding: writer.bytes, as: UTF8.self) == "<a>" + String(repeating: "x", count: 100) + "AB!   42 007 0")
        let count = writer.byteCount
        #expect(count == 117)
    }

    @Test func spacesStopAtTwenty() {
        var writer = ByteWriter(capacity: 64)
        writer.spaces(25)
        #expect(writer.bytes == Array(repeating: UInt8(ascii: " "), count: 20))
    }
}
