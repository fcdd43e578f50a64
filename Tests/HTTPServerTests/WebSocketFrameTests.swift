import HTTPServer
import Testing

/// RFC 6455's framing as the server reads a client's bytes: every rule that ends a channel ends it
/// with the RFC's code, messages come whole however the bytes are split, and compressed messages
/// (RFC 7692) inflate within the size limit.
@Suite struct WebSocketFrameTests {
    static let key: [UInt8] = [0x37, 0xFA, 0x21, 0x3D]

    /// A client's frame: masked unless `masked` is false.
    static func frame(_ opcode: UInt8, _ payload: [UInt8], fin: Bool = true, rsv: UInt8 = 0, masked: Bool = true) -> [UInt8] {
        guard let op = WebSocketOpcode(rawValue: opcode) else {
            // An opcode the writer will not make: built by hand.
            return [0x80 | opcode, 0x80 | UInt8(payload.count)] + key + payload.enumerated().map { $0.element ^ key[$0.offset & 3] }
        }
        var bytes = WebSocketFrameWriter.frame(op, payload, fin: fin, maskKey: masked ? key : nil)
        bytes[0] |= rsv
        return bytes
    }

    func read(_ bytes: [UInt8], maxMessageBytes: Int = 1 << 20, inflater: WebSocketInflater? = nil) throws(WebSocketFailure) -> [WebSocketEvent] {
        var reader = WebSocketFrameReader(masked: true, maxMessageBytes: maxMessageBytes, inflater: inflater)
        return try reader.read(bytes)
    }

    func failure(_ bytes: [UInt8], maxMessageBytes: Int = 1 << 20) -> UInt16? {
        do {
            _ = try read(bytes, maxMessageBytes: maxMessageBytes)
            return nil
        } catch {
            return error.code
        }
    }

    @Test func theRFCsExamplesReadAsItSays() throws {
        // RFC 6455 5.7: a masked "Hello", and the same in two fragments (unmasked there; masked here).
        #expect(try read([0x81, 0x85, 0x37, 0xFA, 0x21, 0x3D, 0x7F, 0x9F, 0x4D, 0x51, 0x58]) == [.text("Hello")])
        #expect(try read(Self.frame(1, Array("Hel".utf8), fin: false) + Self.frame(0, Array("lo".utf8))) == [.text("Hello")])
        #expect(WebSocketHandshake.acceptValue(for: "dGhlIHNhbXBsZSBub25jZQ==") == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=", "RFC 6455 1.3")
    }

    @Test func messagesComeWholeHoweverTheBytesAreSplit() throws {
        let bytes =
            Self.frame(1, Array("Hé".utf8), fin: false) + Self.frame(9, [1, 2]) + Self.frame(0, Array("llo".utf8))
            + Self.frame(2, Array(repeating: 7, count: 70_000)) + Self.frame(8, [0x03, 0xE8] + Array("bye".utf8))
        let expected: [WebSocketEvent] = [
            .ping([1, 2]), .text("Héllo"), .binary(Array(repeating: 7, count: 70_000)), .close(code: 1000, reason: "bye"),
        ]
        for split in [1, 2, 3, 7, 13, 1000, bytes.count] {
            var reader = WebSocketFrameReader(masked: true, maxMessageBytes: 1 << 20)
            var events: [WebSocketEvent] = []
            for start in stride(from: 0, to: bytes.count, by: split) { events += try reader.read(bytes[start..<min(bytes.count, start + split)]) }
            #expect(events == expected, "split every \(split) bytes")
            #expect(reader.bufferedBytes == 0)
        }
    }

    /// Unmasking goes eight bytes at a time with a byte-wise tail, and text is checked by a scan
    /// of words when it is ASCII: every length around those steps reads back as sent, and a byte
    /// outside UTF-8 is found wherever it sits.
    @Test func payloadsOfEveryLengthUnmaskAndValidate() throws {
        for length in 0...40 {
            let text = String((0..<length).map { Character(UnicodeScalar(UInt8(0x21 + $0 % 90))) })
            #expect(try read(Self.frame(1, Array(text.utf8))) == [.text(text)], "\(length) ASCII bytes")
            let binary = (0..<length).map { UInt8(truncatingIfNeeded: $0 * 37 + 200) }
            #expect(try read(Self.frame(2, binary)) == [.binary(binary)], "\(length) binary bytes")
            guard length > 0 else { continue }
            var invalid = Array(text.utf8)
            invalid[length - 1] = 0xFF
            #expect(failure(Self.frame(1, invalid)) == 1007, "0xFF at byte \(length) of \(length)")
            let accented = String(repeating: "a", count: length) + "é"
            #expect(try read(Self.frame(1, Array(accented.utf8))) == [.text(accented)], "é after \(length) ASCII bytes")
        }
    }

