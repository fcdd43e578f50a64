import CLibevent
import HTTPServer

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A certificate authority of this machine's own, for intercepting HTTPS ("device mode"): a user
/// trusts its certificate on a simulator, phone or browser once, and Understudy then terminates
/// TLS for `CONNECT host:443` with a leaf certificate for that host, issued on first use.
///
/// The CA key stays in its file and in this object: nothing here logs, returns or re-encodes it
/// except to write the file once when the CA is made.
public final class LocalCA: CertificateIssuer {
    public let directory: URL
    /// The CA certificate, to install on devices.
    public let certificatePEM: String
    public let certificateDER: [UInt8]
    /// e.g. "Understudy Local CA (development only, buildhost, 2026-11-23)"
    public let commonName: String
    /// SHA-256 fingerprint of the CA certificate as "AB:CD:…", for users to compare with what a device shows.
    public let fingerprint: String

    /// Contexts are kept as long as the CA (a pointer handed to a connection is never freed under
    /// it), so their number is capped: a client naming endless hosts cannot grow memory without end.
    static let maximumHosts = 1000

    private let certificate: X509Certificate

    /// OpenSSL's old subject hash (`openssl x509 -subject_hash_old`), eight hex digits: Android's
    /// system store names a CA's file after it (`<hash>.0`).
    public var subjectHashOld: String {
        let hash = String(X509_subject_name_hash_old(certificate.pointer), radix: 16)
        return String(repeating: "0", count: max(0, 8 - hash.count)) + hash
    }
    private let key: PrivateKey
    /// One key for every leaf, made at start and never written anywhere: per-host keys would sit in
    /// the same process memory as the CA key, so they protect nothing more, and would cost a key
    /// generation per host.
    private let leafKey: PrivateKey
    private let contexts = Locked<[CertificateHost: UnsafeTransfer<OpaquePointer>]>([:])

    private init(directory: URL, certificate: X509Certificate, key: PrivateKey) throws(OpenSSLFailure) {
        self.directory = directory
        self.certificate = certificate
        self.key = key
        leafKey = try PrivateKey.generateP256()
        certificatePEM = try certificate.pem()
        certificateDER = try certificate.der()
        fingerprint = try certificate.sha256Fingerprint()
        commonName = certificate.commonName ?? ""
    }

    deinit {
        contexts.withLock { contexts in
            for context in contexts.values { SSL_CTX_free(context.wrappedValue) }
        }
    }

    /// Loads the CA from `directory` (ca.pem and ca-key.pem), or makes a new one there when
    /// neither file exists. Never replaces a file: when only one exists, or either cannot be read,
    /// or they do not belong together, the error names the file and what is wrong with it.
    /// A missing directory is made with mode 0700; the key file is made with mode 0600; at every
    /// start both are checked to be this user's and no wider (`LocalCAStore.secure`).
    public static func loadOrCreate(directory: URL) throws(LocalCAError) -> LocalCA {
        guard directory.isFileURL else { throw LocalCAError(file: directory.absoluteString, reason: "is not a file URL") }
        let store = LocalCAStore(directory: directory.path(percentEncoded: false))
        try store.makeDirectory()
        try store.secure(store.directory, mode: 0o700)
        let (certificate, key): (X509Certificate, PrivateKey)
        switch (try store.exists(store.certificateFile), try store.exists(store.keyFile)) {
        case (true, true):
            try store.secure(store.keyFile, mode: 0o600)
            (certificate, key) = try load(store)
        case (false, false):
            (certificate, key) = try create(store)
        case (true, false):
            throw LocalCAError(
                file: store.keyFile,
                reason: "is missing while ca.pem is there; restore it, or delete ca.pem to make a new CA (which devices must then trust anew)")
        case (false, true):
            throw LocalCAError(
                file: store.certificateFile,
                reason: "is missing while ca-key.pem is there; restore it, or delete ca-key.pem to make a new CA (which devices must then trust anew)"
            )
        }
        do {
            return try LocalCA(directory: directory, certificate: certificate, key: key)
        } catch {
            throw LocalCAError(file: nil, reason: error.reason)
        }
    }

    private static func load(_ store: LocalCAStore) throws(LocalCAError) -> (X509Certificate, PrivateKey) {
        let certificatePEM = try store.contents(of: store.certificateFile)
        let certificate: X509Certificate
        do {
            certificate = try X509Certificate(pem: certificatePEM)
        } catch {
            throw LocalCAError(file: store.certificateFile, reason: error.reason)
        }
        guard certificate.isAuthority else {
            throw LocalCAError(file: store.certificateFile, reason: "is not a CA certificate (no basicConstraints CA:TRUE)")
        }
        guard !certificate.hasExpired else {
            throw LocalCAError(
                file: store.certificateFile, reason: "has expired; delete ca.pem and ca-key.pem to make a new CA (which devices must then trust anew)"
            )
        }
        var keyPEM = try store.contents(of: store.keyFile)
        defer { wipe(&keyPEM) }
        let key: PrivateKey
        do {
            key = try PrivateKey(pem: keyPEM)
        } catch {
            throw LocalCAError(file: store.keyFile, reason: error.reason)
        }
        guard certificate.matches(key) else {
            throw LocalCAError(file: store.keyFile, reason: "does not match the certificate in ca.pem")
        }
        return (certificate, key)
    }

