import FuzzSupport
import HTTPServer

// Where a webhook may connect (issue 47): its URL read as the outbound client will, its host
// looked up in a hosts file, and the decision made by the addresses found. On any bytes: no trap,
// a name is never loopback by its spelling (only `localhost` or a numeric address is), and a host
// nobody allowed is only ever sent to a loopback address. Input: the URL, NUL, the hosts file.
@testable import Stubs

/// libFuzzer's main, linked in with its runtime, wants this symbol even though it is not used.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let (urlBytes, hostsBytes) = FuzzInput(data, size).halves
    let url = urlBytes.text
    for text in [url, hostsBytes.text] where HostName.isLoopback(text) {
        if text.lowercased() != "localhost", !HostName.isIPAddress(text) { fatalError("\(text) is loopback by its spelling") }
    }
    guard let target = WebhookTarget(url) else { return 0 }
    let hosts = HostsFile(text: hostsBytes.text)
    let addresses = HostName.isIPAddress(target.host) ? [target.host] : hosts.lookUp(target.host)
    if case .success(let address) = WebhookDestination.decide(host: target.host, addresses: addresses, allowedHosts: [], anyHost: false) {
        if !HostName.isLoopbackAddress(address) || !addresses.allSatisfy(HostName.isLoopbackAddress) {
            fatalError("\(url) → \(addresses): \(address) chosen though not every address is loopback")
        }
    }
    return 0
}

// Last: the driver never returns, and what it calls may read the globals above, set by then.
runFuzzer(fuzzOne)
