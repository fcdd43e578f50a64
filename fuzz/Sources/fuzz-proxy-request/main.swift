// Device mode's reading of what a proxy client sends: CONNECT authorities (host:port, [v6]:port),
// the host a request is for (absolute-form targets, Host headers), proxy credentials naming a scope
// (Proxy-Authorization), and hosts.json. Input: a target or authority, NUL, a Host header value
// (also read as a Proxy-Authorization value, and base64-encoded as Basic credentials); the whole
// input is also read as a hosts.json.
import Foundation
import FuzzSupport
import JSON

@testable import DeviceProxy
@testable import HTTPServer
@testable import MockCore

// Top-level code runs in order: these are set before the fuzzer starts.
private let hostsFile = URL(fileURLWithPath: "/nonexistent/hosts.json")
private let backends: Set<String> = ["geocoder", "lotus", "stubs"]

/// libFuzzer's main, linked in with its runtime, wants this symbol even though it is not used.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = FuzzInput(data, size)
    let (first, second) = input.halves
    _ = HostName.of(authority: Substring(first.text))
    _ = HostName.isValid(first.text)
    var request = Request(method: .get, target: first.text.isEmpty ? "/" : first.text, headers: ["Host": second.text])
    _ = request.requestedHost
    _ = request.isProxied
    request.tunnelHost = second.text.lowercased()
    _ = request.requestedHost
    for field in [second.text, "Basic " + Data(second).base64EncodedString()] {
        let proxied = Request(method: .get, target: "http://a.example/", headers: ["Proxy-Authorization": field])
        _ = try? ProxyCredentials(of: proxied, password: nil).scope
        _ = try? ProxyCredentials(of: proxied, password: first.text).scope
    }
    if let json = try? JSONValue.parse(input.bytes), let map = try? HostMap.parse(json, file: hostsFile, backends: backends) {
        _ = map.target(for: first.text.lowercased()).map { HostMap.backend(for: second.text, in: $0) }
    }
    return 0
}

// Last: the driver never returns, and what it calls may read the globals above, set by then.
runFuzzer(fuzzOne)
