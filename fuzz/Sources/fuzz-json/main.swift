// The JSON module's parser on arbitrary bytes (admin API bodies, mapping files, JSON body
// patterns), strict and lenient (comments, single quotes: mapping files), then what is done with
// a parsed value: serializing it and reading it back strictly.
import FuzzSupport
import JSON

/// libFuzzer's main, linked in with its runtime, wants this symbol even though it is not used.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = FuzzInput(data, size)
    let strict = try? JSONValue.parse(input.bytes)
    let lenient = try? JSONValue.parseLenient(input.bytes)
    if let strict, strict != lenient { fatalError("lenient parsing reads strict JSON differently: \(strict.serialized)") }
    guard let value = lenient else { return 0 }
    let serialized = value.serialized
    guard let again = try? JSONValue.parse(serialized) else {
        fatalError("serialized JSON does not parse again: \(serialized)")
    }
    _ = again.serialized
    _ = value.prettyPrinted()
    _ = value.intValue
    _ = value.doubleValue
    _ = value.objectValue?.first.map { value[$0.0] }
    return 0
}

// Last: the driver never returns, and what it calls may read the globals above, set by then.
runFuzzer(fuzzOne)
