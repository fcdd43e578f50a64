import CLibevent

/// An answer whose body goes out piece by piece for as long as it lasts (a Server-Sent Events
/// stream), with chunked encoding, on plain and TLS connections alike. Loop-only. When the client
/// goes, evhttp frees the connection: the stream hears it first (`onGone`) and writes nothing more.
public final class ResponseStream {
    public let loop: EventLoop
    private var request: OpaquePointer?
    /// Bytes waiting for the client past which it is taken to be gone (it does not read).
    private let maxUnsentBytes: Int
    private var retained: Unmanaged<ResponseStream>?
    /// The client left (or read too slowly): called once.
    public var onGone: (() -> Void)?

    init(loop: EventLoop, request: OpaquePointer, maxUnsentBytes: Int) {
        self.loop = loop
        self.request = request
        self.maxUnsentBytes = maxUnsentBytes
        retained = Unmanaged.passRetained(self)
        loop.openStreams[ObjectIdentifier(self)] = self
        if let connection = evhttp_request_get_connection(request) {
            evhttp_connection_set_closecb(connection, onStreamConnectionClosed, Unmanaged.passUnretained(self).toOpaque())
        }
    }

    public var isOpen: Bool { request != nil }

    /// Sends `bytes` as one chunk; false when the stream has ended or the client reads too slowly
    /// (the stream then ends).
    @discardableResult
    public func write(_ bytes: [UInt8]) -> Bool {
        loop.assertOnLoopThread()
        guard let request, !bytes.isEmpty else { return request != nil }
        if let connection = evhttp_request_get_connection(request),
            evbuffer_get_length(bufferevent_get_output(evhttp_connection_get_bufferevent(connection))) + bytes.count > maxUnsentBytes
        {
            end()
            gone()
            return false
        }
        let buffer = evbuffer_new()
        bytes.withUnsafeBytes { _ = evbuffer_add(buffer, $0.baseAddress, $0.count) }
        evhttp_send_reply_chunk(request, buffer)
        evbuffer_free(buffer)
        return true
    }

    /// The last chunk: the answer is complete (the connection may carry the next request).
    public func end() {
        loop.assertOnLoopThread()
        guard let request else { return }
        self.request = nil
        if let connection = evhttp_request_get_connection(request) { evhttp_connection_set_closecb(connection, nil, nil) }
        evhttp_send_reply_end(request)
        forget()
    }

    /// evhttp is freeing the connection (the client closed, or the server stops): the request
    /// goes with it, and its completion is never called.
    fileprivate func connectionClosed() {
        guard request != nil else { return }
        request = nil
        loop.requestCompleted()
        forget()
        gone()
    }

    private func gone() {
        let onGone = self.onGone
        self.onGone = nil
        onGone?()
    }

    private func forget() {
        loop.openStreams[ObjectIdentifier(self)] = nil
        retained?.release()
        retained = nil
    }
}

private func onStreamConnectionClosed(_ connection: OpaquePointer?, _ arg: UnsafeMutableRawPointer?) {
    guard let arg else { return }
    Unmanaged<ResponseStream>.fromOpaque(arg).takeUnretainedValue().connectionClosed()
}
