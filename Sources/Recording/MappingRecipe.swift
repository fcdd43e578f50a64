import Foundation
import HTTPServer
import MockCore

/// Turns an exchange into a WireMock mapping: the request matched on method, path, query (minus
/// ignored parameters), chosen headers and the body where it identifies the call (form fields,
/// JSON, text); the answer as it came, decoded when it was compressed. Redacted values never
/// appear: they are matched with any value, a response's cookies keep their names only, and a
/// secret the upstream echoed back (in a text body or a header) is replaced there too.
struct MappingRecipe: Sendable {
    let options: RecordingOptions

    /// A mapping to write and the body file it names, if any.
    struct Recorded {
        var mapping: [(String, JSONValue)]
        var bodyFile: (name: String, content: ResponseBody)?
    }

    /// What makes two requests the same call: the parts a mapping matches on.
    func key(_ exchange: RecordedExchange) -> String {
        var parts = [exchange.method.uppercased(), exchange.path]
        for item in exchange.query where !isIgnored(item.name) {
            parts.append("q:\(item.name)=\(options.isRedacted(parameter: item.name) ? "*" : item.value ?? "")")
        }
        for name in options.matchHeaders {
            if let value = exchange.requestHeaders[name] { parts.append("h:\(name.lowercased())=\(value)") }
        }
        parts.append("b:" + String(decoding: bodyKey(exchange), as: UTF8.self))
        return parts.joined(separator: "\n")
    }

    /// Readable and deterministic: method, path words, and a short hash of the key.
    func name(_ exchange: RecordedExchange, key: String) -> String {
        let words = exchange.path.lowercased().split { !($0.isASCII && ($0.isLetter || $0.isNumber)) }.prefix(6)
        let slug = ([exchange.method.lowercased()] + words.map(String.init)).joined(separator: "-")
        return slug + "-" + String(Self.hash(key) & 0xFFFF_FFFF, radix: 16)
    }

    func mapping(_ exchange: RecordedExchange, name: String, scenario: (name: String, required: String, next: String?)?) -> Recorded {
        var mapping: [(String, JSONValue)] = [
            ("id", .string(Self.uuid(name))),
            ("name", .string(name)),
            ("request", request(exchange)),
        ]
        let (response, bodyFile) = self.response(exchange, name: name)
        mapping.append(("response", response))
        if let scenario {
            mapping.append(("scenarioName", .string(scenario.name)))
            mapping.append(("requiredScenarioState", .string(scenario.required)))
            if let next = scenario.next { mapping.append(("newScenarioState", .string(next))) }
        }
        mapping.append(("metadata", .object([("recordedFrom", .string(exchange.source))])))
        return Recorded(mapping: mapping, bodyFile: bodyFile)
    }

    // MARK: Request

    private func request(_ exchange: RecordedExchange) -> JSONValue {
        var request: [(String, JSONValue)] = [("method", .string(exchange.method.uppercased())), ("urlPath", .string(exchange.path))]
        var query: [(String, JSONValue)] = []
        for name in orderedNames(exchange.query.map(\.name)) where !isIgnored(name) {
            let values = exchange.query.filter { $0.name == name }.map { $0.value ?? "" }
            query.append((name, valuesPattern(name, values)))
        }
        if !query.isEmpty { request.append(("queryParameters", .object(query))) }
        var headers: [(String, JSONValue)] = []
        for name in options.matchHeaders where !options.isRedacted(header: name) {
            if let value = exchange.requestHeaders[name] { headers.append((name, .object([("equalTo", .string(value))]))) }
        }
        if !headers.isEmpty { request.append(("headers", .object(headers))) }
        request += bodyMatch(exchange)
        return .object(request)
    }

    private func isIgnored(_ name: String) -> Bool {
        options.ignoredQueryParameters.contains(name)
    }

    private func orderedNames(_ names: [String]) -> [String] {
        var seen = Set<String>()
        return names.filter { seen.insert($0).inserted }
    }

    /// `equalTo`, `hasExactly` for a repeated parameter, or any value when it is redacted.
    private func valuesPattern(_ name: String, _ values: [String]) -> JSONValue {
        if options.isRedacted(parameter: name) { return .object([("matches", .string(".*"))]) }
        if values.count == 1 { return .object([("equalTo", .string(values[0]))]) }
        return .object([("hasExactly", .array(values.map { .object([("equalTo", .string($0))]) }))])
    }

