// GraphQL requests: the body read as an operation (JSON, then the query parsed by GraphQLSwift
// after the nesting and size checks) and compared with a stub's pattern made from the bytes
// after the NUL, within a request's work budget as the server runs it.
import FuzzSupport
import GraphQLMatching
import HTTPServer
import JSON
import WorkLimits

/// libFuzzer's main, linked in with its runtime, wants this symbol even though it is not used.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let (body, stub) = FuzzInput(data, size).halves
    let budget = RequestBudget.begin(limitNanoseconds: 100_000_000)
    defer { budget.end() }
    // The body as a query on its own too: most inputs are not JSON.
    _ = try? GraphQLDocument(parsing: String(decoding: body, as: UTF8.self))
    let request = Request(method: .post, target: "/graphql", body: body)
    let parameters = (try? JSONValue.parse(stub)) ?? .object([("query", .string(String(decoding: stub, as: UTF8.self)))])
    if let pattern = try? GraphQLPattern(parameters: parameters) {
        _ = pattern.misses(request)
    } else {
        _ = GraphQLOperation.of(request)
    }
    return 0
}

// Last: the driver never returns, and what it calls may read the globals above, set by then.
runFuzzer(fuzzOne)
