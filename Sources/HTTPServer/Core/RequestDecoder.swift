import CLibevent

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Turns libevent's requests into `Request` values, on one loop's thread. Clients send the same
/// header names, mostly the same header values and come from the same address request after
/// request, so it reuses the Swift strings it made last time when the C bytes are equal: a
/// `strcmp` costs a fraction of making and validating a new String.
struct RequestDecoder {
    let localPort: Int
    /// The listener speaks TLS: its requests are `https`, and those a tunnel relays in carry the
    /// tunnel's client and host.
    let isSecure: Bool
    /// Per common header name, the last value seen (C bytes and the String made of them).
    private var recentValues: [(cValue: [CChar], value: String)?]
    private var recentAddress: (cValue: [CChar], value: String)?

    /// The tables below, held by each decoder: a static read on every request pays a
    /// `swift_once` check each time.
    private let commonNames = Self.commonNameTable
    private let lengthStarts = Self.lengthStartTable
    private let unremembered = Self.unrememberedIndex

    /// Names requests carry most often, as static strings, shortest first; `lengthStarts[n]` is
    /// where names of n bytes start (a name is compared with those of its length only).
    private static let commonNameTable: [(cName: [CChar], name: String)] = [
        "Host", "User-Agent", "Accept", "Accept-Encoding", "Accept-Language", "Connection", "Content-Type",
        "Content-Length", "Cookie", "Authorization", "Cache-Control", "Origin", "Referer", "X-Requested-With",
        HTTPHeaders.scopeHeader,
    ].sorted { $0.utf8.count < $1.utf8.count }.map { (Array($0.utf8CString), $0) }
    private static let lengthStartTable: [Int] = (0...(commonNameTable.last?.name.utf8.count ?? 0) + 1).map { length in
        commonNameTable.firstIndex { $0.name.utf8.count >= length } ?? commonNameTable.count
    }
    /// Values that differ from request to request (a scope per CI worker): not worth remembering.
    private static let unrememberedIndex = commonNameTable.firstIndex { $0.name == HTTPHeaders.scopeHeader }

    init(localPort: Int, isSecure: Bool = false) {
        self.localPort = localPort
        self.isSecure = isSecure
        recentValues = Array(repeating: nil, count: Self.commonNameTable.count)
    }

    mutating func decode(_ request: OpaquePointer) -> Request {
        let method = HTTPMethod(evhttp_request_get_command(request)) ?? .get
        let target = evhttp_request_get_uri(request).map { String(cString: $0) } ?? "/"

        var address: UnsafeMutablePointer<CChar>?
        var port: UInt16 = 0
        if let connection = evhttp_request_get_connection(request) {
            evhttp_connection_get_peer(connection, &address, &port)
        }
        let remoteAddress = address.map { Self.reuse(&recentAddress, $0) } ?? ""

        guard isSecure else {
            let decoded = Request(
                method: method, target: target, headers: headers(evhttp_request_get_input_headers(request)),
                body: [UInt8](evbuffer: evhttp_request_get_input_buffer(request)),
                remoteAddress: remoteAddress, remotePort: Int(port), localPort: localPort,
                receivedAtNanos: MonotonicClock.nanoseconds())
            if target.utf8.first != UInt8(ascii: "/") && method != .connect { Self.keepProxiedConnection(request) }
            return TunnelRegistry.plainRelays.load(ordering: .relaxed) > 0 ? Self.relayed(decoded) : decoded
        }
        return secured(
            Request(
                method: method, target: target, headers: headers(evhttp_request_get_input_headers(request)),
                body: [UInt8](evbuffer: evhttp_request_get_input_buffer(request)),
                remoteAddress: remoteAddress, remotePort: Int(port), localPort: localPort,
                receivedAtNanos: MonotonicClock.nanoseconds()))
    }

