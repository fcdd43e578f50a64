import CZlib

/// permessage-deflate (RFC 7692), agreed as `server_no_context_takeover` and
/// `client_no_context_takeover`: each message is compressed on its own, so an idle channel keeps no
/// zlib window (32 KiB each way) and a message needs no state from the last.
public struct WebSocketDeflate: Sendable, Equatable {
    /// The window the server compresses with (`server_max_window_bits`, 9…15).
    public let serverWindowBits: Int32

    /// The `Sec-WebSocket-Extensions` line the server answers with.
    public var responseHeader: String {
        "permessage-deflate; server_no_context_takeover; client_no_context_takeover"
            + (serverWindowBits < 15 ? "; server_max_window_bits=\(serverWindowBits)" : "")
    }

    /// The first permessage-deflate offer of a client's `Sec-WebSocket-Extensions` that this
    /// server can take; nil when there is none (the channel is then uncompressed).
    public static func negotiate(_ offers: String?) -> WebSocketDeflate? {
        guard let offers else { return nil }
        offer: for offer in offers.split(separator: ",") {
            let parts = offer.split(separator: ";").map { String($0).trimmingSpaces }
            guard parts.first?.lowercased() == "permessage-deflate" else { continue }
            var windowBits: Int32 = 15
            var seen: Set<String> = []
            for parameter in parts.dropFirst() {
                // A value may be quoted (RFC 7692 5: a token or a quoted-string).
                let pair = parameter.split(separator: "=", maxSplits: 1).map { String($0).trimmingSpaces.filter { $0 != "\"" } }
                // An empty or repeated parameter is an offer to decline (RFC 7692 5.1).
                guard let name = pair.first?.lowercased(), seen.insert(name).inserted else { continue offer }
                switch name {
                case "server_no_context_takeover", "client_no_context_takeover":
                    guard pair.count == 1 else { continue offer }
                case "client_max_window_bits":
                    // Ours inflates with the largest window: any the client keeps to fits.
                    if pair.count == 2, Int32(pair[1]).map({ (8...15).contains($0) }) != true { continue offer }
                case "server_max_window_bits":
                    // zlib cannot deflate with an 8-bit window (it uses 9): decline that one.
                    guard pair.count == 2, let bits = Int32(pair[1]), (9...15).contains(bits) else { continue offer }
                    windowBits = bits
                default: continue offer
                }
            }
            return WebSocketDeflate(serverWindowBits: windowBits)
        }
        return nil
    }

    /// A message to send, compressed (its frame then carries RSV1).
    public func deflate(_ message: [UInt8]) -> [UInt8]? {
        var stream = z_stream()
        guard understudy_deflate_init(&stream, Z_DEFAULT_COMPRESSION, -serverWindowBits) == Z_OK else { return nil }
        defer { deflateEnd(&stream) }
        var input = message
        var output: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        var status: Int32 = Z_OK
        input.withUnsafeMutableBufferPointer { source in
            stream.next_in = source.baseAddress
            stream.avail_in = uInt(source.count)
            repeat {
                chunk.withUnsafeMutableBufferPointer { buffer in
                    stream.next_out = buffer.baseAddress
                    stream.avail_out = uInt(buffer.count)
                    status = CZlib.deflate(&stream, Z_SYNC_FLUSH)
                    output += buffer[0..<(buffer.count - Int(stream.avail_out))]
                }
            } while status == Z_OK && stream.avail_out == 0
        }
        guard status == Z_OK || status == Z_BUF_ERROR else { return nil }
        // The sync flush's empty block, which the receiver puts back (RFC 7692 7.2.1).
        if output.suffix(4) == [0x00, 0x00, 0xFF, 0xFF] { output.removeLast(4) }
        return output
    }
}

/// Inflates the messages a peer compressed: no context kept between them.
public struct WebSocketInflater: Sendable {
    public init() {}

    /// `payload` inflated; 1009 past `limit` bytes (a small message may inflate to gigabytes),
    /// 1007 when it is not deflate data.
    public func inflate(_ payload: [UInt8], limit: Int) throws(WebSocketFailure) -> [UInt8] {
        var stream = z_stream()
        guard understudy_inflate_init(&stream, -15) == Z_OK else { throw WebSocketFailure(WebSocketFailure.invalidData, "cannot inflate") }
        defer { inflateEnd(&stream) }
        var input = payload + [0x00, 0x00, 0xFF, 0xFF]
        var output: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        var status: Int32 = Z_OK
        var tooBig = false
        input.withUnsafeMutableBufferPointer { source in
            stream.next_in = source.baseAddress
            stream.avail_in = uInt(source.count)
            repeat {
                chunk.withUnsafeMutableBufferPointer { buffer in
                    stream.next_out = buffer.baseAddress
                    stream.avail_out = uInt(buffer.count)
                    status = CZlib.inflate(&stream, Z_SYNC_FLUSH)
                    output += buffer[0..<(buffer.count - Int(stream.avail_out))]
                }
                if output.count > limit { tooBig = true }
            } while !tooBig && status == Z_OK && (stream.avail_in > 0 || stream.avail_out == 0)
        }
        if tooBig { throw WebSocketFailure(WebSocketFailure.tooBig, "a message that inflates past \(limit) bytes") }
        guard status == Z_OK || status == Z_BUF_ERROR || status == Z_STREAM_END else {
            throw WebSocketFailure(WebSocketFailure.invalidData, "a compressed message that is not deflate data")
        }
        return output
    }
}
