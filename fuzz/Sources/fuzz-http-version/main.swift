import CEvhttpHeaders
import FuzzSupport

// evhttp's read of a request's HTTP version through the executable's `sscanf`
// (Sources/CEvhttpHeaders): on any bytes, the same count and numbers as glibc's own, or a trap.
// Input: the version token (up to the first NUL, as evhttp hands it over).

/// libFuzzer's main, linked in with its runtime, wants this symbol even though it is not used.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    var version = FuzzInput(data, size).halves.0.map { CChar(bitPattern: $0) }
    version.append(0)
    var ours: (CInt, CInt, CInt, CChar) = (0, -7, -7, 0x55)
    var glibc: (CInt, CInt, CInt, CChar) = (0, -7, -7, 0x55)
    ours.0 = understudy_scan_version(version, &ours.1, &ours.2, &ours.3)
    glibc.0 = understudy_glibc_scan_version(version, &glibc.1, &glibc.2, &glibc.3)
    if ours != glibc { fatalError("\(version): ours \(ours), glibc's \(glibc)") }
    return 0
}

// Last: the driver never returns, and what it calls may read the globals above, set by then.
runFuzzer(fuzzOne)