    private static func create(_ store: LocalCAStore) throws(LocalCAError) -> (X509Certificate, PrivateKey) {
        let certificate: X509Certificate
        let key: PrivateKey
        let certificatePEM: String
        var keyPEM: [UInt8]
        do {
            key = try PrivateKey.generateP256()
            let template = CertificateTemplate(
                subject: [("CN", newCommonName()), ("O", "Understudy")],
                validBeforeNow: 24 * 3600,
                validDays: 3652,
                extensions: [
                    (NID_basic_constraints, "critical,CA:TRUE,pathlen:0"),
                    (NID_key_usage, "critical,keyCertSign,cRLSign"),
                    (NID_subject_key_identifier, "hash"),
                ]
            )
            certificate = try template.sign(key: key, issuer: nil, issuerKey: key)
            certificatePEM = try certificate.pem()
            keyPEM = try key.pem()
        } catch {
            throw LocalCAError(file: nil, reason: "cannot make a new CA: \(error.reason)")
        }
        defer { wipe(&keyPEM) }
        try store.create(store.keyFile, containing: keyPEM, mode: 0o600)
        do {
            try store.create(store.certificateFile, containing: Array(certificatePEM.utf8), mode: 0o644)
        } catch {
            // The key was made by this call a moment ago: without its certificate it is of no use.
            unlink(store.keyFile)
            throw error
        }
        return (certificate, key)
    }

    /// "Understudy Local CA (development only, HOST, DATE)": where and when it was made, so a user
    /// tells apart the CAs of several machines in a device's trust settings. X.509 allows 64
    /// characters in a common name, so the host is cut to fit.
    private static func newCommonName() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        let host =
            gethostname(&buffer, buffer.count - 1) == 0
            ? String(decoding: buffer.prefix { $0 != 0 && $0 != CChar(UInt8(ascii: ".")) }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            : ""
        let printable = host.unicodeScalars.filter {
            $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "-" || $0 == "_")
        }
        let prefix = "Understudy Local CA (development only, "
        let suffix = "\(today()))"
        let room = 64 - prefix.count - suffix.count - 2
        let shortHost = String(String.UnicodeScalarView(printable.prefix(room)))
        return shortHost.isEmpty ? prefix + suffix : prefix + shortHost + ", " + suffix
    }

    /// Today's UTC date, YYYY-MM-DD.
    private static func today() -> String {
        var now = time(nil)
        var parts = tm()
        gmtime_r(&now, &parts)
        func padded(_ value: Int32, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        return "\(padded(parts.tm_year + 1900, 4))-\(padded(parts.tm_mon + 1, 2))-\(padded(parts.tm_mday, 2))"
    }

    private static func wipe(_ bytes: inout [UInt8]) {
        bytes.withUnsafeMutableBytes { OPENSSL_cleanse($0.baseAddress, $0.count) }
    }

    // MARK: Leaf certificates

    /// A server SSL_CTX presenting a leaf certificate for `host` (a DNS name or an IP literal),
    /// issued on first use and kept. The same pointer for the same host, from any thread; valid
    /// while this CA lives. nil for a host no certificate can name, or past `maximumHosts`.
    public func serverContext(for host: String) -> OpaquePointer? {
        guard let target = CertificateHost(host) else { return nil }
        let known = contexts.withLock { contexts in
            (context: contexts[target]?.wrappedValue, full: contexts.count >= Self.maximumHosts)
        }
        if let context = known.context { return context }
        guard !known.full else { return nil }
        // Issued outside the lock, so other loops' look-ups never wait on a signature; two loops
        // racing for one new host each make one, and the loser's is freed.
        guard let made = try? LeafServerContext.make(certificate: issue(target), key: leafKey, authority: certificate) else { return nil }
        return contexts.withLock { contexts in
            if let raced = contexts[target] {
                SSL_CTX_free(made)
                return raced.wrappedValue
            }
            guard contexts.count < Self.maximumHosts else {
                SSL_CTX_free(made)
                return nil
            }
            contexts[target] = UnsafeTransfer(made)
            return made
        }
    }

    /// Issues a new leaf certificate for `host` (not cached, not kept), and how long issuing took:
    /// building and signing the certificate, the leaf key being made once per CA.
    public func issueLeaf(for host: String) throws(LocalCAError) -> (certificatePEM: String, milliseconds: Double) {
        guard let target = CertificateHost(host) else {
            throw LocalCAError(file: nil, reason: "\(String(reflecting: host)) is not a DNS name or IP address a certificate can name")
        }
        do {
            let start = MonotonicClock.nanoseconds()
            let leaf = try issue(target)
            let milliseconds = Double(MonotonicClock.nanoseconds() - start) / 1e6
            return (try leaf.pem(), milliseconds)
        } catch {
            throw LocalCAError(file: nil, reason: "cannot issue a certificate for \(host): \(error.reason)")
        }
    }

    /// What iOS, macOS and Chrome want of a server certificate: the host in subjectAltName, EKU
    /// serverAuth, at most 398 days of validity (Apple's limit), SHA-256. It never outlives the CA. The subject's common name
    /// is the host when X.509's 64 characters hold it; clients match on subjectAltName anyway.
    private func issue(_ host: CertificateHost) throws(OpenSSLFailure) -> X509Certificate {
        let template = CertificateTemplate(
            subject: host.text.count <= 64 ? [("CN", host.text)] : [("O", "Understudy")],
            validBeforeNow: 3600,
            validDays: min(397, certificate.daysLeft),
            extensions: [
                (NID_subject_alt_name, host.subjectAltName),
                (NID_basic_constraints, "critical,CA:FALSE"),
                (NID_key_usage, "critical,digitalSignature"),
                (NID_ext_key_usage, "serverAuth"),
                (NID_authority_key_identifier, "keyid,issuer"),
            ]
        )
        return try template.sign(key: leafKey, issuer: certificate, issuerKey: key)
    }
}
