import CLibevent
import HTTPServer

/// An OpenSSL certificate (X509) this object owns. Read-only once made: OpenSSL guards the
/// caches it fills on first read, so threads may read and issue under it at once.
final class X509Certificate: @unchecked Sendable {
    let pointer: OpaquePointer

    init(owning pointer: OpaquePointer) {
        self.pointer = pointer
    }

    deinit { X509_free(pointer) }

    /// Parses the first certificate of a PEM text.
    init(pem: [UInt8]) throws(OpenSSLFailure) {
        let certificate = MemoryBIO.reading(pem) { bio in bio.flatMap { PEM_read_bio_X509($0, nil, nil, nil) } }
        guard let certificate else { throw OpenSSLFailure("read a PEM certificate") }
        pointer = certificate
    }

    func pem() throws(OpenSSLFailure) -> String {
        guard let bio = BIO_new(BIO_s_mem()) else { throw OpenSSLFailure("make a memory buffer") }
        defer { BIO_free(bio) }
        guard PEM_write_bio_X509(bio, pointer) == 1 else { throw OpenSSLFailure("encode the certificate") }
        return String(decoding: MemoryBIO.contents(bio), as: UTF8.self)
    }

    func der() throws(OpenSSLFailure) -> [UInt8] {
        let length = i2d_X509(pointer, nil)
        guard length > 0 else { throw OpenSSLFailure("encode the certificate") }
        var der = [UInt8](repeating: 0, count: Int(length))
        let written = der.withUnsafeMutableBufferPointer { buffer in
            var cursor = buffer.baseAddress
            return i2d_X509(pointer, &cursor)
        }
        guard written == length else { throw OpenSSLFailure("encode the certificate") }
        return der
    }

    /// The SHA-256 digest of the DER form as "AB:CD:…", as browsers and `openssl x509 -fingerprint` show it.
    func sha256Fingerprint() throws(OpenSSLFailure) -> String {
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        guard X509_digest(pointer, EVP_sha256(), &digest, &length) == 1 else { throw OpenSSLFailure("digest the certificate") }
        return digest.prefix(Int(length)).map { hexByte($0) }.joined(separator: ":")
    }

    /// The subject's first common name, if any.
    var commonName: String? {
        guard let subject = X509_get_subject_name(pointer) else { return nil }
        let index = X509_NAME_get_index_by_NID(subject, NID_commonName, -1)
        guard index >= 0, let entry = X509_NAME_get_entry(subject, index),
            let value = X509_NAME_ENTRY_get_data(entry), let bytes = ASN1_STRING_get0_data(value)
        else { return nil }
        return String(decoding: UnsafeBufferPointer(start: bytes, count: Int(ASN1_STRING_length(value))), as: UTF8.self)
    }

    /// Whether the certificate's notAfter has passed.
    var hasExpired: Bool { X509_cmp_current_time(X509_get0_notAfter(pointer)) < 0 }

    /// Whole days from now until notAfter (0 once past).
    var daysLeft: Int {
        var days: Int32 = 0
        var seconds: Int32 = 0
        guard ASN1_TIME_diff(&days, &seconds, nil, X509_get0_notAfter(pointer)) == 1 else { return 0 }
        return max(0, Int(days))
    }

    /// Whether the certificate may sign others (basicConstraints CA:TRUE, or a v1 self-signed root).
    var isAuthority: Bool { X509_check_ca(pointer) != 0 }

    /// Whether `key` is the private half of this certificate's public key.
    func matches(_ key: PrivateKey) -> Bool {
        let matches = X509_check_private_key(pointer, key.pointer) == 1
        ERR_clear_error()
        return matches
    }
}

private func hexByte(_ byte: UInt8) -> String {
    let digits = Array("0123456789ABCDEF")
    return String([digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]])
}
