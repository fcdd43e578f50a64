import FuzzSupport
import HTTPServer

// A WebSocket client's bytes: the frame reader (masked frames, fragments, control frames, close
// payloads, UTF-8, permessage-deflate's inflation with its size limit) fed in two pieces split where
// the NUL is, as they may arrive; and the handshake's `Sec-WebSocket-Extensions` offer. Whatever
// comes, a reader gives events or a WebSocketFailure with a close code the RFC allows; never a trap.
// Input: the client's bytes, NUL, more bytes (the second half is also read as an extensions offer).

/// libFuzzer's main, linked in with its runtime, wants this symbol even though it is not used.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let (first, second) = FuzzInput(data, size).halves
    for inflater in [nil, WebSocketInflater()] {
        var reader = WebSocketFrameReader(masked: true, maxMessageBytes: 4096, inflater: inflater)
        do {
            _ = try reader.read(first)
            _ = try reader.read(second)
        } catch {
            guard WebSocketFrameReader.isValidCloseCode(error.code) else { fatalError("close code \(error.code) for \(error.reason)") }
        }
        if reader.bufferedBytes > first.count + second.count { fatalError("holds more than it was given") }
    }
    if let deflate = WebSocketDeflate.negotiate(String(decoding: second, as: UTF8.self)) {
        guard (9...15).contains(deflate.serverWindowBits) else { fatalError("window \(deflate.serverWindowBits)") }
        // What the server compresses, a client inflates back.
        guard let packed = deflate.deflate(first), (try? WebSocketInflater().inflate(packed, limit: 1 << 20)) == first else {
            fatalError("deflate round trip")
        }
    }
    return 0
}

// Last: the driver never returns, and what it calls may read the globals above, set by then.
runFuzzer(fuzzOne)
