import FuzzSupport
// What the recorder does with upstream bytes and the client's Accept-Encoding: gzip/deflate
// inflating (zlib, raw deflate), choosing the codings to forward, and reading an event stream
// into the events an SSE stub replays. Input: the first byte picks the Content-Encoding; the
// rest is the body; the whole input is also read as Accept-Encoding and as an event stream.
import JSON

@testable import Recording

private let encodings = ["gzip", "deflate", "x-gzip", "identity", " GZIP ", "br"]

/// libFuzzer's main, linked in with its runtime, wants this symbol even though it is not used.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = FuzzInput(data, size)
    _ = ContentDecoding.decodable(acceptEncoding: input.text)
    // Each event has a field; an id or event name holds no line break (the stub refuses one).
    for event in RecordedEventStream.events(in: input.text) {
        guard let fields = event.objectValue, !fields.isEmpty else { fatalError("an empty event from \(input.text.debugDescription)") }
        for name in ["id", "event"] where event[name]?.stringValue?.contains(where: { $0 == "\n" || $0 == "\r" }) == true {
            fatalError("\(name) with a line break from \(input.text.debugDescription)")
        }
    }
    guard let selector = input.bytes.first else { return 0 }
    _ = ContentDecoding.decode(Array(input.bytes.dropFirst()), encoding: encodings[Int(selector) % encodings.count])
    return 0
}

// Last: the driver never returns, and what it calls may read the globals above, set by then.
runFuzzer(fuzzOne)
