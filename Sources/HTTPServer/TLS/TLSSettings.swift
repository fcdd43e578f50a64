/// How the outbound client checks the servers it talks to over `https://`.
public struct TLSClientSettings: Sendable, Hashable {
    /// Check the server's certificate chain and its name (the default). Off: any certificate.
    public var verifyCertificates: Bool
    /// A PEM file of certificates to trust besides the system's (a test's own authority).
    public var trustedCertificates: String?

    public init(verifyCertificates: Bool = true, trustedCertificates: String? = nil) {
        self.verifyCertificates = verifyCertificates
        self.trustedCertificates = trustedCertificates
    }
}

/// Issues a server certificate for each host a client names (the local CA does).
public protocol CertificateIssuer: AnyObject, Sendable {
    /// A server SSL_CTX presenting a certificate for `host`, the same one for the same host, valid
    /// while the issuer lives; nil for a host it cannot name.
    func serverContext(for host: String) -> OpaquePointer?
}

/// What a listener serves `https://` with: a certificate chain and key (PEM files), or
/// certificates an issuer (the local CA) makes for whichever host each client asks for.
public struct TLSServerSettings: Sendable {
    enum Source: Sendable {
        case files(certificate: String, privateKey: String)
        case authority(any CertificateIssuer)
    }

    let source: Source

    public init(certificateFile: String, privateKeyFile: String) {
        source = .files(certificate: certificateFile, privateKey: privateKeyFile)
    }

    /// A certificate for the host the client names (SNI); without a name, for the host of the
    /// CONNECT tunnel the connection came through, else for `localhost`.
    public init(authority: any CertificateIssuer) {
        source = .authority(authority)
    }
}
