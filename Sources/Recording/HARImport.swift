import Foundation
import HTTPServer
import JSON
import MockCore

/// Reads HAR 1.2 (browser devtools, proxies): each entry's request and response become an
/// exchange for a `RecordingStore`, matched, named, redacted and made into scenarios as a live
/// recording is. An entry that cannot be one (no URL, an unknown method, no response) is
/// reported with its index and skipped.
public enum HARImport {
    public struct Problem: Error, CustomStringConvertible, Sendable {
        public var message: String
        public var description: String { message }
    }

    /// The exchanges of `data`, and what was skipped; a file that is not HAR at all throws.
    public static func exchanges(_ data: [UInt8]) throws(Problem) -> (exchanges: [RecordedExchange], skipped: [Problem]) {
        let json: JSONValue
        do {
            json = try JSONValue.parse(data)
        } catch {
            throw Problem(message: "not JSON: line \(error.line), column \(error.column): \(error.message)")
        }
        guard let entries = json["log"]?["entries"]?.arrayValue else { throw Problem(message: "not a HAR file: no log.entries") }
        var exchanges: [RecordedExchange] = []
        var skipped: [Problem] = []
        for (index, entry) in entries.enumerated() {
            switch exchange(entry) {
            case .success(let exchange): exchanges.append(exchange)
            case .failure(let problem): skipped.append(Problem(message: "log.entries[\(index)]: \(problem.message); skipped"))
            }
        }
        return (exchanges, skipped)
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
