import CLibevent
import Foundation
import Testing
import UnderstudyTesting

@testable import DeviceProxy
@testable import HTTPServer

@Suite struct LocalCATests {
    // MARK: The CA's files

    @Test func makesTheFilesPrivatelyAndLoadsTheSameCAAgain() throws {
        let root = try makeTemporaryDirectory([:])
        defer { try? FileManager.default.removeItem(at: root) }
        let directory = root.appendingPathComponent("nested/ca")
        let made = try LocalCA.loadOrCreate(directory: directory)
        #expect(try mode(directory) == 0o700)
        #expect(try mode(root.appendingPathComponent("nested")) == 0o700)
        #expect(try mode(directory.appendingPathComponent("ca-key.pem")) == 0o600)
        #expect(try String(contentsOf: directory.appendingPathComponent("ca.pem"), encoding: .utf8) == made.certificatePEM)

        let loaded = try LocalCA.loadOrCreate(directory: directory)
        #expect(loaded.fingerprint == made.fingerprint)
        #expect(loaded.certificateDER == made.certificateDER)
        #expect(loaded.commonName == made.commonName)
        #expect(made.fingerprint.split(separator: ":").count == 32)
        #expect(made.fingerprint.allSatisfy { $0.isHexDigit && !$0.isLowercase || $0 == ":" })
        #expect(made.commonName.hasPrefix("Understudy Local CA (development only, "))
        #expect(made.commonName.count <= 64)
    }

    /// On a shared host another user could swap the pair in a folder others may write: modes are
    /// narrowed at every start, not only when the folder is made.
    @Test func modesThatLetOthersInAreNarrowedAtEveryStart() throws {
        let root = try makeTemporaryDirectory([:])
        defer { try? FileManager.default.removeItem(at: root) }
        let directory = root.appendingPathComponent("ca")
        let made = try LocalCA.loadOrCreate(directory: directory)
        let key = directory.appendingPathComponent("ca-key.pem")
        #expect(chmod(directory.path, 0o777) == 0 && chmod(key.path, 0o644) == 0)
        let loaded = try LocalCA.loadOrCreate(directory: directory)
        #expect(loaded.fingerprint == made.fingerprint)
        #expect(try mode(directory) == 0o700)
        #expect(try mode(key) == 0o600)
        #expect(chmod(directory.path, 0o750) == 0)
        _ = try LocalCA.loadOrCreate(directory: directory)
        #expect(try mode(directory) == 0o700, "group access too")
    }

    @Test(.enabled(if: geteuid() == 0, "only root can give a folder to another user"))
    func aFolderOfAnotherUserIsRefusedWithWhatToDo() throws {
        let root = try makeTemporaryDirectory([:])
        defer { try? FileManager.default.removeItem(at: root) }
        let directory = root.appendingPathComponent("ca")
        _ = try LocalCA.loadOrCreate(directory: directory)
        #expect(chown(directory.path, 65534, 65534) == 0)
        let error = #expect(throws: LocalCAError.self) { try LocalCA.loadOrCreate(directory: directory) }
        #expect(error?.description.contains("belongs to another user") == true && error?.description.contains("chown") == true)
    }

    @Test func theCACertificateIsAnAuthorityForTenYears() throws {
        let (root, ca) = try makeCA()
        defer { try? FileManager.default.removeItem(at: root) }
        let certificate = try X509Certificate(pem: Array(ca.certificatePEM.utf8))
        let text = CertificateCheck.text(certificate)
        #expect(X509_get_version(certificate.pointer) == 2)
        #expect(text.contains("CA:TRUE, pathlen:0"))
        #expect(text.contains("Certificate Sign, CRL Sign"))
        #expect(text.contains("X509v3 Subject Key Identifier"))
        #expect(text.contains("ecdsa-with-SHA256"))
        #expect(text.contains("ASN1 OID: prime256v1"))
        #expect(text.contains("O=Understudy") || text.contains("O = Understudy"))
        #expect(X509_check_issued(certificate.pointer, certificate.pointer) == X509_V_OK)
        #expect(CertificateCheck.validity(certificate) == (3653, 0))
        #expect((100...128).contains(CertificateCheck.serialBits(certificate)))
        #expect(try X509Certificate(pem: Array(ca.certificatePEM.utf8)).der() == ca.certificateDER)
        #expect(!text.contains("PRIVATE KEY"))
    }