    /// libevent closes the connection of every proxied request (absolute-form target) unless both
    /// the request and the answer say `Proxy-Connection: keep-alive`, a header of HTTP/1.0
    /// proxies that most clients no longer send: every plain HTTP request of a device through
    /// the proxy paid a new connection. An HTTP/1.1 connection is persistent unless a side says
    /// close (RFC 9112 §9.3), so a request that says neither `Proxy-Connection` nor
    /// `Connection: close` gets the header in libevent's copy (not in the Request the backends
    /// and the journal see), and the answer carries it too. `Responder` takes it off the answer
    /// when the server is draining.
    private static func keepProxiedConnection(_ request: OpaquePointer) {
        guard let input = evhttp_request_get_input_headers(request),
            let output = evhttp_request_get_output_headers(request)
        else { return }
        if evhttp_find_header(input, "Proxy-Connection") == nil {
            if let connection = evhttp_find_header(input, "Connection"), strcasecmp(connection, "close") == 0 { return }
            evhttp_add_header(input, "Proxy-Connection", "keep-alive")
        }
        if let asked = evhttp_find_header(input, "Proxy-Connection"), strcasecmp(asked, "keep-alive") == 0 {
            evhttp_add_header(output, "Proxy-Connection", "keep-alive")
        }
    }

    /// A request of a TLS listener: `https`, and one a tunnel relayed in gets its client and host.
    private func secured(_ request: consuming Request) -> Request {
        request.isSecure = true
        return Self.relayed(request)
    }

    /// A request a tunnel relayed in (from loopback, on a relay's port) gets the tunnel's client,
    /// host and scope.
    private static func relayed(_ request: consuming Request) -> Request {
        if request.remoteAddress == "127.0.0.1", let origin = TunnelRegistry.origin(ofRelayPort: request.remotePort) {
            request.remoteAddress = origin.clientAddress
            request.remotePort = origin.clientPort
            request.tunnelHost = origin.host
            request.tunnelScope = origin.scope
        }
        return request
    }

    /// Why the request's framing is ambiguous, where libevent lets it through (RFC 9112): a space
    /// before a field's colon (libevent keeps "Transfer-Encoding " as another name and reads the
    /// chunked body as the next request), or Content-Length fields that disagree (it takes the
    /// first). Such a request gets 400 and its connection is closed. nil when the framing is sound.
    static func framingProblem(_ request: OpaquePointer) -> String? {
        let list = evhttp_request_get_input_headers(request)
        var contentLength: UnsafeMutablePointer<CChar>?
        var field = understudy_headers_first(list)
        while let current = field {
            field = understudy_headers_next(current)
            guard let key = current.pointee.key else { continue }
            if strpbrk(key, " \t") != nil {
                return "whitespace between the header field name '\(String(cString: key))' and its colon"
            }
            guard strcasecmp(key, "Content-Length") == 0, let value = current.pointee.value else { continue }
            if let first = contentLength, strcmp(first, value) != 0 {
                return "Content-Length given twice with different values ('\(String(cString: first))' and '\(String(cString: value))')"
            }
            contentLength = value
        }
        return nil
    }

    private mutating func headers(_ list: UnsafeMutablePointer<evkeyvalq>?) -> HTTPHeaders {
        var count = 0
        var cursor = understudy_headers_first(list)
        while let current = cursor {
            count += 1
            cursor = understudy_headers_next(current)
        }
        // reserveCapacity, not init(unsafeUninitializedCapacity:): the latter calls the standard
        // library's unspecialised allocator, which looks up the storage's type metadata each time.
        var fields: [HTTPHeader] = []
        fields.reserveCapacity(count)
        var field = understudy_headers_first(list)
        while let current = field {
            field = understudy_headers_next(current)
            guard let key = current.pointee.key, let value = current.pointee.value else { continue }
            if let common = commonName(key) {
                let name = commonNames[common].name
                fields.append(
                    HTTPHeader(name: name, value: common == unremembered ? String(cString: value) : Self.reuse(&recentValues[common], value)))
            } else {
                fields.append(HTTPHeader(name: String(cString: key), value: String(cString: value)))
            }
        }
        return HTTPHeaders(fields)
    }

    /// The index of `key` among `commonNames`.
    private func commonName(_ key: UnsafePointer<CChar>) -> Int? {
        let length = strlen(key)
        guard length + 1 < lengthStarts.count else { return nil }
        for index in lengthStarts[length]..<lengthStarts[length + 1] where memcmp(key, commonNames[index].cName, length) == 0 {
            return index
        }
        return nil
    }

    /// The String for `bytes`: the remembered one when the bytes are the same as last time.
    private static func reuse(_ slot: inout (cValue: [CChar], value: String)?, _ bytes: UnsafePointer<CChar>) -> String {
        if let slot, strcmp(slot.cValue, bytes) == 0 { return slot.value }
        let value = String(cString: bytes)
        slot = (Array(UnsafeBufferPointer(start: bytes, count: strlen(bytes) + 1)), value)
        return value
    }
}