    private var contentTypeIsForm: (RecordedExchange) -> Bool {
        { ($0.requestHeaders["Content-Type"] ?? "").lowercased().hasPrefix("application/x-www-form-urlencoded") }
    }

    /// The body's part of the key: form fields and JSON with redacted values blanked, or the bytes.
    private func bodyKey(_ exchange: RecordedExchange) -> [UInt8] {
        guard !exchange.requestBody.isEmpty else { return [] }
        if contentTypeIsForm(exchange) {
            let fields = FormURLEncoding.decode(String(decoding: exchange.requestBody, as: UTF8.self))
            return Array(fields.map { "\($0.name)=\(options.isRedacted(parameter: $0.name) ? "*" : $0.value ?? "")" }.joined(separator: "&").utf8)
        }
        if let json = try? JSONValue.parse(exchange.requestBody), json.objectValue != nil || json.arrayValue != nil {
            return Array(redactedJSON(json).serialized.utf8)
        }
        return exchange.requestBody
    }

    private func bodyMatch(_ exchange: RecordedExchange) -> [(String, JSONValue)] {
        guard !exchange.requestBody.isEmpty else { return [] }
        if contentTypeIsForm(exchange) {
            let fields = FormURLEncoding.decode(String(decoding: exchange.requestBody, as: UTF8.self))
            let patterns = orderedNames(fields.map(\.name)).map { name in
                (name, valuesPattern(name, fields.filter { $0.name == name }.map { $0.value ?? "" }))
            }
            return [("formParameters", .object(patterns))]
        }
        if let json = try? JSONValue.parse(exchange.requestBody), json.objectValue != nil || json.arrayValue != nil {
            return [("bodyPatterns", .array([.object([("equalToJson", redactedJSON(json))])]))]
        }
        if let text = String(validating: exchange.requestBody, as: UTF8.self) {
            return [("bodyPatterns", .array([.object([("equalTo", .string(text))])]))]
        }
        return [("bodyPatterns", .array([.object([("binaryEqualTo", .string(Data(exchange.requestBody).base64EncodedString()))])]))]
    }

    /// JSON with the values of redacted fields replaced by JsonUnit's "any string" placeholder.
    private func redactedJSON(_ json: JSONValue) -> JSONValue {
        switch json {
        case .object(let members):
            .object(members.map { name, value in
                (name, options.isRedacted(parameter: name) ? .string("${json-unit.any-string}") : redactedJSON(value))
            })
        case .array(let items): .array(items.map(redactedJSON))
        default: json
        }
    }

    // MARK: Response

    /// Headers that describe the connection or the transfer, not the answer.
    private static let transferHeaders: Set<String> = ["date", "content-length", "transfer-encoding", "connection", "keep-alive",
                                                       "proxy-connection", "trailer", "upgrade"]

    private func response(_ exchange: RecordedExchange, name: String) -> (JSONValue, (name: String, content: ResponseBody)?) {
        // Compressed answers are stored decoded, without their Content-Encoding; an encoding this
        // cannot undo (br, zstd, or bytes that are not what the header says) is stored as sent.
        // (A body in a file comes decoded already: `RecordingStore` decodes it once.)
        var body = exchange.responseBody
        var decoded = false
        if exchange.responseFile == nil, let encoding = exchange.responseHeaders["Content-Encoding"], !body.isEmpty,
           let plain = ContentDecoding.decode(body, encoding: encoding) {
            body = plain
            decoded = true
        }
        let secrets = self.secrets(exchange)
        let contentType = (exchange.responseHeaders["Content-Type"] ?? "").lowercased()
        let encoded = !decoded && exchange.responseHeaders["Content-Encoding"] != nil
        if !secrets.isEmpty, !encoded, Self.isText(contentType), let text = String(validating: body, as: UTF8.self) {
            body = Array(Self.scrub(text, secrets).utf8)
        }
        var headers: [(String, JSONValue)] = []
        for name in orderedNames(exchange.responseHeaders.fields.map(\.name)) {
            let lowered = name.lowercased()
            if Self.transferHeaders.contains(lowered) || (decoded && lowered == "content-encoding") { continue }
            var values = exchange.responseHeaders.values(for: name)
            if options.isRedacted(header: name) {
                values = values.map { value in
                    // A cookie keeps its name and attributes: Set-Cookie: SESSION=REDACTED; Path=/
                    if lowered == "set-cookie", let equals = value.firstIndex(of: "=") {
                        let rest = value[equals...].firstIndex(of: ";").map { String(value[$0...]) } ?? ""
                        return value[..<equals] + "=" + RecordingOptions.placeholder + rest
                    }
                    return RecordingOptions.placeholder
                }
            }
            values = values.map { Self.scrub($0, secrets) }
            headers.append((name, values.count == 1 ? .string(values[0]) : .array(values.map { .string($0) })))
        }
        var response: [(String, JSONValue)] = [("status", .int(exchange.status))]
        if !headers.isEmpty { response.append(("headers", .object(headers))) }
        let file = name + "." + Self.fileExtension(contentType)
        if let bodyFile = exchange.responseFile, bodyFile.count > 0 {
            response.append(("bodyFileName", .string(file)))
            return (.object(response), (file, ResponseBody(file: bodyFile)))
        }
        guard !body.isEmpty else { return (.object(response), nil) }
        if body.count <= options.inlineBodyLimit, !encoded, Self.isText(contentType), let text = String(validating: body, as: UTF8.self) {
            response.append(("body", .string(text)))
            return (.object(response), nil)
        }
        response.append(("bodyFileName", .string(file)))
        return (.object(response), (file, ResponseBody(body)))
    }

