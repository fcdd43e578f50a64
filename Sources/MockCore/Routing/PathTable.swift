/// Exact look-up by request path, for tables built once and read on every request (static files,
/// literal stub URLs). Open addressing with FNV-1a over the UTF-8 bytes: about a third of what a
/// Dictionary's SipHash costs on a short path.
public struct PathTable<Value: Sendable>: Sendable {
    // Inlinable (with what it reads), so that a client module's table is specialized: a generic
    // look-up asks the runtime for Optional<Value>'s metadata on every call.
    @usableFromInline var slotKeys: [String?]
    @usableFromInline var slotValues: [Value?]
    @usableFromInline let mask: Int
    public let count: Int

    public init(_ pairs: [String: Value]) {
        var size = 8
        while size < pairs.count * 2 { size *= 2 }
        mask = size - 1
        count = pairs.count
        slotKeys = Array(repeating: nil, count: size)
        slotValues = Array(repeating: nil, count: size)
        for (key, value) in pairs {
            var index = Self.hash(key) & mask
            while slotKeys[index] != nil { index = (index + 1) & mask }
            slotKeys[index] = key
            slotValues[index] = value
        }
    }

    @inlinable
    public subscript(path: String) -> Value? {
        var index = Self.hash(path) & mask
        while let key = slotKeys[index] {
            if key == path { return slotValues[index] }
            index = (index + 1) & mask
        }
        return nil
    }

    public var keys: [String] { slotKeys.compactMap { $0 } }

    @inlinable
    static func hash(_ text: String) -> Int {
        // Over the contiguous bytes: walking the UTF-8 view of a short (inline) string costs
        // about 40 instructions a byte.
        text.utf8.withContiguousStorageIfAvailable(hash) ?? Array(text.utf8).withUnsafeBufferPointer(hash)
    }

    @inlinable
    static func hash(_ bytes: UnsafeBufferPointer<UInt8>) -> Int {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3
        }
        return Int(truncatingIfNeeded: hash ^ (hash >> 32))
    }
}
