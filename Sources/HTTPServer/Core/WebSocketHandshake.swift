import CLibevent
import WireFormat

/// The opening handshake of RFC 6455 (4.2), server side: whether a request asks to upgrade, and
/// the `101 Switching Protocols` that accepts it.
public struct WebSocketHandshake: Sendable {
    /// `Sec-WebSocket-Accept`: the key's SHA-1 with the RFC's GUID, in base64.
    public let accept: String
    /// permessage-deflate, when the client offered it in a form this server takes.
    public let deflate: WebSocketDeflate?
    /// The subprotocols the client offered (`Sec-WebSocket-Protocol`), in its order of preference.
    public let offeredProtocols: [String]
    /// The one this server speaks, named in the `101`; nil: none is named.
    public var selectedProtocol: String?

    /// Whether `request` asks for a WebSocket (`Upgrade: websocket`); whether the rest of the
    /// handshake is right is `read`'s to say.
    public static func isUpgrade(_ request: Request) -> Bool {
        guard let upgrade = request.headers["Upgrade"] else { return false }
        return hasToken("websocket", in: upgrade)
    }

    /// The handshake of an upgrade request, or the answer that refuses it: `400` naming what is
    /// wrong, `426` with the version this server speaks for another version.
    public static func read(_ request: Request) -> Result<WebSocketHandshake, WebSocketRefusal> {
        guard request.method == .get else { return .failure(WebSocketRefusal(400, "a WebSocket opens with GET, not \(request.method.rawValue)")) }
        guard hasToken("upgrade", in: request.headers.values(for: "Connection").joined(separator: ",")) else {
            return .failure(WebSocketRefusal(400, "the upgrade request has no 'Connection: Upgrade'"))
        }
        guard request.headers.values(for: "Sec-WebSocket-Version").contains(where: { $0.trimmingSpaces == "13" }) else {
            return .failure(WebSocketRefusal(426, "this server speaks WebSocket version 13 (Sec-WebSocket-Version)"))
        }
        guard let key = request.headers["Sec-WebSocket-Key"]?.trimmingSpaces, Base64.decode(key.utf8)?.count == 16 else {
            return .failure(WebSocketRefusal(400, "Sec-WebSocket-Key is not 16 bytes in base64"))
        }
        let extensions = request.headers.values(for: "Sec-WebSocket-Extensions")
        return .success(
            WebSocketHandshake(
                accept: acceptValue(for: key), deflate: WebSocketDeflate.negotiate(extensions.isEmpty ? nil : extensions.joined(separator: ",")),
                offeredProtocols: offeredProtocols(request)))
    }

    /// The `101` that switches the connection, as bytes to write on its socket.
    public var response: [UInt8] {
        var lines = "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: \(accept)\r\n"
        if let deflate { lines += "Sec-WebSocket-Extensions: \(deflate.responseHeader)\r\n" }
        if let selectedProtocol { lines += "Sec-WebSocket-Protocol: \(selectedProtocol)\r\n" }
        return Array((lines + "\r\n").utf8)
    }

    /// The subprotocols `request` offers: `Sec-WebSocket-Protocol`'s comma-separated tokens.
    public static func offeredProtocols(_ request: Request) -> [String] {
        request.headers.values(for: "Sec-WebSocket-Protocol").flatMap { $0.split(separator: ",") }.map { String($0).trimmingSpaces }
            .filter { !$0.isEmpty && $0.utf8.allSatisfy { (0x21...0x7E).contains($0) && $0 != UInt8(ascii: ",") } }
    }

    public static func acceptValue(for key: String) -> String {
        var input = Array((key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11").utf8)
        var digest = [UInt8](repeating: 0, count: 20)
        var length: UInt32 = 0
        _ = EVP_Digest(&input, input.count, &digest, &length, EVP_sha1(), nil)
        return Base64.encode(digest.prefix(Int(length)))
    }

    /// Whether the comma-separated `list` holds `token`, in any case.
    private static func hasToken(_ token: String, in list: String) -> Bool {
        list.split(separator: ",").contains { String($0).trimmingSpaces.lowercased() == token }
    }
}

/// A WebSocket upgrade refused, with its status and why.
public struct WebSocketRefusal: Error, Sendable {
    public let status: Int
    public let reason: String

    public init(_ status: Int, _ reason: String) {
        self.status = status
        self.reason = reason
    }

    public var response: Response {
        var response = Response.text(reason + "\n", status: status)
        if status == 426 { response.headers.set("Sec-WebSocket-Version", "13") }
        return response
    }
}
