/// The bytes libFuzzer hands a target, and the ways the targets cut them into parts.
public struct FuzzInput {
    public let bytes: [UInt8]

    public init(_ data: UnsafePointer<UInt8>?, _ size: Int) {
        guard let data, size > 0 else {
            bytes = []
            return
        }
        bytes = Array(UnsafeBufferPointer(start: data, count: size))
    }

    /// The input cut at the first NUL byte: e.g. an expression and the document it runs on.
    /// No NUL: everything is the first part and the second is empty.
    public var halves: ([UInt8], [UInt8]) {
        guard let nul = bytes.firstIndex(of: 0) else { return (bytes, []) }
        return (Array(bytes[..<nul]), Array(bytes[(nul + 1)...]))
    }

    /// The input as UTF-8 text (invalid bytes replaced), as the server sees most client text.
    public var text: String { String(decoding: bytes, as: UTF8.self) }
}

extension Array where Element == UInt8 {
    public var text: String { String(decoding: self, as: UTF8.self) }
}
