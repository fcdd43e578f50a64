/// RFC 6455's frames: reading a peer's bytes into messages and control frames, and writing frames.
/// The reader takes bytes as they arrive (any split) and never traps on what a peer sends: every
/// violation is a `WebSocketFailure` with the close code the RFC gives for it.

/// What a peer sent, once a frame or a whole (possibly fragmented) message has arrived.
public enum WebSocketEvent: Sendable, Equatable {
    case text(String)
    case binary([UInt8])
    case ping([UInt8])
    case pong([UInt8])
    /// The peer's close frame: its code (nil when it sent none) and reason.
    case close(code: UInt16?, reason: String)
}

/// Why a channel ends: the close code sent to the peer and a line for the log.
public struct WebSocketFailure: Error, Sendable, Equatable {
    public let code: UInt16
    public let reason: String

    public static let protocolError: UInt16 = 1002
    public static let invalidData: UInt16 = 1007
    public static let policyViolation: UInt16 = 1008
    public static let tooBig: UInt16 = 1009

    public init(_ code: UInt16, _ reason: String) {
        self.code = code
        self.reason = reason
    }
}

public enum WebSocketOpcode: UInt8, Sendable {
    case continuation = 0x0
    case text = 0x1
    case binary = 0x2
    case close = 0x8
    case ping = 0x9
    case pong = 0xA

    var isControl: Bool { rawValue & 0x8 != 0 }
}

/// Reads frames from one peer. `masked`: whether the peer must mask its frames (a client does,
/// RFC 6455 5.1; a server must not). `maxMessageBytes` bounds a message's payload, fragments
/// summed (after decompression, with permessage-deflate): past it the channel closes with 1009.
public struct WebSocketFrameReader: Sendable {
    public let masked: Bool
    public let maxMessageBytes: Int
    /// permessage-deflate was agreed: RSV1 marks a compressed message.
    public let inflater: WebSocketInflater?

    /// Bytes received and not yet a whole frame.
    private var pending: [UInt8] = []
    private var start = 0
    /// The message being reassembled from fragments.
    private var fragments: (opcode: WebSocketOpcode, compressed: Bool, payload: [UInt8])?

    public init(masked: Bool, maxMessageBytes: Int, inflater: WebSocketInflater? = nil) {
        self.masked = masked
        self.maxMessageBytes = maxMessageBytes
        self.inflater = inflater
    }

    /// Bytes held for a frame not whole yet (for the per-channel buffer cap).
    public var bufferedBytes: Int { pending.count - start + (fragments?.payload.count ?? 0) }

    /// Takes `bytes` and returns what they complete, in order; throws at the first violation
    /// (the reader is then spent: the channel closes).
    public mutating func read(_ bytes: some Collection<UInt8>) throws(WebSocketFailure) -> [WebSocketEvent] {
        var events: [WebSocketEvent] = []
        try read(bytes) { events.append($0) }
        return events
    }

    /// The same, each event handed to `handle` as it is read (no list made).
    public mutating func read(_ bytes: some Collection<UInt8>, _ handle: (WebSocketEvent) -> Void) throws(WebSocketFailure) {
        if start > 0 && start == pending.count {
            pending.removeAll(keepingCapacity: true)
            start = 0
        }
        pending.append(contentsOf: bytes)
        while let event = try nextFrame() {
            if let event { handle(event) }
        }
        // What was consumed goes, so a long-lived channel's buffer stays its largest frame, and an
        // emptied large buffer is let go: an idle channel holds none.
        if start == pending.count {
            if pending.capacity > 4096 { pending = [] } else { pending.removeAll(keepingCapacity: true) }
            start = 0
        } else if start > 4096 {
            pending.removeFirst(start)
            start = 0
        }
    }

