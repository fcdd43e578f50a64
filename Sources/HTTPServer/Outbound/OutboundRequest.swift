import CLibevent

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A request to another server, sent from an event loop without blocking it (for proxying).
public struct OutboundRequest: Sendable {
    public var method: HTTPMethod
    /// Absolute `http://` or `https://` URL.
    public var url: String
    public var headers: HTTPHeaders
    public var body: [UInt8]
    /// Connect, read and write inactivity limit.
    public var timeout: Duration
    /// How `https://` servers are checked.
    public var tls = TLSClientSettings()
    /// Response bodies past this many bytes go, as they arrive, to an unlinked file in
    /// `spillDirectory` (the response's body is then a `FileBody`); nil holds every body in memory.
    public var largeBodyThreshold: Int?
    public var spillDirectory = OutboundRequest.temporaryDirectory
    /// Told (on the loop or the writer's queue) why a large body is held in memory after all:
    /// its file could not be made or written (a full or unwritable `spillDirectory`).
    public var onSpillFailure: (@Sendable (String) -> Void)?
    /// Bytes a spill file may take before a write fails as on a full disk (tests).
    var spillCapacity: Int?
    /// An answer whose body is larger fails as a broken connection (nil: no limit).
    public var maxResponseBytes: Int?
    /// The numeric address to connect to instead of resolving the URL's host, which still names
    /// the `Host` header and TLS (SNI, the certificate's name): a caller that judged where a
    /// request may go by the address its host resolves to connects to that very address, with no
    /// second resolution in between that could answer otherwise.
    public var connectAddress: String?

    /// `$TMPDIR`, else `/tmp`.
    public static let temporaryDirectory = getenv("TMPDIR").map { String(cString: $0) } ?? "/tmp"

    public init(
        method: HTTPMethod = .get, url: String, headers: HTTPHeaders = [:], body: [UInt8] = [],
        timeout: Duration = .seconds(30)
    ) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeout = timeout
    }
}

extension EventLoop {
    /// Sends `request` from this loop, on a kept-alive connection to its server when one is idle;
    /// `completion` runs on this loop with the answer. Call on the loop thread. The call returned
    /// can stop the request before its answer.
    @discardableResult
    public func send(_ request: OutboundRequest, completion: @escaping (Result<Response, OutboundError>) -> Void) -> OutboundCall {
        assertOnLoopThread()
        let call = OutboundCall()
        send(request, reusing: true, call: call, completion: completion)
        return call
    }

