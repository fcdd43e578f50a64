import Foundation
import HTTPServer
import JSON
import WireFormat

/// The journal as an HTTP Archive (HAR 1.2, as browsers' developer tools write it), oldest
/// first: what `GET /__admin/requests?format=har` answers, for a bug report or any tool that
/// reads HAR (and `understudy import-har` reads back). A body that is not UTF-8 text is base64
/// (`"encoding": "base64"`); a response body the journal kept only in part is marked with
/// `_truncatedFrom`, the size that was sent. No timing but the total is known: it is `wait`.
public enum HARExport {
    public static func log(_ entries: [JournalEntry]) -> JSONValue {
        .object([
            (
                "log",
                .object([
                    ("version", "1.2"),
                    ("creator", .object([("name", "Understudy"), ("version", .string(UnderstudyVersion.current))])),
                    ("entries", .array(entries.map(entry))),
                ])
            )
        ])
    }

    static func entry(_ entry: JournalEntry) -> JSONValue {
        let request = entry.request
        let host = request.proxiedAuthority ?? request.headers["Host"] ?? "localhost:\(request.localPort)"
        let milliseconds = Double(entry.durationNanos) / 1e6
        var requestMembers: [(String, JSONValue)] = [
            ("method", .string(request.method.rawValue)),
            ("url", .string("\(request.scheme)://\(host)\(request.target)")),
            ("httpVersion", "HTTP/1.1"),
            ("cookies", .array(request.cookies.map { .object([("name", .string($0.name)), ("value", .string($0.value))]) })),
            ("headers", headers(request.headers)),
            ("queryString", .array(request.queryItems.map { .object([("name", .string($0.name)), ("value", .string($0.value ?? ""))]) })),
        ]
        if !request.body.isEmpty {
            var postData: [(String, JSONValue)] = [("mimeType", .string(request.headers["Content-Type"] ?? ""))]
            postData += text(request.body)
            requestMembers.append(("postData", .object(postData)))
        }
        requestMembers += [("headersSize", -1), ("bodySize", .int(request.body.count))]
        let response = entry.response
        let body = response.body.bytes
        var content: [(String, JSONValue)] = [
            ("size", .int(entry.truncatedFrom ?? body.count)), ("mimeType", .string(response.headers["Content-Type"] ?? "")),
        ]
        content += text(body)
        if let sent = entry.truncatedFrom { content.append(("_truncatedFrom", .int(sent))) }
        return .object([
            ("startedDateTime", .string(Timestamp.iso8601(entry.loggedAt - Double(entry.durationNanos) / 1e9))),
            ("time", .double(milliseconds)),
            ("request", .object(requestMembers)),
            (
                "response",
                .object([
                    ("status", .int(entry.status)),
                    ("statusText", .string(response.reason ?? "")),
                    ("httpVersion", "HTTP/1.1"),
                    ("cookies", .array([])),
                    ("headers", headers(response.headers)),
                    ("content", .object(content)),
                    ("redirectURL", .string(response.headers["Location"] ?? "")),
                    ("headersSize", -1),
                    ("bodySize", .int(entry.truncatedFrom ?? body.count)),
                ])
            ),
            ("cache", .object([])),
            ("timings", .object([("send", 0), ("wait", .double(milliseconds)), ("receive", 0)])),
            ("_scope", .string(entry.scope.name)),
            ("_servedBy", entry.backend.map(JSONValue.string) ?? .null),
        ])
    }

    private static func headers(_ fields: HTTPHeaders) -> JSONValue {
        .array(fields.map { .object([("name", .string($0.name)), ("value", .string($0.value))]) })
    }

    /// `text`, and `encoding: base64` when the bytes are not UTF-8.
    private static func text(_ bytes: [UInt8]) -> [(String, JSONValue)] {
        if let text = String(validating: bytes, as: UTF8.self) { return [("text", .string(text))] }
        return [("text", .string(Data(bytes).base64EncodedString())), ("encoding", "base64")]
    }
}
