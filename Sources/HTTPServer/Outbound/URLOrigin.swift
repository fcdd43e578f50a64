import CLibevent

/// The scheme, host and port an absolute URL reaches, as the outbound client reads it (libevent's
/// URI parser): what a proxy stub compares before it sends, so that no text appended to its base
/// URL can point the request at another server.
public struct URLOrigin: Equatable, Sendable {
    public let scheme: String
    public let host: String
    /// The port the client connects to (the scheme's default when the URL gives none).
    public let port: Int

    /// nil when the outbound client would refuse the URL.
    public init?(_ url: String) {
        guard let uri = evhttp_uri_parse(url) else { return nil }
        defer { evhttp_uri_free(uri) }
        guard let schemePointer = evhttp_uri_get_scheme(uri), let hostPointer = evhttp_uri_get_host(uri) else { return nil }
        scheme = String(cString: schemePointer).lowercased()
        guard scheme == "http" || scheme == "https" else { return nil }
        host = String(cString: hostPointer).lowercased()
        let explicit = evhttp_uri_get_port(uri)
        port = explicit > 0 ? Int(explicit) : (scheme == "https" ? 443 : 80)
    }
}
