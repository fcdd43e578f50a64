import Foundation
import HTTPServer
import JSON
import MockCore
import WireFormat

/// The journal as an HTTP Archive (HAR 1.2, as browsers' developer tools write it), oldest
/// first: what `GET /__admin/requests?format=har` answers, for a bug report or any tool that
/// reads HAR (and `understudy import-har` reads back into the same answers). Secrets are left out
/// as a recording leaves them out: redacted headers, query parameters, form and JSON fields and
/// cookies are `REDACTED`, and so is a secret the answer echoed. A compressed answer's text is
/// decoded (its `Content-Encoding` kept, `content.size` the decoded length); a body that is not
/// UTF-8 is base64 (`"encoding": "base64"`); a response body the journal kept only in part says
/// the size sent in `_understudy.truncatedFrom`. No timing but the total is known: it is `wait`.
/// `_understudy` also names the entry's scope, the backend that answered and the stub that
/// answers it now.
struct HARExport {
    let options: RecordingOptions

    func log(_ entries: [(entry: JournalEntry, stub: JSONValue?)], sessions: [ChannelSession] = []) -> JSONValue {
        // Exchanges and WebSocket sessions together, by when each began.
        var dated = entries.map { (Self.startedAt($0.entry), entry($0.entry, stub: $0.stub)) }
        dated += sessions.map { ($0.openedAt, entry($0)) }
        dated.sort { $0.0 < $1.0 }
        return .object([
            (
                "log",
                .object([
                    ("version", "1.2"),
                    ("creator", .object([("name", "Understudy"), ("version", .string(UnderstudyVersion.current))])),
                    ("entries", .array(dated.map(\.1))),
                ])
            )
        ])
    }

    /// When the request arrived, seconds since 1970.
    private static func startedAt(_ entry: JournalEntry) -> Double { entry.loggedAt - Double(entry.durationNanos) / 1e9 }

    func entry(_ entry: JournalEntry, stub: JSONValue?) -> JSONValue {
        let request = entry.request
        let recipe = MappingRecipe(options: options)
        let secrets = recipe.secrets(RecordedExchange(request, entry.response, source: ""))
        let hide = { (text: String) in MappingRecipe.scrub(text, secrets) }
        let host = request.proxiedAuthority ?? request.headers["Host"] ?? "localhost:\(request.localPort)"
        let milliseconds = Double(entry.durationNanos) / 1e6
        let redactsQuery = request.queryItems.contains { options.isRedacted(parameter: $0.name) }
        let target =
            redactsQuery
            ? request.rawPath + "?"
                + request.queryItems.map { item in
                    item.name
                        + (options.isRedacted(parameter: item.name)
                            ? "=" + RecordingOptions.placeholder : item.value.map { "=" + MappingRecipe.percentEncoded($0) } ?? "")
                }.joined(separator: "&")
            : request.target
        var requestMembers: [(String, JSONValue)] = [
            ("method", .string(request.method.rawValue)),
            ("url", .string(hide("\(request.scheme)://\(host)\(target)"))),
            ("httpVersion", "HTTP/1.1"),
            ("cookies", .array(request.cookies.map { Self.pair($0.name, RecordingOptions.placeholder) })),
            ("headers", headers(request.headers, hide)),
            (
                "queryString",
                .array(
                    request.queryItems.map { item in
                        Self.pair(item.name, options.isRedacted(parameter: item.name) ? RecordingOptions.placeholder : hide(item.value ?? ""))
                    })
            ),
        ]
        if !request.body.isEmpty {
            var postData: [(String, JSONValue)] = [("mimeType", .string(request.headers["Content-Type"] ?? ""))]
            postData += Self.text(Array(hide(String(decoding: redactedFields(request), as: UTF8.self)).utf8), original: request.body)
            requestMembers.append(("postData", .object(postData)))
        }
        requestMembers += [("headersSize", -1), ("bodySize", .int(request.body.count))]
        let response = entry.response
        let sent = response.body.bytes
        let encoding = response.headers["Content-Encoding"]
        let body = encoding.flatMap { ContentDecoding.decode(sent, encoding: $0) } ?? sent
        var content: [(String, JSONValue)] = [("size", .int(body.count)), ("mimeType", .string(response.headers["Content-Type"] ?? ""))]
        if let encoding, body != sent { content.append(("compression", .int(body.count - sent.count))) }
        content += Self.text(Array(hide(String(decoding: body, as: UTF8.self)).utf8), original: body)
        var understudy: [(String, JSONValue)] = [("scope", .string(entry.scope.name)), ("servedBy", entry.backend.map(JSONValue.string) ?? .null)]
        if let id = stub?["id"] { understudy.append(("stubId", id)) }
        if let truncated = entry.truncatedFrom { understudy.append(("truncatedFrom", .int(truncated))) }
        return .object(
            [
                ("startedDateTime", .string(Timestamp.iso8601(Self.startedAt(entry)))),
                ("time", .double(milliseconds)),
                ("request", .object(requestMembers)),
                (
                    "response",
                    .object([
                        ("status", .int(entry.status)),
                        ("statusText", .string(response.reason ?? "")),
                        ("httpVersion", "HTTP/1.1"),
                        (
                            "cookies",
                            .array(
                                response.headers.values(for: "Set-Cookie").map {
                                    Self.pair(String($0.prefix { $0 != "=" }), RecordingOptions.placeholder)
                                })
                        ),
                        ("headers", headers(response.headers, hide)),
                        ("content", .object(content)),
                        ("redirectURL", .string(hide(response.headers["Location"] ?? ""))),
                        ("headersSize", -1),
                        ("bodySize", .int(entry.truncatedFrom ?? sent.count)),
                    ])
                ),
                ("cache", .object([])),
                ("timings", .object([("send", 0), ("wait", .double(milliseconds)), ("receive", 0)])),
            ] + Self.serverIPAddress(of: request) + [("_understudy", .object(understudy))])
    }