    /// A server's frames, header written apart from the payload, read back by a client's reader
    /// at each length form's edges (7-bit, 16-bit, 64-bit).
    @Test func serverFramesReadBackAtEachLengthForm() throws {
        for length in [0, 125, 126, 65_535, 65_536] {
            let payload = (0..<length).map { UInt8(truncatingIfNeeded: $0) }
            var reader = WebSocketFrameReader(masked: false, maxMessageBytes: 1 << 20)
            #expect(try reader.read(WebSocketFrameWriter.frame(.binary, payload)) == [.binary(payload)], "\(length) bytes")
            let header = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: WebSocketFrameWriter.maxHeaderBytes)
            defer { header.deallocate() }
            let headerLength = WebSocketFrameWriter.writeHeader(.binary, payloadCount: length, into: header)
            #expect(headerLength == (length < 126 ? 2 : length <= 65_535 ? 4 : 10))
            #expect(try reader.read(Array(header[..<headerLength]) + payload) == [.binary(payload)], "header apart, \(length) bytes")
        }
    }

    @Test func eachViolationClosesWithTheRFCsCode() {
        #expect(failure(Self.frame(1, Array("hi".utf8), masked: false)) == 1002, "a client frame unmasked")
        #expect(failure(Self.frame(1, Array("hi".utf8), rsv: 0x20)) == 1002, "RSV2 with nothing agreed")
        #expect(failure(Self.frame(1, Array("hi".utf8), rsv: 0x40)) == 1002, "RSV1 with no deflate agreed")
        #expect(failure(Self.frame(3, [])) == 1002, "a reserved opcode")
        #expect(failure(Self.frame(9, [], fin: false)) == 1002, "a fragmented ping")
        #expect(failure(Self.frame(9, Array(repeating: 0, count: 126))) == 1002, "a ping past 125 bytes")
        #expect(failure(Self.frame(0, [1])) == 1002, "a continuation with nothing begun")
        #expect(failure(Self.frame(1, [1], fin: false) + Self.frame(1, [2])) == 1002, "a new message inside a fragmented one")
        #expect(failure(Self.frame(1, [0xC3, 0x28])) == 1007, "text that is not UTF-8")
        #expect(failure(Self.frame(1, [0xC3], fin: false) + Self.frame(0, [0xA9])) == nil, "a character split across fragments is fine")
        #expect(failure(Self.frame(8, [0x03])) == 1002, "a close payload of one byte")
        #expect(failure(Self.frame(8, [0x03, 0xED])) == 1002, "close code 1005 may not be sent")
        #expect(failure(Self.frame(8, [0x03, 0xE8, 0xFF])) == 1007, "a close reason that is not UTF-8")
        #expect(failure(Self.frame(2, Array(repeating: 0, count: 101)), maxMessageBytes: 100) == 1009, "one frame past the limit")
        #expect(
            failure(Self.frame(2, Array(repeating: 0, count: 60), fin: false) + Self.frame(0, Array(repeating: 0, count: 60)), maxMessageBytes: 100)
                == 1009, "fragments summed past the limit")
        // A length not in its shortest form: 5 bytes announced with the 16-bit length.
        #expect(failure([0x82, 0xFE, 0x00, 0x05] + Self.key + [1, 2, 3, 4, 5]) == 1002)
    }

    @Test func aLengthPastTheLimitIsRefusedBeforeItsBytesCome() {
        // 2^40 bytes announced: refused from the header alone, nothing buffered for it.
        var reader = WebSocketFrameReader(masked: true, maxMessageBytes: 1 << 20)
        #expect(throws: WebSocketFailure.self) { _ = try reader.read([0x82, 0xFF, 0, 0, 1, 0, 0, 0, 0, 0] + Self.key) }
    }

    @Test func compressedMessagesInflateWithinTheLimit() throws {
        let deflate = try #require(WebSocketDeflate.negotiate("permessage-deflate; client_max_window_bits"))
        #expect(deflate.responseHeader == "permessage-deflate; server_no_context_takeover; client_no_context_takeover")
        let text = String(repeating: "all work and no play ", count: 200)
        let packed = try #require(deflate.deflate(Array(text.utf8)))
        #expect(packed.count < text.utf8.count / 10)
        var first = WebSocketFrameWriter.frame(.text, packed.prefix(10), fin: false, maskKey: Self.key)
        first[0] |= 0x40
        let bytes = first + WebSocketFrameWriter.frame(.continuation, packed.dropFirst(10), maskKey: Self.key)
        #expect(try read(bytes, inflater: WebSocketInflater()) == [.text(text)])
        // A small message that inflates past the limit (a deflate bomb) is refused, not inflated.
        var bomb = WebSocketFrameWriter.frame(.binary, try #require(deflate.deflate(Array(repeating: 0, count: 1 << 20))), maskKey: Self.key)
        bomb[0] |= 0x40
        #expect(throws: WebSocketFailure(WebSocketFailure.tooBig, "a message that inflates past 4096 bytes")) {
            _ = try read(bomb, maxMessageBytes: 4096, inflater: WebSocketInflater())
        }
    }

    @Test func deflateOffersTheServerCannotTakeAreDeclined() {
        #expect(WebSocketDeflate.negotiate("x-webkit-deflate-frame") == nil)
        #expect(WebSocketDeflate.negotiate("permessage-deflate; server_max_window_bits=8") == nil, "zlib cannot deflate with 8 bits")
        #expect(WebSocketDeflate.negotiate("permessage-deflate; server_max_window_bits=8, permessage-deflate")?.serverWindowBits == 15)
        #expect(WebSocketDeflate.negotiate("permessage-deflate; server_max_window_bits=\"10\"")?.serverWindowBits == 10)
        #expect(WebSocketDeflate.negotiate("permessage-deflate; mystery") == nil)
        #expect(WebSocketDeflate.negotiate("permessage-deflate; client_no_context_takeover; client_no_context_takeover") == nil)
        #expect(WebSocketDeflate.negotiate("permessage-deflate; =5") == nil, "a value with no name")
    }

    @Test func theHandshakeRefusesWhatIsNotOne() {
        func handshake(_ headers: [(String, String)], method: HTTPMethod = .get) -> Int? {
            var request = Request(method: method, target: "/chat")
            for (name, value) in headers { request.headers.add(name, value) }
            switch WebSocketHandshake.read(request) {
            case .success: return nil
            case .failure(let refusal): return refusal.status
            }
        }
        let good = [
            ("Upgrade", "websocket"), ("Connection", "keep-alive, Upgrade"), ("Sec-WebSocket-Version", "13"),
            ("Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ=="),
        ]
        #expect(handshake(good) == nil)
        #expect(handshake(good, method: .post) == 400)
        #expect(handshake(good.filter { $0.0 != "Connection" }) == 400)
        #expect(handshake(good.map { $0.0 == "Sec-WebSocket-Version" ? ($0.0, "8") : $0 }) == 426)
        #expect(handshake(good.map { $0.0 == "Sec-WebSocket-Key" ? ($0.0, "c2hvcnQ=") : $0 }) == 400, "a key of 5 bytes")
    }

    @Test func theSubprotocolChosenIsNamedInThe101() throws {
        var request = Request(method: .get, target: "/graphql")
        for (name, value) in [
            ("Upgrade", "websocket"), ("Connection", "Upgrade"), ("Sec-WebSocket-Version", "13"), ("Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ=="),
            ("Sec-WebSocket-Protocol", "graphql-transport-ws, chat.v1"), ("Sec-WebSocket-Protocol", " bad token,,x"),
        ] {
            request.headers.add(name, value)
        }
        guard case .success(var handshake) = WebSocketHandshake.read(request) else {
            Issue.record("refused")
            return
        }
        #expect(handshake.offeredProtocols == ["graphql-transport-ws", "chat.v1", "x"], "tokens only, in order")
        #expect(!String(decoding: handshake.response, as: UTF8.self).contains("Sec-WebSocket-Protocol"), "none named unless chosen")
        handshake.selectedProtocol = "graphql-transport-ws"
        #expect(String(decoding: handshake.response, as: UTF8.self).contains("\r\nSec-WebSocket-Protocol: graphql-transport-ws\r\n"))
    }
}
