import CLibevent
import Foundation

@testable import DeviceProxy
@testable import HTTPServer

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// OpenSSL's own checks of a certificate the local CA issued, the way a TLS client makes them.
enum CertificateCheck {
    /// X509_verify_cert's result for `leaf` under `authority` alone, for an SSL server named `host`
    /// (a DNS name) or at `address` (an IP literal).
    static func verify(_ leaf: X509Certificate, under authority: X509Certificate, host: String? = nil, address: String? = nil) -> Int32 {
        guard let store = X509_STORE_new(), let context = X509_STORE_CTX_new() else { return -1 }
        defer {
            X509_STORE_CTX_free(context)
            X509_STORE_free(store)
        }
        X509_STORE_add_cert(store, authority.pointer)
        guard X509_STORE_CTX_init(context, store, leaf.pointer, nil) == 1,
            X509_STORE_CTX_set_purpose(context, X509_PURPOSE_SSL_SERVER) == 1
        else { return -1 }
        let parameters = X509_STORE_CTX_get0_param(context)
        if let host { X509_VERIFY_PARAM_set1_host(parameters, host, 0) }
        if let address { X509_VERIFY_PARAM_set1_ip_asc(parameters, address) }
        let verified = X509_verify_cert(context)
        let error = X509_STORE_CTX_get_error(context)
        ERR_clear_error()
        return verified == 1 ? Int32(X509_V_OK) : error
    }

    /// OpenSSL's text dump (`openssl x509 -text`), to read extensions by their printed form.
    static func text(_ certificate: X509Certificate) -> String {
        guard let bio = BIO_new(BIO_s_mem()) else { return "" }
        defer { BIO_free(bio) }
        X509_print_ex(bio, certificate.pointer, 0, 0)
        return String(decoding: MemoryBIO.contents(bio), as: UTF8.self)
    }

    /// Whole days and remaining seconds from notBefore to notAfter.
    static func validity(_ certificate: X509Certificate) -> (days: Int32, seconds: Int32) {
        var days: Int32 = 0
        var seconds: Int32 = 0
        ASN1_TIME_diff(&days, &seconds, X509_get0_notBefore(certificate.pointer), X509_get0_notAfter(certificate.pointer))
        return (days, seconds)
    }

    /// The serial number's size in bits.
    static func serialBits(_ certificate: X509Certificate) -> Int32 {
        guard let number = ASN1_INTEGER_to_BN(X509_get0_serialNumber(certificate.pointer), nil) else { return 0 }
        defer { BN_free(number) }
        return BN_is_negative(number) == 1 ? -1 : BN_num_bits(number)
    }
}

/// Both ends of one TLS connection over a socket pair: the server side runs SSL_accept on a thread
/// of its own with a given context, the client side runs in the test with OpenSSL as a browser would.
final class TLSHandshakePair: @unchecked Sendable {
    struct ServerOutcome {
        var accepted = false
        var request = ""
        var error = ""
    }

    struct ClientOutcome {
        var connected = false
        var alpn: String?
        var verifyResult = -1
        var version: Int32 = 0
        var response = ""
        var error = ""
    }

    private var sockets: [Int32] = [-1, -1]
    private var serverOutcome = ServerOutcome()
    private let serverFinished = DispatchSemaphore(value: 0)

    init() throws {
        #if canImport(Glibc)
        let stream = Int32(SOCK_STREAM.rawValue)
        #else
        let stream = SOCK_STREAM
        #endif
        guard socketpair(AF_UNIX, stream, 0, &sockets) == 0 else { throw POSIXError(.EIO) }
        // A bug must fail the test, not hang the suite.
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        for socket in sockets {
            setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        }
        signal(SIGPIPE, SIG_IGN)
    }

    deinit { sockets.forEach { close($0) } }

    /// Starts the server side: accept, read one request, answer it.
    func serve(with context: OpaquePointer) {
        let context = UnsafeTransfer(context)
        Thread.detachNewThread { [self] in
            serverOutcome = Self.accept(on: sockets[0], context: context.wrappedValue)
            serverFinished.signal()
        }
    }

    /// Waits for the server side (it has a read timeout, so this returns).
    func serverResult() -> ServerOutcome {
        serverFinished.wait()
        return serverOutcome
    }

    private static func accept(on socket: Int32, context: OpaquePointer) -> ServerOutcome {
        var outcome = ServerOutcome()
        guard let ssl = SSL_new(context) else { return outcome }
        defer { SSL_free(ssl) }
        SSL_set_fd(ssl, socket)
        guard SSL_accept(ssl) == 1 else {
            outcome.error = TLSContexts.lastError()
            ERR_clear_error()
            return outcome
        }
        outcome.accepted = true
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = SSL_read(ssl, &buffer, Int32(buffer.count))
        if count > 0 {
            outcome.request = String(decoding: buffer.prefix(Int(count)), as: UTF8.self)
            let answer = Array("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok".utf8)
            SSL_write(ssl, answer, Int32(answer.count))
        }
        SSL_shutdown(ssl)
        ERR_clear_error()
        return outcome
    }

    /// Connects as a TLS client that trusts `authority`, asks for `serverName` by SNI and checks
    /// the certificate names it, offers `alpn`, and on success sends one GET.
    func connect(serverName: String, trusting authority: X509Certificate, alpn: [String]) -> ClientOutcome {
        var outcome = ClientOutcome()
        guard let context = SSL_CTX_new(TLS_client_method()) else { return outcome }
        defer { SSL_CTX_free(context) }
        X509_STORE_add_cert(SSL_CTX_get_cert_store(context), authority.pointer)
        SSL_CTX_set_verify(context, SSL_VERIFY_PEER, nil)
        let protocols = alpn.flatMap { [UInt8($0.utf8.count)] + Array($0.utf8) }
        SSL_CTX_set_alpn_protos(context, protocols, UInt32(protocols.count))
        guard let ssl = SSL_new(context) else { return outcome }
        defer { SSL_free(ssl) }
        understudy_ssl_set_server_name(ssl, serverName)
        SSL_set1_host(ssl, serverName)
        SSL_set_fd(ssl, sockets[1])
        guard SSL_connect(ssl) == 1 else {
            outcome.error = TLSContexts.lastError()
            outcome.verifyResult = SSL_get_verify_result(ssl)
            ERR_clear_error()
            // Lets the server side's read end now instead of at its timeout.
            shutdown(sockets[1], Int32(SHUT_RDWR))
            return outcome
        }
        outcome.connected = true
        outcome.verifyResult = SSL_get_verify_result(ssl)
        outcome.version = SSL_version(ssl)
        var selected: UnsafePointer<UInt8>?
        var selectedLength: UInt32 = 0
        SSL_get0_alpn_selected(ssl, &selected, &selectedLength)
        if let selected { outcome.alpn = String(decoding: UnsafeBufferPointer(start: selected, count: Int(selectedLength)), as: UTF8.self) }
        let request = Array("GET / HTTP/1.1\r\nHost: \(serverName)\r\n\r\n".utf8)
        SSL_write(ssl, request, Int32(request.count))
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = SSL_read(ssl, &buffer, Int32(buffer.count))
        if count > 0 { outcome.response = String(decoding: buffer.prefix(Int(count)), as: UTF8.self) }
        SSL_shutdown(ssl)
        ERR_clear_error()
        return outcome
    }

    /// Sends `text` unencrypted, as a client that forgot TLS would.
    func sendPlain(_ text: String) {
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { write(sockets[1], $0.baseAddress, $0.count) }
    }
}