    @Test func onlyTheCertificateIsAnErrorNamingTheMissingKey() throws {
        let (root, ca) = try makeCA()
        defer { try? FileManager.default.removeItem(at: root) }
        let key = ca.directory.appendingPathComponent("ca-key.pem")
        try FileManager.default.removeItem(at: key)
        let before = try files(ca.directory)
        let error = #expect(throws: LocalCAError.self) { try LocalCA.loadOrCreate(directory: ca.directory) }
        #expect(error?.file == key.path)
        #expect(error?.reason.contains("is missing while ca.pem is there") == true)
        #expect(try files(ca.directory) == before)
    }

    @Test func onlyTheKeyIsAnErrorNamingTheMissingCertificate() throws {
        let (root, ca) = try makeCA()
        defer { try? FileManager.default.removeItem(at: root) }
        let certificate = ca.directory.appendingPathComponent("ca.pem")
        try FileManager.default.removeItem(at: certificate)
        let before = try files(ca.directory)
        let error = #expect(throws: LocalCAError.self) { try LocalCA.loadOrCreate(directory: ca.directory) }
        #expect(error?.file == certificate.path)
        #expect(try files(ca.directory) == before)
    }

    @Test func aCorruptKeyIsAnErrorNamingItAndNothingIsReplaced() throws {
        let (root, ca) = try makeCA()
        defer { try? FileManager.default.removeItem(at: root) }
        let key = ca.directory.appendingPathComponent("ca-key.pem")
        try Data("-----BEGIN PRIVATE KEY-----\nbm90IGEga2V5\n-----END PRIVATE KEY-----\n".utf8).write(to: key)
        let before = try files(ca.directory)
        let error = #expect(throws: LocalCAError.self) { try LocalCA.loadOrCreate(directory: ca.directory) }
        #expect(error?.file == key.path)
        #expect(error?.description.hasPrefix("\(key.path): cannot read a PEM private key") == true)
        #expect(try files(ca.directory) == before)
    }

    @Test func anEncryptedKeyIsRefusedWithoutAskingForAPassword() throws {
        let (root, ca) = try makeCA()
        defer { try? FileManager.default.removeItem(at: root) }
        let key = ca.directory.appendingPathComponent("ca-key.pem")
        let plain = try PrivateKey(pem: Array(try Data(contentsOf: key)))
        let bio = try #require(BIO_new(BIO_s_mem()))
        defer { BIO_free(bio) }
        #expect(PEM_write_bio_PKCS8PrivateKey(bio, plain.pointer, EVP_aes_256_cbc(), "secret", 6, nil, nil) == 1)
        try Data(MemoryBIO.contents(bio)).write(to: key)
        let before = try files(ca.directory)
        let error = #expect(throws: LocalCAError.self) { try LocalCA.loadOrCreate(directory: ca.directory) }
        #expect(error?.file == key.path)
        #expect(error?.reason.contains("an encrypted key is not supported") == true)
        #expect(try files(ca.directory) == before)
    }

    @Test func aCorruptCertificateIsAnErrorNamingIt() throws {
        let (root, ca) = try makeCA()
        defer { try? FileManager.default.removeItem(at: root) }
        let certificate = ca.directory.appendingPathComponent("ca.pem")
        try Data("not a certificate".utf8).write(to: certificate)
        let before = try files(ca.directory)
        let error = #expect(throws: LocalCAError.self) { try LocalCA.loadOrCreate(directory: ca.directory) }
        #expect(error?.file == certificate.path)
        #expect(try files(ca.directory) == before)
    }

    @Test func aKeyOfAnotherCAIsAnErrorNamingIt() throws {
        let (root, ca) = try makeCA()
        defer { try? FileManager.default.removeItem(at: root) }
        let other = try LocalCA.loadOrCreate(directory: root.appendingPathComponent("other"))
        let key = ca.directory.appendingPathComponent("ca-key.pem")
        try FileManager.default.removeItem(at: key)
        try FileManager.default.copyItem(at: other.directory.appendingPathComponent("ca-key.pem"), to: key)
        let before = try files(ca.directory)
        let error = #expect(throws: LocalCAError.self) { try LocalCA.loadOrCreate(directory: ca.directory) }
        #expect(error?.file == key.path)
        #expect(error?.reason == "does not match the certificate in ca.pem")
        #expect(try files(ca.directory) == before)
        #expect(other.fingerprint != ca.fingerprint)
    }

