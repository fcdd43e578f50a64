import Foundation
import HTTPServer

/// A blocking WebSocket client for tests where Foundation has none (URLSessionWebSocketTask needs
/// a libcurl built with WebSockets on Linux): the handshake over a raw connection, masked frames
/// out, frames in read with the server's own reader (unmasked, as a client reads).
public final class TestWebSocket {
    private let connection: RawHTTPConnection
    private var reader = WebSocketFrameReader(masked: false, maxMessageBytes: 1 << 24)
    private var events: [WebSocketEvent] = []

    /// Opens `url` (`ws://host:port/path?query`), with `headers` on the upgrade; throws unless 101.
    public init(_ url: URL, headers: [String: String] = [:]) throws {
        guard let host = url.host, let port = url.port else { throw RawHTTPConnection.Failure.connect("\(url) names no host and port") }
        connection = try RawHTTPConnection(host: host, port: port)
        var target = url.path.isEmpty ? "/" : url.path
        if let query = url.query { target += "?" + query }
        var request =
            "GET \(target) HTTP/1.1\r\nHost: \(host):\(port)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
        for (name, value) in headers { request += "\(name): \(value)\r\n" }
        try connection.send(request + "\r\n")
        let answer = try connection.readResponse(expectBody: false)
        guard answer.status == 101 else { throw RawHTTPConnection.Failure.malformed("the upgrade got \(answer.statusLine): \(answer.bodyText)") }
    }

    public func send(text: String) throws {
        try connection.send(WebSocketFrameWriter.frame(.text, Array(text.utf8), maskKey: [0x12, 0x34, 0x56, 0x78]))
    }

    /// The next message or close the server sends (its pongs skipped); throws at the read timeout.
    public func receive() throws -> WebSocketEvent {
        while true {
            if let index = events.firstIndex(where: { if case .pong = $0 { false } else { true } }) {
                let event = events[index]
                events.removeFirst(index + 1)
                return event
            }
            events += try reader.read(try connection.receiveBytes())
        }
    }

    /// The next text message; throws when something else comes.
    public func receiveText() throws -> String {
        let event = try receive()
        guard case .text(let text) = event else { throw RawHTTPConnection.Failure.malformed("expected a text message, got \(event)") }
        return text
    }
}
