import Foundation
import HTTPServer

/// The names `/etc/hosts` gives addresses to: how a webhook's host that no option allowed is
/// resolved. No DNS query leaves this machine for it (a URL rendered from a request could
/// otherwise carry the request's data out in a name), and a local name (`localhost`, a dev alias)
/// still comes back to loopback.
struct HostsFile: Sendable {
    /// Addresses by lower-case name, in the file's order.
    let addresses: [String: [String]]

    /// The system's, read once when first asked for (it is small and local), as the loops' own
    /// resolver reads it once.
    static let system = HostsFile(text: (try? String(contentsOfFile: "/etc/hosts", encoding: .utf8)) ?? "")

    /// Reads `text` as hosts(5): an address, then names, per line; `#` starts a comment. Lines
    /// whose first field is not an IP address are skipped.
    init(text: String) {
        var addresses: [String: [String]] = [:]
        for line in text.split(whereSeparator: { $0 == "\n" || $0 == "\r" }) {
            let content = line.prefix { $0 != "#" }
            let fields = content.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
            guard let address = fields.first, HostName.isIPAddress(address) else { continue }
            for name in fields.dropFirst() {
                let key = name.lowercased()
                if !(addresses[key]?.contains(address) ?? false) { addresses[key, default: []].append(address) }
            }
        }
        self.addresses = addresses
    }

    /// The addresses of `name`; `localhost` is loopback even when the file does not say so.
    func lookUp(_ name: String) -> [String] {
        let found = addresses[name.lowercased()] ?? []
        return found.isEmpty && name.lowercased() == "localhost" ? ["127.0.0.1"] : found
    }
}