    fileprivate func send(
        _ request: OutboundRequest, reusing: Bool, call: OutboundCall, completion: @escaping (Result<Response, OutboundError>) -> Void
    ) {
        guard !call.isCancelled else { return completion(.failure(.timedOut(request.url))) }
        guard let uri = evhttp_uri_parse(request.url) else {
            return completion(.failure(.invalidURL(request.url)))
        }
        defer { evhttp_uri_free(uri) }
        guard let scheme = evhttp_uri_get_scheme(uri).map({ String(cString: $0) }),
            let hostPointer = evhttp_uri_get_host(uri)
        else {
            return completion(.failure(.invalidURL(request.url)))
        }
        let secure = scheme.lowercased() == "https"
        guard secure || scheme.lowercased() == "http" else { return completion(.failure(.unsupportedScheme(request.url))) }
        let host = String(cString: hostPointer)
        let explicitPort = evhttp_uri_get_port(uri)
        let server = OutboundConnection.Server(
            secure: secure, host: host, address: request.connectAddress, port: explicitPort > 0 ? explicitPort : (secure ? 443 : 80),
            tls: secure ? request.tls : TLSClientSettings())
        var target = evhttp_uri_get_path(uri).map { String(cString: $0) } ?? ""
        if target.isEmpty { target = "/" }
        if let query = evhttp_uri_get_query(uri) { target += "?" + String(cString: query) }

        let reused = reusing ? outboundPool.take(server) : nil
        let connection: OutboundConnection
        if let reused {
            connection = reused
        } else {
            switch makeConnection(server) {
            case .failure(.tlsFailed(_, let reason)): return completion(.failure(.tlsFailed(request.url, reason)))
            case .failure: return completion(.failure(.connectionFailed(request.url)))
            case .success(let made): connection = made
            }
        }
        var timeout = timeval(request.timeout)
        evhttp_connection_set_timeout_tv(connection.evcon, &timeout)
        // Set on every request: a kept connection carries the last one's limit.
        evhttp_connection_set_max_body_size(connection.evcon, request.maxResponseBytes ?? -1)

        let exchange = OutboundExchange(
            request: request, connection: connection, reused: reused != nil, loop: self, call: call, completion: completion)
        let context = Unmanaged.passRetained(exchange).toOpaque()
        guard let evRequest = evhttp_request_new(onOutboundResponse, context) else {
            Unmanaged<OutboundExchange>.fromOpaque(context).release()
            outboundPool.finished(connection, reusable: false, loop: self)
            return completion(.failure(.connectionFailed(request.url)))
        }
        evhttp_request_set_error_cb(evRequest, onOutboundError)
        if request.largeBodyThreshold != nil { evhttp_request_set_chunked_cb(evRequest, onOutboundBodyPiece) }
        let headers = evhttp_request_get_output_headers(evRequest)
        if !request.headers.contains("Host") {
            let authority = explicitPort > 0 ? "\(host):\(explicitPort)" : host
            evhttp_add_header(headers, "Host", authority)
        }
        for field in request.headers.fields where !HTTPHeaders.namesEqual(field.name, "Content-Length") {
            _ = field.name.withCString { name in field.value.withCString { evhttp_add_header(headers, name, $0) } }
        }
        if !request.body.isEmpty || [.post, .put, .patch].contains(request.method) {
            String(request.body.count).withCString { _ = evhttp_add_header(headers, "Content-Length", $0) }
            request.body.withUnsafeBytes {
                _ = evbuffer_add(evhttp_request_get_output_buffer(evRequest), $0.baseAddress, $0.count)
            }
        }
        if evhttp_make_request(connection.evcon, evRequest, request.method.command, target) != 0 {
            // libevent has freed the request; the completion callback will not run.
            Unmanaged<OutboundExchange>.fromOpaque(context).release()
            outboundPool.finished(connection, reusable: false, loop: self)
            return completion(.failure(.connectionFailed(request.url)))
        }
        exchange.pending = evRequest
        call.exchange = exchange
    }

    /// A new client connection to `server` (not yet connected: the first request connects it).
    private func makeConnection(_ server: OutboundConnection.Server) -> Result<OutboundConnection, OutboundError> {
        var tlsEvents: OpaquePointer?
        let evcon: OpaquePointer?
        if server.secure {
            switch tlsConnection(host: server.host, settings: server.tls) {
            case .failure(let error): return .failure(error)
            case .success(let events):
                tlsEvents = events
                evcon = evhttp_connection_base_bufferevent_new(base, dns, events, server.address ?? server.host, UInt16(server.port))
            }
        } else {
            evcon = evhttp_connection_base_new(base, dns, server.address ?? server.host, UInt16(server.port))
        }
        guard let evcon else { return .failure(.connectionFailed("")) }
        evhttp_connection_set_retries(evcon, 0)
        return .success(OutboundConnection(server: server, evcon: evcon, tlsEvents: tlsEvents))
    }
}

