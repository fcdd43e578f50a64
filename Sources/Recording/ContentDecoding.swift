import CZlib

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
            var first = start, last = end   // the coding, parameters included, without spaces
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
        var stream = z_stream()
        guard understudy_inflate_init(&stream, windowBits) == Z_OK else { return nil }
        defer { inflateEnd(&stream) }
        var output: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        var input = input
        var status: Int32 = Z_OK
        input.withUnsafeMutableBufferPointer { source in
            stream.next_in = source.baseAddress
            stream.avail_in = uInt(source.count)
            repeat {
                chunk.withUnsafeMutableBufferPointer { buffer in
                    stream.next_out = buffer.baseAddress
                    stream.avail_out = uInt(buffer.count)
                    status = CZlib.inflate(&stream, Z_NO_FLUSH)
                    output.append(contentsOf: buffer[0..<(buffer.count - Int(stream.avail_out))])
                }
            } while status == Z_OK && (stream.avail_in > 0 || stream.avail_out == 0)
        }
        return status == Z_STREAM_END ? output : nil
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
