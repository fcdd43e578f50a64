import CLibevent

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

/// The certificate chain and private key a listener serves `https://` with (PEM files).
public struct TLSServerSettings: Sendable, Hashable {
    public var certificateFile: String
    public var privateKeyFile: String

    public init(certificateFile: String, privateKeyFile: String) {
        self.certificateFile = certificateFile
        self.privateKeyFile = privateKeyFile
    }
}

/// OpenSSL contexts, made once per setting and kept for the process (an SSL_CTX is safe to share
/// between threads once set up).
enum TLSContexts {
    private static let clients = Locked<[TLSClientSettings: UnsafeSendablePointer]>([:])

    static func client(_ settings: TLSClientSettings) -> Result<OpaquePointer, OutboundError> {
        clients.withLock { contexts in
            if let known = contexts[settings] { return .success(known.pointer) }
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
            contexts[settings] = UnsafeSendablePointer(pointer: context)
            return .success(context)
        }
    }

    static func server(_ settings: TLSServerSettings) throws(ServerError) -> OpaquePointer {
        guard let context = SSL_CTX_new(TLS_server_method()) else { throw .tls("cannot make a TLS context") }
        guard SSL_CTX_use_certificate_chain_file(context, settings.certificateFile) == 1 else {
            SSL_CTX_free(context)
            throw .tls("cannot read the certificate \(settings.certificateFile): \(lastError())")
        }
        guard SSL_CTX_use_PrivateKey_file(context, settings.privateKeyFile, SSL_FILETYPE_PEM) == 1,
              SSL_CTX_check_private_key(context) == 1 else {
            SSL_CTX_free(context)
            throw .tls("cannot use the private key \(settings.privateKeyFile): \(lastError())")
        }
        return context
    }

    /// The oldest error on OpenSSL's queue, as text.
    static func lastError(_ code: UInt = ERR_get_error()) -> String {
        guard code != 0 else { return "unknown error" }
        var buffer = [CChar](repeating: 0, count: 256)
        ERR_error_string_n(code, &buffer, buffer.count)
        return String(cString: buffer)
    }
}

/// A C pointer kept in a lock-protected table.
struct UnsafeSendablePointer: @unchecked Sendable {
    let pointer: OpaquePointer
}
