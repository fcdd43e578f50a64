import FuzzSupport

// What the recorder does with upstream bytes and the client's Accept-Encoding: gzip/deflate
// inflating (zlib, raw deflate) and choosing the codings to forward. Input: the first byte picks
// the Content-Encoding; the rest is the body; the whole input is also read as Accept-Encoding.
@testable import Recording

private let encodings = ["gzip", "deflate", "x-gzip", "identity", " GZIP ", "br"]

/// libFuzzer's main, linked in with its runtime, wants this symbol even though it is not used.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = FuzzInput(data, size)
    _ = ContentDecoding.decodable(acceptEncoding: input.text)
    guard let selector = input.bytes.first else { return 0 }
    _ = ContentDecoding.decode(Array(input.bytes.dropFirst()), encoding: encodings[Int(selector) % encodings.count])
    return 0
}

// Last: the driver never returns, and what it calls may read the globals above, set by then.
runFuzzer(fuzzOne)
