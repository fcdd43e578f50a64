// The Handlebars engine: a template source from client bytes (stub responses posted to the admin
// API), parsed and rendered with the standard helpers over a JSON model, within a request's work
// budget as the server renders it. Input: the template, NUL, the model as JSON (a fixed model when
// missing or not JSON).
import FuzzSupport
import JSON
import MockCore
import Templating
import WorkLimits

private let defaultModel = TemplateValue(
    (try? JSONValue.parse(#"{"a":1,"b":"two","c":[1,2,{"d":null}],"e":{"f":true,"g":-1.5},"h":"2024-02-29T12:00:00Z"}"#)) ?? .null)

/// libFuzzer's main, linked in with its runtime, wants this symbol even though it is not used.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let (source, model) = FuzzInput(data, size).halves
    guard let template = try? Template(source.text) else { return 0 }
    let context = (try? JSONValue.parse(model)).map(TemplateValue.init) ?? defaultModel
    _ = template.isConstant
    let budget = RequestBudget.begin(limitNanoseconds: 100_000_000)
    defer { budget.end() }
    _ = template.render(context)
    return 0
}

// Last: the driver never returns, and what it calls may read the globals above, set by then.
runFuzzer(fuzzOne)
