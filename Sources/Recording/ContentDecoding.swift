import CZlib
import HTTPServer

/// Undoes `Content-Encoding: gzip` and `deflate` (zlib, or raw deflate as some servers send it),
/// so recordings hold readable bodies. nil for other codings, and when the bytes are not what
/// the header says.
enum ContentDecoding {
    private static let decodableCodings = ["gzip", "x-gzip", "deflate", "identity"].map { Array($0.utf8) }

    static func decode(_ bytes: [UInt8], encoding: String) -> [UInt8]? {
        switch encoding.lowercased().trimmingSpaces {
        case "gzip", "x-gzip": return inflate(bytes, windowBits: 15 + 16)
        case "deflate": return inflate(bytes, windowBits: 15) ?? inflate(bytes, windowBits: -15)
        case "identity", "": return bytes
        default: return nil
        }
    }

    /// The `Accept-Encoding` to forward: the client's codings this can decode, so what is
    /// recorded is readable while the client still gets a coding it accepts. nil: send none.
    static func decodable(acceptEncoding: String) -> String? {
        // On bytes, by index: this runs on the event loop for every proxied request.
        let bytes = Array(acceptEncoding.utf8)
        func isSpace(_ index: Int) -> Bool { bytes[index] == UInt8(ascii: " ") || bytes[index] == UInt8(ascii: "\t") }
        var kept: [String] = []
        var start = 0
        while start < bytes.count {
            var end = start
            while end < bytes.count && bytes[end] != UInt8(ascii: ",") { end += 1 }
            var first = start
            var last = end  // the coding, parameters included, without spaces
            while first < last && isSpace(first) { first += 1 }
            while last > first && isSpace(last - 1) { last -= 1 }
            var nameEnd = first
            while nameEnd < last && bytes[nameEnd] != UInt8(ascii: ";") { nameEnd += 1 }
            while nameEnd > first && isSpace(nameEnd - 1) { nameEnd -= 1 }
            let name = bytes[first..<nameEnd]
            if decodableCodings.contains(where: { $0.count == name.count && zip($0, name).allSatisfy { $0 == $1 | 0x20 } }) {
                kept.append(String(decoding: bytes[first..<last], as: UTF8.self))
            }
            start = end + 1
        }
        return kept.isEmpty ? nil : kept.joined(separator: ", ")
    }

    private static func inflate(_ input: [UInt8], windowBits: Int32) -> [UInt8]? {
        guard let inflater = Inflater(windowBits: windowBits) else { return nil }
        var output: [UInt8] = []
        guard inflater.feed(input, output: { output += $0 }), inflater.ended else { return nil }
        return output
    }

    /// A large body decoded into a new unlinked file in `directory` (read and written a piece at
    /// a time); nil as for `decode`.
    static func decode(_ file: FileBody, encoding: String, directory: String) -> FileBody? {
        let windowBits: [Int32] =
            switch encoding.lowercased().trimmingSpaces {
            case "gzip", "x-gzip": [15 + 16]
            case "deflate": [15, -15]
            default: []
            }
        for bits in windowBits {
            guard let inflater = Inflater(windowBits: bits), let output = TemporaryFile(directory: directory) else { return nil }
            var complete = true
            file.forEachChunk { piece in
                if complete { complete = inflater.feed(piece, output: output.append) && output.failure == nil }
            }
            if complete, inflater.ended { return output.body }
        }
        return nil
    }
}

/// zlib's inflate over input fed a piece at a time. The stream stays at one address: zlib keeps
/// a pointer back to it.
private final class Inflater {
    private let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
    /// The compressed stream is complete.
    private(set) var ended = false

    init?(windowBits: Int32) {
        stream.initialize(to: z_stream())
        guard understudy_inflate_init(stream, windowBits) == Z_OK else {
            stream.deallocate()
            return nil
        }
    }

    deinit {
        inflateEnd(stream)
        stream.deallocate()
    }

    /// Inflates `input`, handing the output to `output` in pieces; false when the bytes are not
    /// what the coding says (or follow the end of the stream).
    func feed(_ input: [UInt8], output: ([UInt8]) -> Void) -> Bool {
        guard !ended else { return input.isEmpty }
        var input = input
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        var status: Int32 = Z_OK
        input.withUnsafeMutableBufferPointer { source in
            stream.pointee.next_in = source.baseAddress
            stream.pointee.avail_in = uInt(source.count)
            repeat {
                chunk.withUnsafeMutableBufferPointer { buffer in
                    stream.pointee.next_out = buffer.baseAddress
                    stream.pointee.avail_out = uInt(buffer.count)
                    status = CZlib.inflate(stream, Z_NO_FLUSH)
                    let produced = buffer.count - Int(stream.pointee.avail_out)
                    if produced > 0 { output(Array(buffer[0..<produced])) }
                }
            } while status == Z_OK && (stream.pointee.avail_in > 0 || stream.pointee.avail_out == 0)
        }
        if status == Z_STREAM_END { ended = true }
        return status == Z_STREAM_END || (status == Z_OK || status == Z_BUF_ERROR) && stream.pointee.avail_in == 0
    }
}

extension StringProtocol {
    /// Without leading and trailing spaces and tabs (HTTP's optional whitespace).
    var trimmingSpaces: String {
        var text = Substring(self)
        while text.first == " " || text.first == "\t" { text.removeFirst() }
        while text.last == " " || text.last == "\t" { text.removeLast() }
        return String(text)
    }
}
