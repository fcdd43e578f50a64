import CZlib
import Foundation

/// Undoes `Content-Encoding: gzip` and `deflate` (zlib, or raw deflate as some servers send it),
/// so recordings hold readable bodies. nil for other codings, and when the bytes are not what
/// the header says.
enum ContentDecoding {
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
        let kept = acceptEncoding.split(separator: ",").filter { coding in
            let name = coding.prefix { $0 != ";" }.trimmingCharacters(in: .whitespaces).lowercased()
            return ["gzip", "x-gzip", "deflate", "identity"].contains(name)
        }
        return kept.isEmpty ? nil : kept.map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: ", ")
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

extension String {
    var trimmingSpaces: String {
        var text = Substring(self)
        while text.first == " " { text.removeFirst() }
        while text.last == " " { text.removeLast() }
        return String(text)
    }
}