extension EventLoop {
    /// An OpenSSL bufferevent that connects to `host`, sends its name (SNI) and, when verifying,
    /// checks that the certificate is for it.
    func tlsConnection(host: String, settings: TLSClientSettings) -> Result<OpaquePointer, OutboundError> {
        let context: OpaquePointer
        switch TLSContexts.client(settings) {
        case .failure(let error): return .failure(error)
        case .success(let made): context = made
        }
        guard let ssl = SSL_new(context) else { return .failure(.tlsFailed("", TLSContexts.lastError())) }
        // An address is checked against the certificate's IP entries and sent no SNI (RFC 6066
        // allows names only); a name is checked against its DNS names.
        if let address = SocketAddress.ipLiteral(host) {
            if settings.verifyCertificates { X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), address) }
        } else {
            _ = understudy_ssl_set_server_name(ssl, host)
            if settings.verifyCertificates { SSL_set1_host(ssl, host) }
        }
        let options = Int32(BEV_OPT_CLOSE_ON_FREE.rawValue | BEV_OPT_DEFER_CALLBACKS.rawValue)
        guard let events = bufferevent_openssl_socket_new(base, -1, ssl, BUFFEREVENT_SSL_CONNECTING, options) else {
            SSL_free(ssl)
            return .failure(.tlsFailed("", "cannot make a TLS connection"))
        }
        bufferevent_openssl_set_allow_dirty_shutdown(events, 1)
        return .success(events)
    }
}

/// An outbound request on its way, which its sender may stop: a deadline of the sender's own (the
/// request's `timeout` is one of inactivity) or the sender's reason gone. Loop thread only.
public final class OutboundCall {
    fileprivate weak var exchange: OutboundExchange?
    fileprivate private(set) var isCancelled = false

    fileprivate init() {}

    /// Closes the request's connection unless its answer has come; its completion then runs (now)
    /// with `timedOut`. Call on the loop thread that sent it.
    public func cancel() {
        guard !isCancelled else { return }
        isCancelled = true
        exchange?.cancel()
    }
}

@available(*, unavailable)
extension OutboundCall: Sendable {}

/// The state of one outbound request between libevent's error and completion callbacks.
private final class OutboundExchange {
    var request: OutboundRequest
    let connection: OutboundConnection
    /// The connection had served a request before: it may have been closed by the server just
    /// as this one was sent.
    let reused: Bool
    let loop: EventLoop
    let call: OutboundCall
    let completion: (Result<Response, OutboundError>) -> Void
    /// libevent's request while it is on the connection (nil once it has finished or was cancelled).
    var pending: OpaquePointer?
    var error: evhttp_request_error?
    /// With a large-body threshold, the body so far (libevent empties its own buffer after each
    /// piece), then the file it goes to once it passes the threshold.
    private var held: OpaquePointer?
    private var spilled: SpilledBody?

    init(
        request: OutboundRequest, connection: OutboundConnection, reused: Bool, loop: EventLoop, call: OutboundCall,
        completion: @escaping (Result<Response, OutboundError>) -> Void
    ) {
        self.request = request
        self.connection = connection
        self.reused = reused
        self.loop = loop
        self.call = call
        self.completion = completion
    }

    /// Stops the request: libevent resets its connection and runs only the error callback, so the
    /// retain its callbacks held is given back here. A body being spilled finishes on its own.
    func cancel() {
        guard let evRequest = pending else { return }
        pending = nil
        evhttp_cancel_request(evRequest)
        loop.outboundPool.finished(connection, reusable: false, loop: loop)
        completion(.failure(.timedOut(request.url)))
        Unmanaged.passUnretained(self).release()
    }

    deinit { if let held { evbuffer_free(held) } }

    /// How much of a spilled body gathers before it goes to the writer: one hand-over per
    /// quarter megabyte, not per read.
    private static let spillBatch = 256 * 1024

    /// A piece of the body arrived (only with a large-body threshold).
    func receive(_ evRequest: OpaquePointer) {
        guard let input = evhttp_request_get_input_buffer(evRequest) else { return }
        if held == nil { held = evbuffer_new() }
        guard let held else { return }
        evbuffer_add_buffer(held, input)
        let length = evbuffer_get_length(held)
        if let spilled {
            if length >= Self.spillBatch { spilled.append(movingFrom: held) }
            return
        }
        guard let threshold = request.largeBodyThreshold, length > threshold else { return }
        if let file = SpilledBody(directory: request.spillDirectory, capacity: request.spillCapacity) {
            spilled = file
            file.append(movingFrom: held)
        } else {
            // No file can be made: the body stays in memory, as without a threshold.
            request.largeBodyThreshold = nil
            request.onSpillFailure?("no temporary file can be made in \(request.spillDirectory)")
        }
    }

