import FuzzSupport

// HTTPServer's decoding of request parts: the target (path percent-decoding, query split into
// form-encoded pairs), `Cookie` headers, and form bodies. Input: the request target, NUL, the
// Cookie header value; the whole input is also decoded as a form body.
@testable import HTTPServer

/// libFuzzer's main, linked in with its runtime, wants this symbol even though it is not used.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = FuzzInput(data, size)
    let (first, second) = input.halves
    let request = Request(method: .post, target: first.text, headers: ["Cookie": second.text], body: input.bytes)
    _ = request.rawPath
    _ = request.query("a")
    _ = request.cookies
    _ = request.cookie("session")
    _ = FormURLEncoding.decode(input.text)
    _ = FormURLEncoding.decode(request.bodyText)
    _ = PercentDecoding.decode(input.text, plusAsSpace: false)
    _ = PercentDecoding.decode(second.text.dropFirst(), plusAsSpace: true)
    return 0
}

// Last: the driver never returns, and what it calls may read the globals above, set by then.
runFuzzer(fuzzOne)