    @Test func aFileWhereTheDirectoryShouldBeIsAnError() throws {
        let root = try makeTemporaryDirectory(["ca": "a file"])
        defer { try? FileManager.default.removeItem(at: root) }
        let error = #expect(throws: LocalCAError.self) { try LocalCA.loadOrCreate(directory: root.appendingPathComponent("ca")) }
        #expect(error?.reason == "is not a directory")
    }

    // MARK: Leaf certificates

    @Test func aLeafVerifiesForItsHostAndNoOther() throws {
        let (root, ca) = try makeCA()
        defer { try? FileManager.default.removeItem(at: root) }
        let authority = try X509Certificate(pem: Array(ca.certificatePEM.utf8))
        let issued = try ca.issueLeaf(for: "www.ibm.com")
        #expect(issued.milliseconds > 0)
        let leaf = try X509Certificate(pem: Array(issued.certificatePEM.utf8))
        #expect(CertificateCheck.verify(leaf, under: authority, host: "www.ibm.com") == X509_V_OK)
        #expect(CertificateCheck.verify(leaf, under: authority, host: "WWW.IBM.COM") == X509_V_OK)
        #expect(CertificateCheck.verify(leaf, under: authority, host: "evil.example") == X509_V_ERR_HOSTNAME_MISMATCH)
        #expect(CertificateCheck.verify(leaf, under: authority, host: "ibm.com") == X509_V_ERR_HOSTNAME_MISMATCH)

        let text = CertificateCheck.text(leaf)
        #expect(X509_get_version(leaf.pointer) == 2)
        #expect(leaf.commonName == "www.ibm.com")
        #expect(text.contains("DNS:www.ibm.com"))
        #expect(text.contains("CA:FALSE"))
        #expect(text.contains("X509v3 Key Usage: critical\n                Digital Signature\n"))
        #expect(X509_get_extended_key_usage(leaf.pointer) == UInt32(XKU_SSL_SERVER))
        #expect(text.contains("X509v3 Authority Key Identifier"))
        #expect(X509_get_signature_nid(leaf.pointer) == NID_ecdsa_with_SHA256)
        #expect(X509_check_issued(authority.pointer, leaf.pointer) == X509_V_OK)
        #expect(!leaf.isAuthority)
        // Apple's limit is 398 days from notBefore to notAfter.
        #expect(CertificateCheck.validity(leaf) == (397, 3600))
        #expect(X509_cmp_current_time(X509_get0_notBefore(leaf.pointer)) < 0)
        #expect((100...128).contains(CertificateCheck.serialBits(leaf)))

        let another = try X509Certificate(pem: Array(ca.issueLeaf(for: "www.ibm.com").certificatePEM.utf8))
        #expect(ASN1_INTEGER_cmp(X509_get0_serialNumber(leaf.pointer), X509_get0_serialNumber(another.pointer)) != 0)
    }

    @Test func aLeafNotUnderTheCAFailsVerification() throws {
        let (root, ca) = try makeCA()
        defer { try? FileManager.default.removeItem(at: root) }
        let other = try LocalCA.loadOrCreate(directory: root.appendingPathComponent("other"))
        let leaf = try X509Certificate(pem: Array(other.issueLeaf(for: "www.ibm.com").certificatePEM.utf8))
        let authority = try X509Certificate(pem: Array(ca.certificatePEM.utf8))
        #expect(CertificateCheck.verify(leaf, under: authority, host: "www.ibm.com") == X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY)
    }

    @Test func addressLeavesHaveAnIPSubjectAltName() throws {
        let (root, ca) = try makeCA()
        defer { try? FileManager.default.removeItem(at: root) }
        let authority = try X509Certificate(pem: Array(ca.certificatePEM.utf8))
        let v4 = try X509Certificate(pem: Array(ca.issueLeaf(for: "127.0.0.1").certificatePEM.utf8))
        #expect(CertificateCheck.text(v4).contains("IP Address:127.0.0.1"))
        #expect(CertificateCheck.verify(v4, under: authority, address: "127.0.0.1") == X509_V_OK)
        #expect(CertificateCheck.verify(v4, under: authority, address: "127.0.0.2") == X509_V_ERR_IP_ADDRESS_MISMATCH)

        for literal in ["::1", "[::1]", "0:0:0:0:0:0:0:1"] {
            let v6 = try X509Certificate(pem: Array(ca.issueLeaf(for: literal).certificatePEM.utf8))
            #expect(CertificateCheck.verify(v6, under: authority, address: "::1") == X509_V_OK, "\(literal)")
            #expect(v6.commonName == "::1")
        }
    }