    /// Why the TLS handshake failed, if it did.
    private var tlsFailure: String? {
        guard let tlsEvents = connection.tlsEvents else { return nil }
        if let ssl = bufferevent_openssl_get_ssl(tlsEvents) {
            let verification = SSL_get_verify_result(ssl)
            if verification != X509_V_OK { return String(cString: X509_verify_cert_error_string(verification)) }
        }
        let code = bufferevent_get_openssl_error(tlsEvents)
        return code == 0 ? nil : TLSContexts.lastError(code)
    }

    func finish(_ evRequest: OpaquePointer?) {
        pending = nil
        guard let evRequest, evhttp_request_get_response_code(evRequest) != 0 else {
            let failure: OutboundError =
                if let reason = tlsFailure { .tlsFailed(request.url, reason) } else if error == EVREQ_HTTP_TIMEOUT { .timedOut(request.url) } else {
                    .connectionFailed(request.url)
                }
            loop.outboundPool.finished(connection, reusable: false, loop: loop)
            // A kept-alive connection the server closed as the request went: once more on a new
            // one, as browsers do, when sending it twice cannot do harm.
            if case .connectionFailed = failure, reused, [.get, .head, .put, .delete, .options, .trace].contains(request.method) {
                return loop.send(request, reusing: false, call: call, completion: completion)
            }
            return completion(.failure(failure))
        }
        var response = Response(
            status: Int(evhttp_request_get_response_code(evRequest)),
            reason: evhttp_request_get_response_code_line(evRequest).map { String(cString: $0) },
            headers: HTTPHeaders(libevent: evhttp_request_get_input_headers(evRequest)))
        loop.outboundPool.finished(connection, reusable: true, loop: loop)
        guard let spilled else {
            response.body = ResponseBody([UInt8](evbuffer: held ?? evhttp_request_get_input_buffer(evRequest)))
            return completion(.success(response))
        }
        // The answer is complete once the last piece is on disk. The exchange goes to the spill
        // queue and back unretained, so only the loop ever holds (and frees) it.
        if let held { spilled.append(movingFrom: held) }
        let pending = UnsafeTransfer(Unmanaged.passRetained(self))
        let loop = self.loop
        let url = request.url
        let head = response
        let onSpillFailure = request.onSpillFailure
        let directory = request.spillDirectory
        spilled.finish { stored in
            if case .success(.memory(_, let reason)) = stored { onSpillFailure?("writing to \(directory) failed: \(reason)") }
            loop.execute {
                let exchange = pending.wrappedValue.takeRetainedValue()
                switch stored {
                case .success(.file(let file)):
                    var answer = head
                    answer.body = ResponseBody(file: file)
                    exchange.completion(.success(answer))
                case .success(.memory(let bytes, _)):
                    var answer = head
                    answer.body = ResponseBody(bytes)
                    exchange.completion(.success(answer))
                case .failure(let reason):
                    exchange.completion(.failure(.bodyNotStored(url, reason.description)))
                }
            }
        }
    }
}

private func onOutboundResponse(_ evRequest: OpaquePointer?, _ arg: UnsafeMutableRawPointer?) {
    guard let arg else { return }
    Unmanaged<OutboundExchange>.fromOpaque(arg).takeRetainedValue().finish(evRequest)
}

private func onOutboundBodyPiece(_ evRequest: OpaquePointer?, _ arg: UnsafeMutableRawPointer?) {
    guard let evRequest, let arg else { return }
    Unmanaged<OutboundExchange>.fromOpaque(arg).takeUnretainedValue().receive(evRequest)
}

private func onOutboundError(_ error: evhttp_request_error, _ arg: UnsafeMutableRawPointer?) {
    guard let arg else { return }
    Unmanaged<OutboundExchange>.fromOpaque(arg).takeUnretainedValue().error = error
}
