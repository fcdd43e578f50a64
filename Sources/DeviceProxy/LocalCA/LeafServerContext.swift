import CLibevent
import HTTPServer

/// The server-side TLS context for one intercepted host: its leaf certificate, the shared leaf key,
/// the CA certificate sent after it, TLS 1.2 or newer, and ALPN that only ever agrees to HTTP/1.1
/// (evhttp speaks nothing else).
enum LeafServerContext {
    /// A new SSL_CTX the caller owns (SSL_CTX_free).
    static func make(certificate: X509Certificate, key: PrivateKey, authority: X509Certificate) throws(OpenSSLFailure) -> OpaquePointer {
        guard let context = SSL_CTX_new(TLS_server_method()) else { throw OpenSSLFailure("make a TLS context") }
        guard understudy_ssl_ctx_set_min_proto_version(context, TLS1_2_VERSION) == 1,
            SSL_CTX_use_certificate(context, certificate.pointer) == 1,
            SSL_CTX_use_PrivateKey(context, key.pointer) == 1,
            SSL_CTX_check_private_key(context) == 1,
            understudy_ssl_ctx_add1_chain_cert(context, authority.pointer) == 1
        else {
            let failure = OpenSSLFailure("set up the TLS context")
            SSL_CTX_free(context)
            throw failure
        }
        understudy_ssl_ctx_refuse_renegotiation(context)
        SSL_CTX_set_alpn_select_cb(context, selectHTTP1, nil)
        return context
    }

    /// Picks "http/1.1" from the client's ALPN list; without it, declines ALPN (NOACK) and the
    /// handshake goes on, so a client offering only h2 learns from the missing answer.
    private static let selectHTTP1:
        @convention(c) (
            OpaquePointer?, UnsafeMutablePointer<UnsafePointer<UInt8>?>?, UnsafeMutablePointer<UInt8>?,
            UnsafePointer<UInt8>?, UInt32, UnsafeMutableRawPointer?
        ) -> Int32 = { _, selected, selectedLength, offered, offeredLength, _ in
            guard let selected, let selectedLength, let offered else { return SSL_TLSEXT_ERR_NOACK }
            let wanted = Array("http/1.1".utf8)
            let list = UnsafeBufferPointer(start: offered, count: Int(offeredLength))
            var index = 0
            while index < list.count {
                let start = index + 1
                let end = start + Int(list[index])
                guard end <= list.count else { break }
                if list[start..<end].elementsEqual(wanted) {
                    selected.pointee = offered + start
                    selectedLength.pointee = UInt8(wanted.count)
                    return SSL_TLSEXT_ERR_OK
                }
                index = end
            }
            return SSL_TLSEXT_ERR_NOACK
        }
}
