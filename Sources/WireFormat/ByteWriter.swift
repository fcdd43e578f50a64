/// Response bytes built in place: literals copied straight from the binary, text and numbers
/// appended without intermediate strings. (Building an answer with String concatenation cost
/// several times the instructions of the whole HTTP exchange.)
///
/// The methods are inlinable: a writer is called for every short piece of an answer, from other
/// modules, and a call across modules would cost more than the copy it makes.
public struct ByteWriter: ~Copyable {
    // Growable bytes appended with memcpy: `Array.append(contentsOf:)` costs over a hundred
    // instructions a call, and an answer is a few hundred short pieces. Non-copyable, so the
    // buffer has one owner and is freed when the writer ends.
    @usableFromInline var base: UnsafeMutablePointer<UInt8>
    @usableFromInline var capacity: Int
    @usableFromInline var count = 0

    @inlinable
    public init(capacity: Int) {
        self.capacity = max(capacity, 64)
        base = .allocate(capacity: self.capacity)
    }

    @inlinable
    deinit { base.deallocate() }

    /// The bytes written so far.
    @inlinable
    public var bytes: [UInt8] {
        // Copied with memcpy: the array initializer from a buffer went byte by byte.
        [UInt8](unsafeUninitializedCapacity: count) { target, initialized in
            target.baseAddress?.update(from: base, count: count)
            initialized = count
        }
    }

    /// The bytes written so far as text, for a short text built from pieces (one copy, where
    /// interpolating or concatenating makes a String per piece).
    @inlinable
    public var text: String {
        String(decoding: UnsafeBufferPointer(start: base, count: count), as: UTF8.self)
    }

    /// How many bytes have been written.
    @inlinable
    public var byteCount: Int { count }

    /// Whether nothing has been written yet.
    @inlinable
    public var isEmpty: Bool { count == 0 }

    @inlinable @inline(__always)
    mutating func append(_ source: UnsafePointer<UInt8>, _ length: Int) {
        if count + length > capacity { grow(toHold: count + length) }
        let target = UnsafeMutableRawPointer(base + count)
        let from = UnsafeRawPointer(source)
        // Most pieces are short: 4 to 16 bytes are copied with two overlapping loads and stores,
        // each inside both ranges, instead of a call to memcpy (half the cost of a piece).
        if length >= 8 && length <= 16 {
            let head = from.loadUnaligned(as: UInt64.self)
            let tail = from.loadUnaligned(fromByteOffset: length - 8, as: UInt64.self)
            target.storeBytes(of: head, as: UInt64.self)
            target.storeBytes(of: tail, toByteOffset: length - 8, as: UInt64.self)
        } else if length >= 4 && length < 8 {
            let head = from.loadUnaligned(as: UInt32.self)
            let tail = from.loadUnaligned(fromByteOffset: length - 4, as: UInt32.self)
            target.storeBytes(of: head, as: UInt32.self)
            target.storeBytes(of: tail, toByteOffset: length - 4, as: UInt32.self)
        } else {
            target.copyMemory(from: from, byteCount: length)
        }
        count += length
    }

    @usableFromInline
    mutating func grow(toHold needed: Int) {
        capacity = max(capacity * 2, needed)
        let grown = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity)
        grown.update(from: base, count: count)
        base.deallocate()
        base = grown
    }

    /// Always inlined: a literal's length is then a constant, and its copy a few instructions.
    @inlinable @inline(__always)
    public mutating func write(_ literal: StaticString) {
        append(literal.utf8Start, literal.utf8CodeUnitCount)
    }

    /// Disfavoured, so that a string literal is written as the `StaticString` it can be (a copy
    /// from the binary) rather than made a `String` first.
    @inlinable @_disfavoredOverload
    public mutating func write(_ text: String) {
        // Long native strings are read in place; short ones live inside the String value itself.
        if text.utf8.withContiguousStorageIfAvailable({ write($0) }) == nil {
            var text = text
            text.withUTF8 { write($0) }
        }
    }

    @inlinable
    public mutating func write(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let start = bytes.baseAddress else { return }
        append(start, bytes.count)
    }

    @inlinable
    public mutating func write(_ bytes: UnsafeRawBufferPointer) {
        write(bytes.assumingMemoryBound(to: UInt8.self))
    }

    @inlinable
    public mutating func write(_ bytes: [UInt8]) {
        bytes.withUnsafeBufferPointer { write($0) }
    }

    @inlinable
    public mutating func write(byte: UInt8) {
        if count == capacity { grow(toHold: count + 1) }
        base[count] = byte
        count += 1
    }

    /// `count` spaces (at most twenty: indentation).
    @inlinable
    public mutating func spaces(_ count: Int) {
        let blanks: StaticString = "                    "
        append(blanks.utf8Start, min(count, blanks.utf8CodeUnitCount))
    }

    /// `value` in decimal, with leading zeros up to `minimumCount` digits.
    @inlinable
    public mutating func decimal(_ value: UInt64, minimumCount: Int = 1) {
        var buffer: (UInt64, UInt64, UInt64) = (0, 0, 0)  // 24 bytes on the stack
        withUnsafeMutableBytes(of: &buffer) { raw in
            var value = value
            var index = raw.count
            repeat {
                index -= 1
                raw[index] = UInt8(ascii: "0") + UInt8(value % 10)
                value /= 10
            } while value > 0 || raw.count - index < minimumCount
            write(UnsafeRawBufferPointer(rebasing: raw[index...]))
        }
    }
}
