import FuzzSupport
import JSON
import MockCore

// JSONPath (matchesJsonPath body patterns, the jsonPath helper): an expression parsed and run on
// a document. Input: the expression, NUL, the document as JSON (a fixed one when missing).
@testable import Stubs

private let defaultDocument =
    (try? JSONValue.parse(
        #"{"store":{"book":[{"title":"a","price":8.95,"tags":["x"]},{"title":"b","price":12,"isbn":"1"}],"bicycle":{"color":"red"}},"n":[1,2,3,null,true]}"#
    )) ?? .null

/// libFuzzer's main, linked in with its runtime, wants this symbol even though it is not used.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let (expression, document) = FuzzInput(data, size).halves
    guard let path = try? JSONPath.parse(expression.text, field: "fuzz") else { return 0 }
    let json = (try? JSONValue.parse(document)) ?? defaultDocument
    _ = path.isDefinite
    for found in path.evaluate(json) { _ = found.serialized }
    return 0
}

// Last: the driver never returns, and what it calls may read the globals above, set by then.
runFuzzer(fuzzOne)
