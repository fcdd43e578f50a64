// The WireFormat module: what every writer of answers shares, byte for byte: the escaping
// conventions, the byte writer and calendar dates. No dependencies, so that the template engine
// and JSON, which must not need the server, use the same helpers as the emulators.

/// One escaping convention: which ASCII characters are replaced, and by what. Every backend
/// writes text into markup or JSON with one of the named conventions (`TextEscaper+Conventions`),
/// each the exact bytes of the system it imitates; characters outside ASCII are never touched.
///
/// Runs of text without a special character are copied whole, and most texts have none: the
/// check is one load from a table per byte. Inlinable, as it runs for every value of every answer.
public struct TextEscaper: @unchecked Sendable {
    /// Whether each of the 256 byte values has a replacement. A table kept for the life of the
    /// process, like `replacements`: one load a byte, where testing a bit of two words took
    /// several instructions more.
    @usableFromInline let specials: UnsafePointer<Bool>
    /// The replacement of each ASCII byte, indexed by the byte; empty where it has none. A table
    /// kept for the life of the process (the conventions are constants), so copying an escaper —
    /// once per value written — retains and releases nothing.
    @usableFromInline let replacements: UnsafePointer<StaticString>

    /// `rules`: each special character with its replacement (ASCII characters only). Only the
    /// named conventions make escapers: each one's table is never freed.
    init(_ rules: KeyValuePairs<Unicode.Scalar, StaticString>) {
        let specials = UnsafeMutablePointer<Bool>.allocate(capacity: 256)
        specials.initialize(repeating: false, count: 256)
        let replacements = UnsafeMutablePointer<StaticString>.allocate(capacity: 128)
        replacements.initialize(repeating: "", count: 128)
        for (scalar, replacement) in rules {
            precondition(scalar.isASCII, "escaping rules name ASCII characters only")
            let byte = Int(scalar.value)
            specials[byte] = true
            replacements[byte] = replacement
        }
        self.specials = UnsafePointer(specials)
        self.replacements = UnsafePointer(replacements)
    }

    /// Whether `byte` is replaced.
    @inlinable @inline(__always)
    public func isSpecial(_ byte: UInt8) -> Bool {
        specials[Int(byte)]
    }

    /// What `byte` becomes; nil when it stays as it is.
    @inlinable
    public func replacement(for byte: UInt8) -> StaticString? {
        isSpecial(byte) ? replacements[Int(byte)] : nil
    }

    /// Whether `text` has a character this convention replaces.
    @inlinable
    public func needsEscaping(_ text: String) -> Bool {
        text.utf8.withContiguousStorageIfAvailable { $0.contains(where: isSpecial) } ?? text.utf8.contains(where: isSpecial)
    }

    /// `text` escaped (`text` itself when nothing needs it).
    @inlinable
    public func escaped(_ text: String) -> String {
        guard needsEscaping(text) else { return text }
        var result = ""
        withUTF8(text) { source in
            var length = 0
            forEachPiece(source) { length += $0.count }
            result = String(unsafeUninitializedCapacity: length) { target in
                var written = 0
                forEachPiece(source) { piece in
                    _ = UnsafeMutableBufferPointer(rebasing: target[written...]).initialize(fromContentsOf: piece)
                    written += piece.count
                }
                return written
            }
        }
        return result
    }

    @inlinable
    public func append(_ text: String, to out: inout String) {
        withUTF8(text) { source in
            forEachPiece(source) { piece in out += String(decoding: piece, as: UTF8.self) }
        }
    }

    @inlinable
    public func append(_ text: String, to out: inout ByteWriter) {
        withUTF8(text) { source in forEachPiece(source) { out.write($0) } }
    }

    @inlinable
    public func append(_ bytes: UnsafeBufferPointer<UInt8>, to out: inout ByteWriter) {
        forEachPiece(bytes) { out.write($0) }
    }

    /// Appends one byte of text, escaped (for writers that go byte by byte).
    @inlinable
    public func append(byte: UInt8, to out: inout [UInt8]) {
        guard isSpecial(byte) else { return out.append(byte) }
        let replacement = replacements[Int(byte)]
        out.append(contentsOf: UnsafeBufferPointer(start: replacement.utf8Start, count: replacement.utf8CodeUnitCount))
    }

    @inlinable @inline(__always)
    func withUTF8(_ text: String, _ body: (UnsafeBufferPointer<UInt8>) -> Void) {
        // Long native strings are read in place; short ones live inside the String value itself.
        if text.utf8.withContiguousStorageIfAvailable(body) == nil {
            var text = text
            text.withUTF8(body)
        }
    }

    /// Calls `emit` with the runs of `source` that stay and the replacements in between, in order.
    @inlinable @inline(__always)
    func forEachPiece(_ source: UnsafeBufferPointer<UInt8>, _ emit: (UnsafeBufferPointer<UInt8>) -> Void) {
        var start = 0
        for index in 0..<source.count where isSpecial(source[index]) {
            if start < index { emit(UnsafeBufferPointer(rebasing: source[start..<index])) }
            let replacement = replacements[Int(source[index])]
            emit(UnsafeBufferPointer(start: replacement.utf8Start, count: replacement.utf8CodeUnitCount))
            start = index + 1
        }
        if start < source.count { emit(UnsafeBufferPointer(rebasing: source[start...])) }
    }
}
