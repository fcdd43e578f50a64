import Foundation
import FuzzSupport
import HTTPServer
import JSON
import MockCore

// WireMock mappings as the admin API accepts them from clients: StubMapping.parse of a JSON
// document, then the mapping's request pattern (URL, query, header, cookie and body patterns:
// regexes, JSON, JSONPath, XML, XPath) matched against a request with an arbitrary body, and its
// response template and webhooks rendered for it. Input: the mapping JSON, NUL, the request body.
@testable import Stubs

private let directory = StubDirectory(root: URL(fileURLWithPath: "/nonexistent/understudy-fuzz"))

/// libFuzzer's main, linked in with its runtime, wants this symbol even though it is not used.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let (mappingBytes, body) = FuzzInput(data, size).halves
    guard let json = try? JSONValue.parse(mappingBytes),
        let mapping = try? StubMapping.parse(json, in: directory)
    else { return 0 }
    let requestJSON = json["request"]
    let target =
        (requestJSON?["url"] ?? requestJSON?["urlPath"])?.stringValue.flatMap { $0.hasPrefix("/") ? $0 : nil }
        ?? "/fuzz/1?a=1&b=two&b=3"
    let request = Request(
        method: .post, target: target,
        headers: ["Content-Type": "application/json", "Cookie": "session=abc; b=\"q\"", "Accept": "*/*"],
        body: body)
    _ = mapping.summary
    let result = mapping.request.evaluate(request)
    _ = result.distance
    let variables = mapping.request.pathVariables(request.rawPath)
    if let template = mapping.response.template {
        _ = template.render(mapping.response.response, for: request, pathVariables: variables)
    }
    _ = mapping.response.delay()
    for webhook in mapping.webhooks { _ = webhook.rendered(for: request) }
    _ = mapping.json.serialized
    return 0
}

// Last: the driver never returns, and what it calls may read the globals above, set by then.
runFuzzer(fuzzOne)
