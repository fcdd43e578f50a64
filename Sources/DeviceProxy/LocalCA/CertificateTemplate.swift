import CLibevent
import HTTPServer

/// What a new X.509 v3 certificate says, and the signing that turns it into one. Extensions are
/// written in OpenSSL's configuration syntax ("critical,CA:TRUE") so OpenSSL does the DER.
struct CertificateTemplate {
    /// Name entries by OpenSSL short name ("CN", "O"), in order.
    var subject: [(field: String, value: String)]
    /// Seconds before now the certificate becomes valid: a little slack for device clocks running late.
    var validBeforeNow: Int
    /// Days from now until it expires.
    var validDays: Int
    var extensions: [(nid: Int32, value: String)]

    /// Signs with SHA-256 for `key`'s public half. `issuer` nil: self-signed (then `issuerKey` is `key`).
    func sign(key: PrivateKey, issuer: X509Certificate?, issuerKey: PrivateKey) throws(OpenSSLFailure) -> X509Certificate {
        guard let pointer = X509_new() else { throw OpenSSLFailure("make a certificate") }
        let certificate = X509Certificate(owning: pointer)
        guard X509_set_version(pointer, 2) == 1 else { throw OpenSSLFailure("set the certificate version") }
        try setRandomSerial(pointer)
        guard X509_gmtime_adj(X509_getm_notBefore(pointer), -validBeforeNow) != nil,
            X509_time_adj_ex(X509_getm_notAfter(pointer), Int32(validDays), 0, nil) != nil
        else {
            throw OpenSSLFailure("set the validity period")
        }
        guard X509_set_pubkey(pointer, key.pointer) == 1 else { throw OpenSSLFailure("set the public key") }
        try setSubject(pointer)
        guard X509_set_issuer_name(pointer, X509_get_subject_name(issuer?.pointer ?? pointer)) == 1 else {
            throw OpenSSLFailure("set the issuer")
        }
        var context = X509V3_CTX()
        X509V3_set_ctx(&context, issuer?.pointer ?? pointer, pointer, nil, nil, 0)
        for (nid, value) in extensions {
            guard let extensionPointer = X509V3_EXT_nconf_nid(nil, &context, nid, value) else {
                throw OpenSSLFailure("make the extension \(String(cString: OBJ_nid2sn(nid))) = \(value)")
            }
            defer { X509_EXTENSION_free(extensionPointer) }
            guard X509_add_ext(pointer, extensionPointer, -1) == 1 else { throw OpenSSLFailure("add an extension") }
        }
        guard X509_sign(pointer, issuerKey.pointer, EVP_sha256()) > 0 else { throw OpenSSLFailure("sign the certificate") }
        return certificate
    }

    /// 128 random bits, read as an unsigned (so positive) number; zero, which RFC 5280 forbids, is redrawn.
    private func setRandomSerial(_ certificate: OpaquePointer) throws(OpenSSLFailure) {
        var bytes = [UInt8](repeating: 0, count: 16)
        repeat {
            guard RAND_bytes(&bytes, Int32(bytes.count)) == 1 else { throw OpenSSLFailure("draw a random serial number") }
        } while bytes.allSatisfy { $0 == 0 }
        guard let number = BN_bin2bn(bytes, Int32(bytes.count), nil) else { throw OpenSSLFailure("make a serial number") }
        defer { BN_free(number) }
        guard BN_to_ASN1_INTEGER(number, X509_get_serialNumber(certificate)) != nil else {
            throw OpenSSLFailure("set the serial number")
        }
    }

    private func setSubject(_ certificate: OpaquePointer) throws(OpenSSLFailure) {
        guard let name = X509_NAME_new() else { throw OpenSSLFailure("make a name") }
        defer { X509_NAME_free(name) }
        for (field, value) in subject {
            guard X509_NAME_add_entry_by_txt(name, field, MBSTRING_UTF8, value, -1, -1, 0) == 1 else {
                throw OpenSSLFailure("set the subject's \(field) to \(value)")
            }
        }
        guard X509_set_subject_name(certificate, name) == 1 else { throw OpenSSLFailure("set the subject") }
    }
}