    /// The next whole frame's event (nil inside: a fragment that completes nothing yet); nil
    /// outside when no whole frame is buffered.
    private mutating func nextFrame() throws(WebSocketFailure) -> WebSocketEvent?? {
        let available = pending.count - start
        guard available >= 2 else { return nil }
        let first = pending[start]
        let second = pending[start + 1]
        let fin = first & 0x80 != 0
        let rsv1 = first & 0x40 != 0
        guard first & 0x30 == 0 else { throw WebSocketFailure(WebSocketFailure.protocolError, "reserved bits RSV2/RSV3 set") }
        guard let opcode = WebSocketOpcode(rawValue: first & 0x0F) else {
            throw WebSocketFailure(WebSocketFailure.protocolError, "unknown opcode \(first & 0x0F)")
        }
        let isMasked = second & 0x80 != 0
        guard isMasked == masked else {
            throw WebSocketFailure(WebSocketFailure.protocolError, masked ? "a client frame was not masked" : "a server frame was masked")
        }
        var header = 2
        var length = UInt64(second & 0x7F)
        if length == 126 {
            guard available >= 4 else { return nil }
            length = UInt64(pending[start + 2]) << 8 | UInt64(pending[start + 3])
            guard length >= 126 else { throw WebSocketFailure(WebSocketFailure.protocolError, "a length not in its shortest form") }
            header = 4
        } else if length == 127 {
            guard available >= 10 else { return nil }
            length = (0..<8).reduce(UInt64(0)) { $0 << 8 | UInt64(pending[start + 2 + $1]) }
            guard length >> 63 == 0 else { throw WebSocketFailure(WebSocketFailure.protocolError, "a length with its top bit set") }
            guard length > 0xFFFF else { throw WebSocketFailure(WebSocketFailure.protocolError, "a length not in its shortest form") }
            header = 10
        }
        if opcode.isControl {
            guard fin else { throw WebSocketFailure(WebSocketFailure.protocolError, "a fragmented control frame") }
            guard length <= 125 else { throw WebSocketFailure(WebSocketFailure.protocolError, "a control frame longer than 125 bytes") }
            guard !rsv1 else { throw WebSocketFailure(WebSocketFailure.protocolError, "RSV1 set on a control frame") }
        }
        // Refused before it is buffered: a peer cannot make the server hold more than the limit.
        let held = UInt64(fragments?.payload.count ?? 0)
        if !opcode.isControl, length > UInt64(maxMessageBytes) || held + length > UInt64(maxMessageBytes) {
            throw WebSocketFailure(WebSocketFailure.tooBig, "a message past \(maxMessageBytes) bytes")
        }
        let maskBytes = isMasked ? 4 : 0
        guard UInt64(available) >= UInt64(header + maskBytes) + length else { return nil }
        let payloadStart = start + header + maskBytes
        var payload = Array(pending[payloadStart..<(payloadStart + Int(length))])
        if isMasked {
            let key = (pending[start + header], pending[start + header + 1], pending[start + header + 2], pending[start + header + 3])
            payload.withUnsafeMutableBufferPointer { Self.unmask($0, key) }
        }
        start = payloadStart + Int(length)
        return .some(try event(opcode, fin: fin, rsv1: rsv1, payload))
    }

    /// XORs `payload` with the mask `key` (RFC 6455 5.3), eight bytes at a time where it can.
    private static func unmask(_ payload: UnsafeMutableBufferPointer<UInt8>, _ key: (UInt8, UInt8, UInt8, UInt8)) {
        // The key's four bytes in memory order (a tuple's are contiguous): no list made per frame.
        withUnsafeBytes(of: key) { keyBytes in
            var index = 0
            if payload.count >= 8, let base = payload.baseAddress {
                // The key repeated to eight bytes, in memory order, as one word.
                var wide: UInt64 = 0
                withUnsafeMutableBytes(of: &wide) { for offset in 0..<8 { $0[offset] = keyBytes[offset & 3] } }
                let raw = UnsafeMutableRawPointer(base)
                while index + 8 <= payload.count {
                    raw.storeBytes(of: raw.loadUnaligned(fromByteOffset: index, as: UInt64.self) ^ wide, toByteOffset: index, as: UInt64.self)
                    index += 8
                }
            }
            while index < payload.count {
                payload[index] ^= keyBytes[index & 3]
                index += 1
            }
        }
    }

    private mutating func event(_ opcode: WebSocketOpcode, fin: Bool, rsv1: Bool, _ payload: [UInt8]) throws(WebSocketFailure) -> WebSocketEvent? {
        switch opcode {
        case .ping: return .ping(payload)
        case .pong: return .pong(payload)
        case .close: return try Self.close(payload)
        case .continuation:
            guard var message = fragments else {
                throw WebSocketFailure(WebSocketFailure.protocolError, "a continuation frame with no message begun")
            }
            guard !rsv1 else { throw WebSocketFailure(WebSocketFailure.protocolError, "RSV1 set on a continuation frame") }
            fragments = nil
            message.payload += payload
            guard fin else {
                fragments = message
                return nil
            }
            return try finished(message.opcode, compressed: message.compressed, message.payload)
        case .text, .binary:
            guard fragments == nil else {
                throw WebSocketFailure(WebSocketFailure.protocolError, "a new message before the last one's final fragment")
            }
            guard !rsv1 || inflater != nil else { throw WebSocketFailure(WebSocketFailure.protocolError, "RSV1 set with no extension agreed") }
            guard fin else {
                fragments = (opcode, rsv1, payload)
                return nil
            }
            return try finished(opcode, compressed: rsv1, payload)
        }
    }

    private func finished(_ opcode: WebSocketOpcode, compressed: Bool, _ payload: [UInt8]) throws(WebSocketFailure) -> WebSocketEvent {
        var payload = payload
        if compressed, let inflater {
            payload = try inflater.inflate(payload, limit: maxMessageBytes)
        }
        guard opcode == .text else { return .binary(payload) }
        guard let text = Self.text(payload) else {
            throw WebSocketFailure(WebSocketFailure.invalidData, "a text message that is not UTF-8")
        }
        return .text(text)
    }

