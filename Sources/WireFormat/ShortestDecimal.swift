/// The text Swift's `description` gives a `Double` (the shortest digits that read back as it), made
/// on the stack: writing numbers through `description` made and freed a String for each, about
/// half the cost of a geocoder answer's coordinates.
public struct ShortestDecimal: TextOutputStream {
    /// 32 bytes; the longest text of a `Double` is 24.
    @usableFromInline var storage: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
    public private(set) var count = 0

    public init(_ value: Double) {
        if value.isNaN {
            // `description` writes any NaN so, where `write(to:)` adds its sign and payload.
            write("nan")
        } else {
            // The standard library hands a floating-point number's text to `_writeASCII` as bytes.
            value.write(to: &self)
        }
    }

    public mutating func write(_ string: String) {
        var string = string
        string.withUTF8 { _writeASCII($0) }
    }

    public mutating func _writeASCII(_ buffer: UnsafeBufferPointer<UInt8>) {
        let start = count
        withUnsafeMutableBytes(of: &storage) { storage in
            let length = min(buffer.count, storage.count - start)
            guard length > 0, let source = buffer.baseAddress else { return }
            storage.baseAddress?.advanced(by: start).copyMemory(from: source, byteCount: length)
            count = start + length
        }
    }

    /// The text's bytes, for the duration of `body`.
    @inlinable
    public func withBytes<Result>(_ body: (UnsafeRawBufferPointer) -> Result) -> Result {
        withUnsafeBytes(of: storage) { body(UnsafeRawBufferPointer(rebasing: $0[..<count])) }
    }
}

extension ByteWriter {
    @inlinable
    public mutating func write(_ number: ShortestDecimal) {
        number.withBytes { write($0) }
    }
}
