import CLibevent

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Says, on standard error, why a TLS handshake with a client failed — it sent something that is
/// not TLS, or refused the certificate (unknown CA, wrong name) — with the host it asked for and
/// who it was. A client can fail handshakes as fast as it likes, so the lines are throttled, and
/// the host name it sent is escaped: it is the client's to choose.
enum TLSFailures {
    private static let throttle = LogThrottle { count, seconds in "understudy: \(count) more TLS handshake(s) failed in the last \(seconds) s" }

    /// Watches `ssl`'s handshake (set on every accepted TLS connection).
    static func watch(_ ssl: OpaquePointer) {
        SSL_set_info_callback(ssl, onTLSInfo)
    }

    static func note(_ ssl: OpaquePointer, _ reason: String) {
        let host = SSL_get_servername(ssl, TLSEXT_NAMETYPE_host_name).map { String(cString: $0) }
        var client = SocketAddress.peer(of: SSL_get_fd(ssl)).map(\.description) ?? "a client"
        if let peer = SocketAddress.peer(of: SSL_get_fd(ssl)), peer.host == "127.0.0.1", let origin = TunnelRegistry.origin(ofRelayPort: peer.port) {
            client = "\(origin.clientAddress):\(origin.clientPort) (through a tunnel to \(LogText.escaped(origin.host)))"
        }
        let lines = throttle.lines {
            "understudy: TLS handshake with \(client) for \(host.map { LogText.escaped($0) } ?? "no host name") failed: \(reason)"
        }
        for line in lines { writeToStandardError(line) }
    }
}

private let acceptExit = Int32(SSL_ST_ACCEPT | SSL_CB_EXIT)

/// At the end of a failed handshake: OpenSSL's reason ("wrong version number", "http request",
/// "tlsv1 alert unknown ca" when the client refused the certificate).
private func onTLSInfo(_ ssl: OpaquePointer?, _ kind: Int32, _ value: Int32) {
    guard let ssl else { return }
    if kind & SSL_CB_HANDSHAKE_DONE != 0 { HandshakeDeadline.finished(ssl) }
    guard kind & acceptExit == acceptExit, value <= 0 else { return }
    let error = SSL_get_error(ssl, value)
    guard error != SSL_ERROR_WANT_READ && error != SSL_ERROR_WANT_WRITE else { return }
    let code = ERR_peek_last_error()
    let reason = code == 0 ? nil : ERR_reason_error_string(code).map { String(cString: $0) }
    switch reason {
    case let reason? where reason.contains("alert"): TLSFailures.note(ssl, "the client refused the certificate (\(reason))")
    case let reason?: TLSFailures.note(ssl, "\(reason) (not a TLS client, or one that cannot talk to this server)")
    case nil: TLSFailures.note(ssl, "the connection ended during the handshake")
    }
}
