// matchesJsonSchema: a schema from client bytes (a mapping posted to the admin API) checked when
// it loads, then applied to an instance (a request body), within a request's work budget as the
// server runs it. Input: the schema, NUL, the instance; the draft follows from the schema's size.
import FuzzSupport
import JSON
import WorkLimits

@testable import Stubs

/// libFuzzer's main, linked in with its runtime, wants this symbol even though it is not used.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let (schemaBytes, instanceBytes) = FuzzInput(data, size).halves
    guard let schemaJSON = try? JSONValue.parse(schemaBytes), let instance = try? JSONValue.parse(instanceBytes) else { return 0 }
    let drafts = JSONSchema.Draft.allCases
    guard let schema = try? JSONSchema(schemaJSON, draft: drafts[schemaBytes.count % drafts.count], field: "fuzz") else { return 0 }
    // The server's budget, so that an input stops where a request would (past it: no match).
    let budget = RequestBudget.begin(limitNanoseconds: 100_000_000)
    defer { budget.end() }
    let valid = schema.validates(instance)
    // The explaining run (contract checks) must agree: a violation exactly when invalid.
    let violation = schema.firstViolation(of: instance)
    if valid && violation != nil && !RequestBudget.isExhausted { fatalError("valid, but explained as breaking: \(violation!)") }
    if !valid && violation == nil { fatalError("invalid, but nothing explained") }
    return 0
}

// Last: the driver never returns, and what it calls may read the globals above, set by then.
runFuzzer(fuzzOne)