    @Test func aNameOfTheLongestLengthGetsALeafWithoutACommonName() throws {
        let (root, ca) = try makeCA()
        defer { try? FileManager.default.removeItem(at: root) }
        let label = String(repeating: "a", count: 63)
        let longest = [label, label, label, String(repeating: "b", count: 61)].joined(separator: ".")
        #expect(longest.utf8.count == 253)
        let authority = try X509Certificate(pem: Array(ca.certificatePEM.utf8))
        let leaf = try X509Certificate(pem: Array(ca.issueLeaf(for: longest).certificatePEM.utf8))
        #expect(CertificateCheck.verify(leaf, under: authority, host: longest) == X509_V_OK)
        #expect(leaf.commonName == nil)
        #expect(ca.serverContext(for: longest) != nil)
    }

    @Test func hostsNoCertificateCanNameAreRefused() throws {
        let (root, ca) = try makeCA()
        defer { try? FileManager.default.removeItem(at: root) }
        let refused = [
            "", "-bad.com", "bad-.com", String(repeating: "a", count: 300), "a b", "*.example.com",
            "exa_mple.com", "www.ibm.com\0.evil", "127.0.0.1\0", "www..com", ".com", "www.ibm.com.",
            String(repeating: "a", count: 64) + ".com", "bücher.de", "a,DNS:evil.com", "10.0.0", "999.1.1.1",
            "[www.ibm.com]", "fe80::1%eth0", "www.ibm.com:443",
        ]
        for host in refused {
            #expect(ca.serverContext(for: host) == nil, "\(String(reflecting: host))")
            #expect(throws: LocalCAError.self, "\(String(reflecting: host))") { try ca.issueLeaf(for: host) }
        }
        let error = #expect(throws: LocalCAError.self) { try ca.issueLeaf(for: "a b") }
        #expect(error?.file == nil)
        #expect(error?.description == "\"a b\" is not a DNS name or IP address a certificate can name")
    }

    @Test func namesAreCachedCaseInsensitivelyAndAddressesByTheirCanonicalForm() throws {
        let (root, ca) = try makeCA()
        defer { try? FileManager.default.removeItem(at: root) }
        let context = try #require(ca.serverContext(for: "www.ibm.com"))
        #expect(ca.serverContext(for: "WWW.IBM.com") == context)
        #expect(ca.serverContext(for: "ibm.com") != context)
        let loopback = try #require(ca.serverContext(for: "::1"))
        #expect(ca.serverContext(for: "[::1]") == loopback)
        #expect(ca.serverContext(for: "0::1") == loopback)
        #expect(ca.serverContext(for: "localhost") != nil)
        #expect(ca.serverContext(for: "xn--bcher-kva.de") != nil)
        #expect(SSL_CTX_ctrl(context, SSL_CTRL_GET_MIN_PROTO_VERSION, 0, nil) == TLS1_2_VERSION)
    }

    // MARK: Handshakes

