import CLibevent

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A TLS handshake must finish within `ServerConfiguration.tlsHandshakeTimeout` of its
/// connection's start. Every byte a client
/// dribbles restarts the idle timer, so without a deadline one byte every few seconds would hold
/// the connection (and, through a tunnel, its three descriptors) for ever. Past the deadline the
/// socket is shut down, which libevent sees as the client's end, and the failure is logged.
///
/// The deadline is tied to the SSL object (OpenSSL's ex-data, whose free callback cancels it), so
/// it never acts on a socket number a later connection has reused. All of it runs on the loop
/// that accepted the connection.
final class HandshakeDeadline {
    private var ssl: OpaquePointer?
    private var timer: LoopTimer?

    /// Starts the deadline of the handshake `ssl` is about to make.
    static func start(for ssl: OpaquePointer, on loop: EventLoop) {
        let deadline = HandshakeDeadline()
        deadline.ssl = ssl
        let limit = loop.tlsHandshakeTimeout
        deadline.timer = loop.schedule(after: limit) { deadline.expire(after: limit) }
        SSL_set_ex_data(ssl, exDataIndex, Unmanaged.passRetained(deadline).toOpaque())
    }

    /// The handshake finished: nothing to do any more.
    static func finished(_ ssl: OpaquePointer) {
        guard let pointer = SSL_get_ex_data(ssl, exDataIndex) else { return }
        Unmanaged<HandshakeDeadline>.fromOpaque(pointer).takeUnretainedValue().cancel()
    }

    private func cancel() {
        ssl = nil
        timer?.cancel()
        timer = nil
    }

    private func expire(after limit: Duration) {
        timer = nil
        guard let ssl else { return }
        let socket = SSL_get_fd(ssl)
        TLSFailures.note(ssl, "the handshake did not finish within \(limit.components.seconds) s")
        self.ssl = nil
        if socket >= 0 { shutdown(socket, Int32(SHUT_RDWR)) }
    }

    /// The ex-data slot of every server-side SSL; freeing the SSL cancels and releases its deadline.
    private static let exDataIndex: Int32 = CRYPTO_get_ex_new_index(
        CRYPTO_EX_INDEX_SSL, 0, nil, nil, nil,
        { _, pointer, _, _, _, _ in
            guard let pointer else { return }
            let deadline = Unmanaged<HandshakeDeadline>.fromOpaque(pointer).takeRetainedValue()
            deadline.cancel()
        })
}
