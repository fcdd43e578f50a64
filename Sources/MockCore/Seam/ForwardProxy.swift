import HTTPServer

/// Device mode as the router sees it: the server as a device's HTTP proxy (the DeviceProxy module
/// implements it, with its hosts.json and local CA). Without one the router routes by path alone
/// and refuses `CONNECT`.
public protocol ForwardProxy: AnyObject, Sendable {
    /// Answers `CONNECT host:port`: a tunnel, or a refusal that says why. `isOffline` says whether
    /// a scope (nil: `default`) is offline, whose device then gets no tunnel.
    func answerConnect(_ request: Request, _ responder: Responder, isOffline: (String?) -> Bool)

    /// The scope whose own proxy port `localPort` is (nil: none is).
    func scope(ofLocalPort localPort: Int) -> String?

    /// The scope a request sent through the proxy names with its credentials (nil for none).
    func scopeOfCredentials(_ request: Request) throws(ProxyRefusal) -> String?

    /// What may answer an app's request, after telling `context` the ways to TLS.
    func gate(_ request: Request, _ context: inout RequestContext) -> ProxyGate

    /// The answer for a proxied request of a host nothing maps (`ProxyGate.offline`) when no stub
    /// answered it.
    func offlineReply(_ request: Request, host: String) -> Reply

    /// Whether hosts nothing maps are reached for real (`--pass-through`): their WebSockets are relayed.
    var passesThrough: Bool { get }
}

/// Which backends may answer a request, by the host it is for.
public enum ProxyGate: Sendable {
    /// Not for a mapped host, and not proxied: routed as always.
    case ordinary
    /// For a mapped host: stubs, recordings and the named backend (none when nil) answer.
    case mapped(backend: String?)
    /// Proxied for a host that is not mapped: stubs and recordings only, then the offline answer.
    case offline(host: String)
}