    @Test func aClientTrustingTheCAConnectsWithHTTP1() throws {
        let (root, ca) = try makeCA()
        defer { try? FileManager.default.removeItem(at: root) }
        let pair = try TLSHandshakePair()
        pair.serve(with: try #require(ca.serverContext(for: "www.ibm.com")))
        let client = pair.connect(serverName: "www.ibm.com", trusting: try authority(ca), alpn: ["h2", "http/1.1"])
        let server = pair.serverResult()
        #expect(client.connected, "\(client.error)")
        #expect(client.verifyResult == X509_V_OK)
        #expect(client.alpn == "http/1.1")
        #expect(client.version >= TLS1_2_VERSION)
        #expect(client.response == "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
        #expect(server.accepted)
        #expect(server.request == "GET / HTTP/1.1\r\nHost: www.ibm.com\r\n\r\n")
    }

    @Test func aClientOfferingOnlyH2ConnectsWithoutALPN() throws {
        let (root, ca) = try makeCA()
        defer { try? FileManager.default.removeItem(at: root) }
        let pair = try TLSHandshakePair()
        pair.serve(with: try #require(ca.serverContext(for: "www.ibm.com")))
        let client = pair.connect(serverName: "www.ibm.com", trusting: try authority(ca), alpn: ["h2"])
        #expect(pair.serverResult().accepted)
        #expect(client.connected, "\(client.error)")
        #expect(client.alpn == nil)
    }

    @Test func aClientAskingForAnotherHostRefusesTheCertificate() throws {
        let (root, ca) = try makeCA()
        defer { try? FileManager.default.removeItem(at: root) }
        let pair = try TLSHandshakePair()
        pair.serve(with: try #require(ca.serverContext(for: "www.ibm.com")))
        let client = pair.connect(serverName: "evil.example", trusting: try authority(ca), alpn: ["http/1.1"])
        #expect(!pair.serverResult().accepted)
        #expect(!client.connected)
        #expect(client.verifyResult == Int(X509_V_ERR_HOSTNAME_MISMATCH))
    }

    @Test func aClientTrustingAnotherCARefusesTheCertificate() throws {
        let (root, ca) = try makeCA()
        defer { try? FileManager.default.removeItem(at: root) }
        let other = try LocalCA.loadOrCreate(directory: root.appendingPathComponent("other"))
        let pair = try TLSHandshakePair()
        pair.serve(with: try #require(ca.serverContext(for: "www.ibm.com")))
        let client = pair.connect(serverName: "www.ibm.com", trusting: try authority(other), alpn: ["http/1.1"])
        #expect(!pair.serverResult().accepted)
        #expect(!client.connected)
        #expect(client.verifyResult != Int(X509_V_OK))
    }

    @Test func plainHTTPToTheTLSSideFailsTheHandshakeCleanly() throws {
        let (root, ca) = try makeCA()
        defer { try? FileManager.default.removeItem(at: root) }
        let pair = try TLSHandshakePair()
        pair.serve(with: try #require(ca.serverContext(for: "www.ibm.com")))
        pair.sendPlain("GET / HTTP/1.1\r\nHost: www.ibm.com\r\n\r\n")
        let server = pair.serverResult()
        #expect(!server.accepted)
        #expect(server.error.contains("http request"), "\(server.error)")
    }

    // MARK: Threads

    @Test func threadsAskingAtOnceShareOneContextPerHost() throws {
        let (root, ca) = try makeCA()
        defer { try? FileManager.default.removeItem(at: root) }
        let hosts = ["www.ibm.com", "WWW.IBM.COM", "a.example", "b.example", "127.0.0.1", "::1", "[::1]", "c.example"]
        let seen = Locked<[String: Set<UInt>]>([:])
        let start = DispatchSemaphore(value: 0)
        let done = DispatchGroup()
        for thread in 0..<8 {
            done.enter()
            Thread.detachNewThread {
                start.wait()
                for round in 0..<(hosts.count * 3) {
                    let host = hosts[(thread + round) % hosts.count]
                    let context = ca.serverContext(for: host).map { UInt(bitPattern: Int(bitPattern: UnsafeRawPointer($0))) } ?? 0
                    let key = host.lowercased().trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
                    seen.withLock { _ = $0[key, default: []].insert(context) }
                }
                done.leave()
            }
        }
        for _ in 0..<8 { start.signal() }
        done.wait()
        let contexts = seen.withLock { $0 }
        #expect(contexts.count == 6)
        for (host, pointers) in contexts {
            #expect(pointers.count == 1, "\(host)")
            #expect(!pointers.contains(0), "\(host)")
        }
        #expect(Set(contexts.values.flatMap { $0 }).count == 6)
    }

    // MARK: Helpers

    private func makeCA() throws -> (root: URL, ca: LocalCA) {
        let root = try makeTemporaryDirectory([:])
        return (root, try LocalCA.loadOrCreate(directory: root.appendingPathComponent("ca")))
    }

    private func authority(_ ca: LocalCA) throws -> X509Certificate {
        try X509Certificate(pem: Array(ca.certificatePEM.utf8))
    }

    private func mode(_ url: URL) throws -> Int {
        let attributes = try FileManager.default.attributesOfItem(atPath: url.path)
        return ((attributes[.posixPermissions] as? NSNumber)?.intValue ?? 0) & 0o777
    }

    /// Every file in `directory` with its bytes.
    private func files(_ directory: URL) throws -> [String: Data] {
        var contents: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: directory.path) {
            contents[name] = try Data(contentsOf: directory.appendingPathComponent(name))
        }
        return contents
    }
}
