import CLibevent

/// OpenSSL contexts, made once per setting and kept for the process (an SSL_CTX is safe to share
/// between threads once set up).
public enum TLSContexts {
    private static let clients = Locked<[TLSClientSettings: UnsafeTransfer<OpaquePointer>]>([:])

    static func client(_ settings: TLSClientSettings) -> Result<OpaquePointer, OutboundError> {
        clients.withLock { contexts in
            if let known = contexts[settings] { return .success(known.wrappedValue) }
            guard let context = SSL_CTX_new(TLS_client_method()) else { return .failure(.tlsFailed("", "cannot make a TLS context")) }
            if settings.verifyCertificates {
                SSL_CTX_set_verify(context, SSL_VERIFY_PEER, nil)
                SSL_CTX_set_default_verify_paths(context)
                if let file = settings.trustedCertificates, SSL_CTX_load_verify_locations(context, file, nil) != 1 {
                    SSL_CTX_free(context)
                    return .failure(.tlsFailed("", "cannot read the trusted certificates \(file)"))
                }
            } else {
                SSL_CTX_set_verify(context, SSL_VERIFY_NONE, nil)
            }
            contexts[settings] = UnsafeTransfer(context)
            return .success(context)
        }
    }

    static func server(_ settings: TLSServerSettings) throws(ServerError) -> OpaquePointer {
        switch settings.source {
        case .files(let certificate, let privateKey): return try server(certificate: certificate, privateKey: privateKey)
        case .authority(let authority): return try server(authority)
        }
    }

    private static func server(certificate: String, privateKey: String) throws(ServerError) -> OpaquePointer {
        guard let context = SSL_CTX_new(TLS_server_method()) else { throw .tls("cannot make a TLS context") }
        guard SSL_CTX_use_certificate_chain_file(context, certificate) == 1 else {
            SSL_CTX_free(context)
            throw .tls("cannot read the certificate \(certificate): \(lastError())")
        }
        guard SSL_CTX_use_PrivateKey_file(context, privateKey, SSL_FILETYPE_PEM) == 1,
            SSL_CTX_check_private_key(context) == 1
        else {
            SSL_CTX_free(context)
            throw .tls("cannot use the private key \(privateKey): \(lastError())")
        }
        return context
    }

    /// The `localhost` context of `authority`, switching each connection to the context of the
    /// host it names.
    private static func server(_ authority: any CertificateIssuer) throws(ServerError) -> OpaquePointer {
        guard let context = authority.serverContext(for: "localhost") else { throw .tls("the local CA cannot issue a certificate for localhost") }
        // The CA lives as long as the process, as the listener's context does.
        let retained = Unmanaged.passRetained(IssuerReference(authority)).toOpaque()
        understudy_ssl_ctx_set_servername_callback(context, onServerName, retained)
        return context
    }
}

/// Picks the certificate for the host the client names: by SNI, or for a connection a tunnel
/// relays in without one, by the tunnel's CONNECT host. Unknown or invalid names keep `localhost`.
private func onServerName(_ ssl: OpaquePointer?, _ alert: UnsafeMutablePointer<Int32>?, _ arg: UnsafeMutableRawPointer?) -> Int32 {
    guard let ssl, let arg else { return SSL_TLSEXT_ERR_NOACK }
    let authority = Unmanaged<IssuerReference>.fromOpaque(arg).takeUnretainedValue().issuer
    var host: String?
    if let name = SSL_get_servername(ssl, TLSEXT_NAMETYPE_host_name) {
        host = String(cString: name).lowercased()
    } else if let peer = SocketAddress.peer(of: SSL_get_fd(ssl)), peer.host == "127.0.0.1" {
        host = TunnelRegistry.origin(ofRelayPort: peer.port)?.host
    }
    if let host, let context = authority.serverContext(for: host) { SSL_set_SSL_CTX(ssl, context) }
    return SSL_TLSEXT_ERR_OK
}

/// An issuer as the one pointer a C callback takes.
private final class IssuerReference {
    let issuer: any CertificateIssuer
    init(_ issuer: any CertificateIssuer) { self.issuer = issuer }
}

extension TLSContexts {

    /// The oldest error on OpenSSL's queue, as text.
    public static func lastError(_ code: UInt = ERR_get_error()) -> String {
        guard code != 0 else { return "unknown error" }
        var buffer = [CChar](repeating: 0, count: 256)
        ERR_error_string_n(code, &buffer, buffer.count)
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
