import HTTPServer

/// Where a webhook may connect, judged by the addresses its host resolves to, never by how the
/// host is spelt: `127.evil.test`, `127.0.0.1.nip.io` and `evil.localhost` are names DNS may point
/// anywhere. Every address the name resolves to is checked (the connection could use any), and
/// the one returned is the one to connect to, so nothing resolves the name again in between.
enum WebhookDestination {
    /// The address to connect to for `host`, which resolved to `addresses`; the reason when none
    /// may be reached. Loopback addresses may always be; beyond them a host named in
    /// `allowedHosts` (a name, or an address given as such), or any with `anyHost`.
    static func decide(host: String, addresses: [String], allowedHosts: Set<String>, anyHost: Bool) -> Result<String, WebhookProblem> {
        let allowed = anyHost || allowedHosts.contains(host)
        guard let first = addresses.first else {
            let hint = allowed ? "" : " (the hosts file's, as it is not given with --allow-webhook-host \(LogText.escaped(host)))"
            return .failure(WebhookProblem("not sent to \(LogText.escaped(host)): it resolves to no address\(hint)"))
        }
        if allowed { return .success(first) }
        let refused = addresses.filter { !HostName.isLoopbackAddress($0) && !allowedHosts.contains($0) }
        guard let outside = refused.first else { return .success(first) }
        let resolved = HostName.isIPAddress(host) ? "" : " (it resolves to \(outside))"
        return .failure(
            WebhookProblem(
                "not sent to \(LogText.escaped(host))\(resolved): only loopback addresses, hosts.json's hosts and those given with "
                    + "--allow-webhook-host \(LogText.escaped(host)) (or any, with --pass-through) are reached"))
    }
}
