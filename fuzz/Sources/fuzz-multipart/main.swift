// HTTPServer's multipart body parser (multipartPatterns of stub mappings) on arbitrary bytes.
// Input: the Content-Type header value, NUL, the body; each part's name and filename read.
import FuzzSupport
import HTTPServer

/// libFuzzer's main, linked in with its runtime, wants this symbol even though it is not used.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = FuzzInput(data, size)
    let (first, second) = input.halves
    let request = Request(method: .post, target: "/", headers: ["Content-Type": first.text], body: second)
    for part in MultipartBody.parts(of: request) {
        _ = part.name
        _ = part.fileName
    }
    _ = MultipartBody.parts(input.bytes, boundary: "b")
    return 0
}

// Last: the driver never returns, and what it calls may read the globals above, set by then.
runFuzzer(fuzzOne)