    /// `bytes` as text if they are UTF-8. ASCII (most messages) is UTF-8 as it is, found by a scan
    /// of words; the rest is validated by the standard library.
    static func text(_ bytes: [UInt8]) -> String? {
        let isASCII = bytes.withUnsafeBytes { raw in
            var index = 0
            while index + 8 <= raw.count {
                if raw.loadUnaligned(fromByteOffset: index, as: UInt64.self) & 0x8080_8080_8080_8080 != 0 { return false }
                index += 8
            }
            while index < raw.count {
                if raw[index] >= 0x80 { return false }
                index += 1
            }
            return true
        }
        return isASCII ? String(decoding: bytes, as: UTF8.self) : String(validating: bytes, as: UTF8.self)
    }

    /// A close frame's payload: nothing, or a code and a UTF-8 reason (RFC 6455 5.5.1, 7.4).
    private static func close(_ payload: [UInt8]) throws(WebSocketFailure) -> WebSocketEvent {
        guard !payload.isEmpty else { return .close(code: nil, reason: "") }
        guard payload.count >= 2 else { throw WebSocketFailure(WebSocketFailure.protocolError, "a close frame of one byte") }
        let code = UInt16(payload[0]) << 8 | UInt16(payload[1])
        guard isValidCloseCode(code) else { throw WebSocketFailure(WebSocketFailure.protocolError, "close code \(code) may not be sent") }
        guard let reason = String(validating: payload[2...], as: UTF8.self) else {
            throw WebSocketFailure(WebSocketFailure.invalidData, "a close reason that is not UTF-8")
        }
        return .close(code: code, reason: reason)
    }

    /// The codes a peer may send (RFC 6455 7.4.1 and IANA's registry): 1004–1006 and 1015 are
    /// never sent; 1016–2999 are reserved; 3000–4999 are for applications.
    public static func isValidCloseCode(_ code: UInt16) -> Bool {
        switch code {
        case 1000...1003, 1007...1014, 3000...4999: true
        default: false
        }
    }
}

/// Writes frames. A server's are never masked; a client's (the recorder's side of a relayed
/// channel) are, with `maskKey`.
public enum WebSocketFrameWriter {
    public static func frame(
        _ opcode: WebSocketOpcode, _ payload: some Collection<UInt8>, fin: Bool = true, rsv1: Bool = false, maskKey: [UInt8]? = nil
    )
        -> [UInt8]
    {
        var bytes: [UInt8] = []
        let count = payload.count
        bytes.reserveCapacity(count + maxHeaderBytes + 4)
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: maxHeaderBytes) { header in
            let length = writeHeader(opcode, payloadCount: count, fin: fin, rsv1: rsv1, masked: maskKey != nil, into: header)
            bytes += header[..<length]
        }
        guard let maskKey, maskKey.count == 4 else {
            bytes += payload
            return bytes
        }
        bytes += maskKey
        for (index, byte) in payload.enumerated() { bytes.append(byte ^ maskKey[index & 3]) }
        return bytes
    }

    /// The longest header a frame has, its mask key aside.
    public static let maxHeaderBytes = 10

    /// Writes a frame's header (its mask key aside) into `header` (`maxHeaderBytes` at least);
    /// its length.
    public static func writeHeader(
        _ opcode: WebSocketOpcode, payloadCount count: Int, fin: Bool = true, rsv1: Bool = false, masked: Bool = false,
        into header: UnsafeMutableBufferPointer<UInt8>
    ) -> Int {
        precondition(header.count >= maxHeaderBytes)
        header[0] = (fin ? 0x80 : 0) | (rsv1 ? 0x40 : 0) | opcode.rawValue
        let maskBit: UInt8 = masked ? 0x80 : 0
        if count < 126 {
            header[1] = maskBit | UInt8(count)
            return 2
        }
        if count <= 0xFFFF {
            (header[1], header[2], header[3]) = (maskBit | 126, UInt8(count >> 8), UInt8(count & 0xFF))
            return 4
        }
        header[1] = maskBit | 127
        for index in 0..<8 { header[2 + index] = UInt8(truncatingIfNeeded: UInt64(count) >> UInt64(56 - 8 * index)) }
        return 10
    }

    /// A close frame with `code` and `reason` (cut to fit the 125 bytes a control frame may hold).
    public static func close(code: UInt16?, reason: String = "", maskKey: [UInt8]? = nil) -> [UInt8] {
        guard let code else { return frame(.close, [], maskKey: maskKey) }
        var reasonBytes = Array(reason.utf8.prefix(123))
        // Cut on a character boundary, so the reason stays UTF-8.
        while !reasonBytes.isEmpty && String(validating: reasonBytes, as: UTF8.self) == nil { reasonBytes.removeLast() }
        return frame(.close, [UInt8(code >> 8), UInt8(code & 0xFF)] + reasonBytes, maskKey: maskKey)
    }
}