    /// A WebSocket session as Chrome writes one: the upgrade answered `101`, its messages in
    /// `_webSocketMessages` (`send`: from the app; `time` in seconds since 1970; text, opcode 1),
    /// secrets in them redacted as in a body.
    func entry(_ session: ChannelSession) -> JSONValue {
        let request = session.request
        let recipe = MappingRecipe(options: options)
        let secrets = recipe.secrets(RecordedExchange(request, Response(status: 101), source: ""))
        let hide = { (text: String) in MappingRecipe.scrub(text, secrets) }
        let host = request.proxiedAuthority ?? request.headers["Host"] ?? "localhost:\(request.localPort)"
        let messages = session.messages.map { message in
            JSONValue.object([
                ("type", .string(message.fromClient ? "send" : "receive")), ("time", .double(message.wallSeconds)), ("opcode", 1),
                ("data", .string(hide(message.text))),
            ])
        }
        return .object(
            [
                ("startedDateTime", .string(Timestamp.iso8601(session.openedAt))),
                ("time", 0),
                (
                    "request",
                    .object([
                        ("method", "GET"), ("url", .string(hide("\(request.isSecure ? "wss" : "ws")://\(host)\(request.target)"))),
                        ("httpVersion", "HTTP/1.1"), ("cookies", .array(request.cookies.map { Self.pair($0.name, RecordingOptions.placeholder) })),
                        ("headers", headers(request.headers, hide)),
                        ("queryString", .array(request.queryItems.map { Self.pair($0.name, hide($0.value ?? "")) })),
                        ("headersSize", -1), ("bodySize", 0),
                    ])
                ),
                (
                    "response",
                    .object([
                        ("status", 101), ("statusText", "Switching Protocols"), ("httpVersion", "HTTP/1.1"), ("cookies", .array([])),
                        ("headers", .array([])), ("content", .object([("size", 0), ("mimeType", "")])), ("redirectURL", ""),
                        ("headersSize", -1), ("bodySize", 0),
                    ])
                ),
                ("cache", .object([])),
                ("timings", .object([("send", 0), ("wait", 0), ("receive", 0)])),
            ] + Self.serverIPAddress(of: request) + [
                ("_resourceType", "websocket"),
                ("_webSocketMessages", .array(messages)),
                ("_understudy", .object([("scope", .string(session.scope.name))])),
            ])
    }

    /// The address the client reached the server at, as far as the request says: the `Host`
    /// when it is an IP address, else the loopback address of a client on this machine; none
    /// otherwise (HAR makes the field optional). The connection's own address is not kept.
    private static func serverIPAddress(of request: Request) -> [(String, JSONValue)] {
        if !request.isProxied, let host = request.headers["Host"].flatMap({ HostName.of(authority: Substring($0))?.host }),
            host.contains(":") || host.split(separator: ".", omittingEmptySubsequences: false).map({ UInt8($0) }).filter({ $0 != nil }).count == 4
        {
            return [("serverIPAddress", .string(host))]
        }
        switch request.remoteAddress {
        case "127.0.0.1": return [("serverIPAddress", "127.0.0.1")]
        case "::1": return [("serverIPAddress", "::1")]
        default: return []
        }
    }

    /// The request's body with the values of redacted form or JSON fields `REDACTED` (written
    /// anew only when it has one).
    private func redactedFields(_ request: Request) -> [UInt8] {
        if request.headers["Content-Type"]?.lowercased().hasPrefix("application/x-www-form-urlencoded") == true {
            let fields = FormURLEncoding.decode(request.bodyText)
            guard fields.contains(where: { options.isRedacted(parameter: $0.name) }) else { return request.body }
            return Array(
                fields.map { field in
                    field.name + "="
                        + (options.isRedacted(parameter: field.name) ? RecordingOptions.placeholder : MappingRecipe.percentEncoded(field.value ?? ""))
                }.joined(separator: "&").utf8)
        }
        guard let json = try? JSONValue.parse(request.body) else { return request.body }
        var found = false
        func redacted(_ value: JSONValue) -> JSONValue {
            switch value {
            case .object(let members):
                return .object(
                    members.map { name, member in
                        guard options.isRedacted(parameter: name) else { return (name, redacted(member)) }
                        found = true
                        return (name, .string(RecordingOptions.placeholder))
                    })
            case .array(let items): return .array(items.map(redacted))
            default: return value
            }
        }
        let result = redacted(json)
        return found ? Array(result.serialized.utf8) : request.body
    }

    /// Redacted headers' values are `REDACTED`, and so is a secret in another header.
    private func headers(_ fields: HTTPHeaders, _ hide: (String) -> String) -> JSONValue {
        .array(fields.map { Self.pair($0.name, options.isRedacted(header: $0.name) ? RecordingOptions.placeholder : hide($0.value)) })
    }

    private static func pair(_ name: String, _ value: String) -> JSONValue { .object([("name", .string(name)), ("value", .string(value))]) }

    /// The text (`redacted`: secrets replaced), or, when `original` is not UTF-8, its bytes in
    /// base64 with `encoding: base64`.
    private static func text(_ redacted: [UInt8], original: [UInt8]) -> [(String, JSONValue)] {
        guard String(validating: original, as: UTF8.self) != nil else {
            return [("text", .string(Data(original).base64EncodedString())), ("encoding", "base64")]
        }
        return [("text", .string(String(decoding: redacted, as: UTF8.self)))]
    }
}
