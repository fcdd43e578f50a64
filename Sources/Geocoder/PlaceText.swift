import WireFormat

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// UTF-8 text a gazetteer result is written from, read in place: a string of the gazetteer's
/// image (valid as long as the gazetteer) or a literal. Copying one retains nothing, so a result
/// is written from the records without making a `String` of each.
struct PlaceText: @unchecked Sendable, Equatable {
    let bytes: UnsafeRawBufferPointer

    init(_ bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    init(_ literal: StaticString) {
        bytes = UnsafeRawBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount)
    }

    var isEmpty: Bool { bytes.isEmpty }

    var string: String { String(decoding: bytes, as: UTF8.self) }

    static func == (left: PlaceText, right: PlaceText) -> Bool {
        guard left.bytes.count == right.bytes.count else { return false }
        guard let leftStart = left.bytes.baseAddress, let rightStart = right.bytes.baseAddress else { return true }
        return memcmp(leftStart, rightStart, left.bytes.count) == 0
    }
}

extension PlaceText: ResultText {
    func write(to out: inout ByteWriter) { out.write(bytes) }

    func write(escapedBy escaper: TextEscaper, to out: inout ByteWriter) {
        escaper.append(bytes.assumingMemoryBound(to: UInt8.self), to: &out)
    }
}
