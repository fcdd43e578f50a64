import Foundation
import HTTPServer
import JSON
import MockCore
import WireFormat

/// Reads HAR 1.2 (browser devtools, proxies): each entry's request and response become an
/// exchange for a `RecordingStore`, matched, named, redacted and made into scenarios as a live
/// recording is. An entry that cannot be one (no URL, an unknown method, no response) is
/// reported with its index and skipped.
public enum HARImport {
    public struct Problem: Error, CustomStringConvertible, Sendable {
        public var message: String
        public var description: String { message }
    }

    /// The exchanges of `data`, the WebSocket sessions (entries with `_webSocketMessages`, or a
    /// `101`), and what was skipped; a file that is not HAR at all throws.
    public static func exchanges(_ data: [UInt8]) throws(Problem) -> (
        exchanges: [RecordedExchange], channels: [RecordedChannel], skipped: [Problem]
    ) {
        let json: JSONValue
        do {
            json = try JSONValue.parse(data)
        } catch {
            throw Problem(message: "not JSON: line \(error.line), column \(error.column): \(error.message)")
        }
        guard let entries = json["log"]?["entries"]?.arrayValue else { throw Problem(message: "not a HAR file: no log.entries") }
        var exchanges: [RecordedExchange] = []
        var channels: [RecordedChannel] = []
        var skipped: [Problem] = []
        for (index, entry) in entries.enumerated() {
            if entry["_webSocketMessages"] != nil || entry["response"]?["status"]?.intValue == 101 {
                switch channel(entry) {
                case .success(let channel): channels.append(channel)
                case .failure(let problem): skipped.append(Problem(message: "log.entries[\(index)]: \(problem.message); skipped"))
                }
                continue
            }
            switch exchange(entry) {
            case .success(let exchange): exchanges.append(exchange)
            case .failure(let problem): skipped.append(Problem(message: "log.entries[\(index)]: \(problem.message); skipped"))
            }
        }
        return (exchanges, channels, skipped)
    }

    /// Chrome's WebSocket entry: `_webSocketMessages` of `{"type": "send"|"receive", "time", "opcode", "data"}`
    /// (opcode 2: the data is base64).
    private static func channel(_ entry: JSONValue) -> Result<RecordedChannel, Problem> {
        guard let url = entry["request"]?["url"]?.stringValue, let components = URLComponents(string: url) else {
            return .failure(Problem(message: "request.url is missing or not a URL"))
        }
        var messages: [RecordedChannel.Message] = []
        for (index, message) in (entry["_webSocketMessages"]?.arrayValue ?? []).enumerated() {
            guard let type = message["type"]?.stringValue, type == "send" || type == "receive", let data = message["data"]?.stringValue,
                let seconds = message["time"]?.doubleValue
            else {
                return .failure(Problem(message: "_webSocketMessages[\(index)] is not a message (type, time, data)"))
            }
            // Control frames (opcodes 8–10) are the connection's, not the app's.
            let opcode = message["opcode"]?.intValue ?? 1
            guard opcode == 1 || opcode == 2 else { continue }
            var bytes = Array(data.utf8)
            if opcode == 2 {
                guard let decoded = Base64.decode(data.utf8) else {
                    return .failure(Problem(message: "_webSocketMessages[\(index)].data is not base64"))
                }
                bytes = decoded
            }
            messages.append(RecordedChannel.Message(fromClient: type == "send", seconds: seconds, bytes: bytes, isBinary: opcode == 2))
        }
        let opened = entry["startedDateTime"]?.stringValue.flatMap { ISO8601DateFormatter.withFractions.date(from: $0) }?.timeIntervalSince1970
        let path = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
        return .success(RecordedChannel(path: path, openedAt: opened, messages: messages))
    }

    private static func exchange(_ entry: JSONValue) -> Result<RecordedExchange, Problem> {
        guard let request = entry["request"], let response = entry["response"] else { return .failure(Problem(message: "no request or response")) }
        guard let method = request["method"]?.stringValue, HTTPMethod(rawValue: method.uppercased()) != nil else {
            return .failure(Problem(message: "method \(request["method"]?.stringValue ?? "missing") is not supported"))
        }
        guard let url = request["url"]?.stringValue, let components = URLComponents(string: url), let scheme = components.scheme,
            let host = components.host
        else {
            return .failure(Problem(message: "request.url is missing or not an absolute URL"))
        }
        guard let status = response["status"]?.intValue, status > 0 else {
            return .failure(Problem(message: "the request got no response (status 0)"))
        }
        let path = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
        let query = components.percentEncodedQuery.map(FormURLEncoding.decode) ?? []
        var requestBody: [UInt8] = []
        if let text = request["postData"]?["text"]?.stringValue { requestBody = Array(text.utf8) }
        var responseBody: [UInt8] = []
        if let content = response["content"], let text = content["text"]?.stringValue {
            if content["encoding"]?.stringValue == "base64" {
                guard let decoded = Data(base64Encoded: text) else { return .failure(Problem(message: "response.content.text is not base64")) }
                responseBody = Array(decoded)
            } else {
                responseBody = Array(text.utf8)
            }
        }
        // HAR keeps bodies decoded ("HTTP decoded text"); the framing headers no longer apply.
        var responseHeaders = headers(response["headers"])
        responseHeaders.remove("Content-Encoding")
        responseHeaders.remove("Content-Length")
        let port = components.port.map { ":\($0)" } ?? ""
        return .success(
            RecordedExchange(
                method: method.uppercased(), path: path, query: query, requestHeaders: headers(request["headers"]),
                requestBody: requestBody, status: status, responseHeaders: responseHeaders,
                responseBody: responseBody, source: "\(scheme)://\(host)\(port)"))
    }

    /// HAR headers (`[{"name", "value"}]`); HTTP/2 pseudo-headers (`:authority`) are left out.
    private static func headers(_ list: JSONValue?) -> HTTPHeaders {
        HTTPHeaders(
            (list?.arrayValue ?? []).compactMap { header in
                guard let name = header["name"]?.stringValue, !name.hasPrefix(":"), let value = header["value"]?.stringValue else { return nil }
                return HTTPHeader(name: name, value: value)
            })
    }
}

extension ISO8601DateFormatter {
    /// HAR's `startedDateTime`: ISO 8601 with fractional seconds.
    fileprivate static var withFractions: ISO8601DateFormatter {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter
    }
}