    /// Shorter values are left alone: replacing every "1" or "abc" would corrupt the answer.
    static let shortestSecret = 6

    /// The values this exchange's redaction hides: redacted parameters and fields, the credentials
    /// in redacted request headers, and the cookies the upstream set.
    private func secrets(_ exchange: RecordedExchange) -> [String] {
        var values = exchange.query.filter { options.isRedacted(parameter: $0.name) }.compactMap(\.value)
        if contentTypeIsForm(exchange) {
            values += FormURLEncoding.decode(String(decoding: exchange.requestBody, as: UTF8.self))
                .filter { options.isRedacted(parameter: $0.name) }.compactMap(\.value)
        } else if let json = try? JSONValue.parse(exchange.requestBody) {
            values += redactedStrings(json)
        }
        for field in exchange.requestHeaders.fields where options.isRedacted(header: field.name) {
            // "Bearer abc", "Basic abc", "a=1; b=2": the credential is what follows a space or "=".
            values += field.value.split { $0 == " " || $0 == ";" }.map { $0.split(separator: "=", maxSplits: 1).last.map(String.init) ?? "" }
        }
        for cookie in exchange.responseHeaders.values(for: "Set-Cookie") {
            let pair = cookie.prefix { $0 != ";" }
            if let equals = pair.firstIndex(of: "=") { values.append(String(pair[pair.index(after: equals)...])) }
        }
        let secrets = Set(values.filter { $0.count >= Self.shortestSecret })
        return secrets.sorted { $0.count > $1.count }
    }

    private func redactedStrings(_ json: JSONValue) -> [String] {
        switch json {
        case .object(let members):
            members.flatMap { name, value in
                options.isRedacted(parameter: name) ? (value.stringValue.map { [$0] } ?? []) : redactedStrings(value)
            }
        case .array(let items): items.flatMap(redactedStrings)
        default: []
        }
    }

    private static func scrub(_ text: String, _ secrets: [String]) -> String {
        secrets.reduce(text) { $0.replacingOccurrences(of: $1, with: RecordingOptions.placeholder) }
    }

    static func isText(_ contentType: String) -> Bool {
        contentType.hasPrefix("text/") || ["json", "xml", "javascript", "x-www-form-urlencoded", "html"].contains { contentType.contains($0) }
    }

    static func fileExtension(_ contentType: String) -> String {
        let types: [(String, String)] = [("json", "json"), ("xml", "xml"), ("html", "html"), ("javascript", "js"), ("css", "css"),
                                         ("text/plain", "txt"), ("png", "png"), ("jpeg", "jpg"), ("gif", "gif"), ("pdf", "pdf")]
        return types.first { contentType.contains($0.0) }?.1 ?? "bin"
    }

    // MARK: Ids

    static func hash(_ text: String) -> UInt64 { FNV1a.hash(text.utf8) }

    /// A UUID-shaped id derived from the mapping's name, so re-recording keeps ids stable.
    static func uuid(_ name: String) -> String {
        let hex = [hash(name), hash(name + "/")].map { String($0, radix: 16) }.map { String(repeating: "0", count: 16 - $0.count) + $0 }.joined()
        let c = Array(hex)
        return "\(String(c[0..<8]))-\(String(c[8..<12]))-4\(String(c[13..<16]))-a\(String(c[17..<20]))-\(String(c[20..<32]))"
    }
}
