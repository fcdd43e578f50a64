import CLibevent
import HTTPServer

/// An OpenSSL private key (EVP_PKEY) this object owns. Read-only once made, so threads may sign
/// with it at once (each signature makes its own EVP_PKEY_CTX).
final class PrivateKey: @unchecked Sendable {
    let pointer: OpaquePointer

    private init(owning pointer: OpaquePointer) {
        self.pointer = pointer
    }

    deinit { EVP_PKEY_free(pointer) }

    /// A new EC key on P-256, by the EVP_PKEY_CTX route that OpenSSL 1.1.1 and 3.x both have.
    static func generateP256() throws(OpenSSLFailure) -> PrivateKey {
        guard let context = EVP_PKEY_CTX_new_id(EVP_PKEY_EC, nil) else { throw OpenSSLFailure("make a key context") }
        defer { EVP_PKEY_CTX_free(context) }
        var key: OpaquePointer?
        guard EVP_PKEY_keygen_init(context) == 1,
            understudy_pkey_ctx_set_ec_curve(context, NID_X9_62_prime256v1) == 1,
            understudy_pkey_ctx_set_named_curve_encoding(context) == 1,
            EVP_PKEY_keygen(context, &key) == 1, let key
        else {
            throw OpenSSLFailure("generate a P-256 key")
        }
        return PrivateKey(owning: key)
    }

    /// Parses a PEM private key. An encrypted one is refused rather than prompted for: the
    /// password callback answers "no password" so OpenSSL never reads the terminal.
    init(pem: [UInt8]) throws(OpenSSLFailure) {
        let key = MemoryBIO.reading(pem) { bio in bio.flatMap { PEM_read_bio_PrivateKey($0, nil, { _, _, _, _ in -1 }, nil) } }
        guard let key else {
            throw OpenSSLFailure("read a PEM private key (an encrypted key is not supported)")
        }
        pointer = key
    }

    /// The key as unencrypted PKCS#8 PEM, built in OpenSSL's secure memory (wiped when freed).
    /// The caller wipes the returned bytes once they are written.
    func pem() throws(OpenSSLFailure) -> [UInt8] {
        guard let bio = BIO_new(BIO_s_secmem()) else { throw OpenSSLFailure("make a memory buffer") }
        defer { BIO_free(bio) }
        guard PEM_write_bio_PrivateKey(bio, pointer, nil, nil, 0, nil, nil) == 1 else {
            throw OpenSSLFailure("encode the private key")
        }
        return MemoryBIO.contents(bio)
    }
}
