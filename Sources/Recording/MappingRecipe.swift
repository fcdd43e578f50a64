import Foundation
import GraphQLMatching
import HTTPServer
import JSON
import MockCore
import WireFormat

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

    /// What makes two requests the same call: the parts a mapping matches on. A GraphQL
    /// operation is its operation name, its query as a document and its variables, so the same
    /// operation sent reformatted is the same call.
    func key(_ exchange: RecordedExchange) -> String {
        let secrets = self.secrets(exchange)
        var parts = [exchange.method.uppercased(), exchange.host ?? "", Self.scrub(exchange.path, secrets)]
        if let operation = graphQL(exchange) {
            parts.append("graphql:" + (operation.operationName ?? ""))
            parts.append(operation.document.canonical)
            parts.append(operation.variables.map { Self.sortedKeys(redactedJSON($0, secrets)).serialized } ?? "")
            return parts.joined(separator: "\n")
        }
        for item in exchange.query where !isIgnored(item.name) {
            parts.append("q:\(item.name)=\(hides(item.name, item.value ?? "", secrets) ? "*" : item.value ?? "")")
        }
        for name in options.matchHeaders where !options.isRedacted(header: name) {
            if let value = exchange.requestHeaders[name] { parts.append("h:\(name.lowercased())=\(Self.scrub(value, secrets))") }
        }
        parts.append("b:" + String(decoding: bodyKey(exchange, secrets), as: UTF8.self))
        return parts.joined(separator: "\n")
    }

    /// Readable and deterministic: method, path words, and a short hash of the key; a GraphQL
    /// operation's name instead of the path (`graphql-hero-1c0d2a4e`).
    func name(_ exchange: RecordedExchange, key: String) -> String {
        let hash = String(Self.hash(key) & 0xFFFF_FFFF, radix: 16)
        if let operation = graphQL(exchange) {
            let named =
                operation.operationName ?? operation.document.operations.first?.name ?? operation.document.operations.first?.type ?? "operation"
            return "graphql-" + named.lowercased().split { !($0.isASCII && ($0.isLetter || $0.isNumber)) }.joined(separator: "-") + "-" + hash
        }
        // From the path with its secrets replaced: names become file and scenario names.
        let words = Self.scrub(exchange.path, secrets(exchange)).lowercased().split { !($0.isASCII && ($0.isLetter || $0.isNumber)) }.prefix(6)
        let slug = ([exchange.method.lowercased()] + words.map(String.init)).joined(separator: "-")
        return slug + "-" + hash
    }

    func mapping(_ exchange: RecordedExchange, name: String, scenario: (name: String, required: String, next: String?)?) -> Recorded {
        var mapping: [(String, JSONValue)] = [
            ("id", .string(Self.uuid(name))),
            ("name", .string(name)),
            ("request", request(exchange)),
        ]
        let (response, bodyFile) = self.response(exchange, name: name)
        mapping.append(("response", response))
        // A persisted query sent as its hash alone: what the upstream answered it (at first,
        // PERSISTED_QUERY_NOT_FOUND) comes before the stub of the query it registered, which
        // would answer the hash at once.
        if graphQL(exchange) == nil, let body = try? JSONValue.parse(exchange.requestBody), body["query"] == nil,
            body["extensions"]?["persistedQuery"]?["sha256Hash"] != nil
        {
            mapping.append(("priority", 4))
        }
        if let scenario {
            mapping.append(("scenarioName", .string(scenario.name)))
            mapping.append(("requiredScenarioState", .string(scenario.required)))
            if let next = scenario.next { mapping.append(("newScenarioState", .string(next))) }
        }
        mapping.append(("metadata", .object([("recordedFrom", .string(Self.withoutUserInfo(exchange.source)))])))
        return Recorded(mapping: mapping, bodyFile: bodyFile)
    }

    // MARK: Request

    private func request(_ exchange: RecordedExchange) -> JSONValue {
        let secrets = self.secrets(exchange)
        var request: [(String, JSONValue)] = [("method", .string(exchange.method.uppercased()))]
        if let host = exchange.host { request.append(("host", .object([("equalTo", .string(host))]))) }
        request.append(Self.pathMatch(exchange.path, secrets))
        if let operation = graphQL(exchange) {
            // wiremock-graphql-extension's matcher: the query as sent, variables (redacted) and
            // operation name as sent; a GET's own query parameters are the operation.
            var parameters: [(String, JSONValue)] = [("query", .string(operation.text))]
            if let variables = operation.variables { parameters.append(("variables", redactedJSON(variables, secrets))) }
            if let name = operation.operationName { parameters.append(("operationName", .string(name))) }
            request.append(
                ("customMatcher", .object([("name", .string(GraphQLPattern.matcherName)), ("parameters", .object(parameters))])))
            return .object(request)
        }
        var query: [(String, JSONValue)] = []
        for name in orderedNames(exchange.query.map(\.name)) where !isIgnored(name) {
            let values = exchange.query.filter { $0.name == name }.map { $0.value ?? "" }
            query.append((name, valuesPattern(name, values, secrets)))
        }
        if !query.isEmpty { request.append(("queryParameters", .object(query))) }
        var headers: [(String, JSONValue)] = []
        for name in options.matchHeaders where !options.isRedacted(header: name) {
            if let value = exchange.requestHeaders[name] {
                headers.append((name, Self.textPattern(value, secrets, exact: "equalTo")))
            }
        }
        if !headers.isEmpty { request.append(("headers", .object(headers))) }
        request += bodyMatch(exchange, secrets)
        return .object(request)
    }

    /// `urlPath`, or when a secret is part of the path (a token as a path segment),
    /// `urlPathPattern` with the secret matched by any segment text.
    private static func pathMatch(_ path: String, _ secrets: [String]) -> (String, JSONValue) {
        guard secrets.contains(where: { path.contains($0) }) else { return ("urlPath", .string(path)) }
        return ("urlPathPattern", .string(pattern(path, secrets, wildcard: "[^/]+")))
    }

    /// `text` as an exact pattern, or as a regular expression that matches any value where it
    /// holds a secret.
    private static func textPattern(_ text: String, _ secrets: [String], exact: String) -> JSONValue {
        guard secrets.contains(where: { text.contains($0) }) else { return .object([(exact, .string(text))]) }
        return .object([("matches", .string("(?s)" + pattern(text, secrets, wildcard: ".*")))])
    }

    /// `text` as an anchored-literal regular expression with each secret replaced by `wildcard`.
    private static func pattern(_ text: String, _ secrets: [String], wildcard: String) -> String {
        // A marker no text holds splits the literal parts apart, each then escaped.
        let marker = "\u{0}"
        let marked = secrets.reduce(text) { $0.replacingOccurrences(of: $1, with: marker) }
        return marked.components(separatedBy: marker).map { NSRegularExpression.escapedPattern(for: $0) }.joined(separator: wildcard)
    }

    /// Whether a parameter's value must not be written: its name is redacted, or it holds a
    /// secret of the exchange (a token echoed into another field).
    private func hides(_ name: String, _ value: String, _ secrets: [String]) -> Bool {
        options.isRedacted(parameter: name) || secrets.contains { value.contains($0) }
    }

    private func isIgnored(_ name: String) -> Bool {
        options.ignoredQueryParameters.contains(name)
    }

    private func orderedNames(_ names: [String]) -> [String] {
        var seen = Set<String>()
        return names.filter { seen.insert($0).inserted }
    }

    /// `equalTo`, `hasExactly` for a repeated parameter, or any value when it is redacted.
    private func valuesPattern(_ name: String, _ values: [String], _ secrets: [String]) -> JSONValue {
        if values.contains(where: { hides(name, $0, secrets) }) { return .object([("matches", .string(".*"))]) }
        if values.count == 1 { return .object([("equalTo", .string(values[0]))]) }
        return .object([("hasExactly", .array(values.map { .object([("equalTo", .string($0))]) }))])
    }

    private var contentTypeIsForm: (RecordedExchange) -> Bool {
        { ($0.requestHeaders["Content-Type"] ?? "").lowercased().hasPrefix("application/x-www-form-urlencoded") }
    }

    /// A GraphQL operation: a JSON body (or a GET's `query` parameter) whose `query` is a GraphQL
    /// document, on any path, or only on the `--graphql` paths when some are named.
    struct GraphQLCall {
        let text: String
        let document: GraphQLDocument
        let variables: JSONValue?
        let operationName: String?
    }

    func graphQL(_ exchange: RecordedExchange) -> GraphQLCall? {
        if !options.graphQLPaths.isEmpty, !options.graphQLPaths.contains(exchange.path) { return nil }
        let fields: JSONValue
        if exchange.method.uppercased() == "GET" {
            var members: [(String, JSONValue)] = []
            for item in exchange.query where ["query", "operationName"].contains(item.name) { members.append((item.name, .string(item.value ?? ""))) }
            if let variables = exchange.query.first(where: { $0.name == "variables" })?.value {
                members.append(("variables", (try? JSONValue.parse(variables)) ?? .null))
            }
            fields = .object(members)
        } else {
            guard let json = try? JSONValue.parse(exchange.requestBody) else { return nil }
            fields = json
        }
        guard case .success(let operation)? = Optional(GraphQLOperation.of(fields)), let text = operation.queryText,
            case .success(let document)? = operation.document
        else { return nil }
        return GraphQLCall(text: text, document: document, variables: operation.variables, operationName: operation.operationName)
    }

    /// JSON with every object's members sorted by name: the same variables in any order are one key.
    static func sortedKeys(_ json: JSONValue) -> JSONValue {
        switch json {
        case .object(let members): .object(members.sorted { $0.0 < $1.0 }.map { ($0.0, sortedKeys($0.1)) })
        case .array(let items): .array(items.map(sortedKeys))
        default: json
        }
    }

    /// The body's part of the key: form fields and JSON with redacted values blanked, or the bytes.
    private func bodyKey(_ exchange: RecordedExchange, _ secrets: [String]) -> [UInt8] {
        guard !exchange.requestBody.isEmpty else { return [] }
        if contentTypeIsForm(exchange) {
            let fields = FormURLEncoding.decode(String(decoding: exchange.requestBody, as: UTF8.self))
            return Array(fields.map { "\($0.name)=\(hides($0.name, $0.value ?? "", secrets) ? "*" : $0.value ?? "")" }.joined(separator: "&").utf8)
        }
        if let json = try? JSONValue.parse(exchange.requestBody), json.objectValue != nil || json.arrayValue != nil {
            return Array(redactedJSON(json, secrets).serialized.utf8)
        }
        if let text = String(validating: exchange.requestBody, as: UTF8.self) { return Array(Self.scrub(text, secrets).utf8) }
        return exchange.requestBody
    }

    private func bodyMatch(_ exchange: RecordedExchange, _ secrets: [String]) -> [(String, JSONValue)] {
        guard !exchange.requestBody.isEmpty else { return [] }
        if contentTypeIsForm(exchange) {
            let fields = FormURLEncoding.decode(String(decoding: exchange.requestBody, as: UTF8.self))
            let patterns = orderedNames(fields.map(\.name)).map { name in
                (name, valuesPattern(name, fields.filter { $0.name == name }.map { $0.value ?? "" }, secrets))
            }
            return [("formParameters", .object(patterns))]
        }
        if let json = try? JSONValue.parse(exchange.requestBody), json.objectValue != nil || json.arrayValue != nil {
            return [("bodyPatterns", .array([.object([("equalToJson", redactedJSON(json, secrets))])]))]
        }
        if let text = String(validating: exchange.requestBody, as: UTF8.self) {
            return [("bodyPatterns", .array([Self.textPattern(text, secrets, exact: "equalTo")]))]
        }
        return [("bodyPatterns", .array([.object([("binaryEqualTo", .string(Data(exchange.requestBody).base64EncodedString()))])]))]
    }

    /// JSON with the values of redacted fields, and strings holding a secret, replaced by
    /// JsonUnit's "any string" placeholder.
    private func redactedJSON(_ json: JSONValue, _ secrets: [String]) -> JSONValue {
        switch json {
        case .object(let members):
            .object(
                members.map { name, value in
                    (name, options.isRedacted(parameter: name) ? .string("${json-unit.any-string}") : redactedJSON(value, secrets))
                })
        case .array(let items): .array(items.map { redactedJSON($0, secrets) })
        case .string(let text) where secrets.contains(where: { text.contains($0) }): .string("${json-unit.any-string}")
        default: json
        }
    }

    // MARK: Response

    /// Headers that describe the connection or the transfer, not the answer.
    private static let transferHeaders: Set<String> = [
        "date", "content-length", "transfer-encoding", "connection", "keep-alive",
        "proxy-connection", "trailer", "upgrade",
    ]

    private func response(_ exchange: RecordedExchange, name: String) -> (JSONValue, (name: String, content: ResponseBody)?) {
        // Compressed answers are stored decoded, without their Content-Encoding; an encoding this
        // cannot undo (br, zstd, or bytes that are not what the header says) is stored as sent.
        // (A body in a file comes decoded already: `RecordingStore` decodes it once.)
        var body = exchange.responseBody
        var decoded = false
        if exchange.responseFile == nil, let encoding = exchange.responseHeaders["Content-Encoding"], !body.isEmpty,
            let plain = ContentDecoding.decode(body, encoding: encoding)
        {
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
        // An event stream: its events, which an SSE stub replays in order.
        if contentType.hasPrefix("text/event-stream"), !encoded, let text = String(validating: body, as: UTF8.self) {
            let events = RecordedEventStream.events(in: text)
            if !events.isEmpty {
                response.append(("eventStream", .object([("events", .array(events))])))
                return (.object(response), nil)
            }
        }
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
    func secrets(_ exchange: RecordedExchange) -> [String] {
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
            values += Self.basicCredentials(field.value)
        }
        for cookie in exchange.responseHeaders.values(for: "Set-Cookie") {
            let pair = cookie.prefix { $0 != ";" }
            if let equals = pair.firstIndex(of: "=") { values.append(String(pair[pair.index(after: equals)...])) }
        }
        // An upstream may echo a secret encoded (a query value in a Location, a cookie value it
        // decoded): each is hidden as sent, decoded and percent-encoded.
        var secrets = Set<String>()
        for value in values where value.count >= Self.shortestSecret {
            secrets.insert(value)
            secrets.insert(PercentDecoding.decode(value, plusAsSpace: false))
            secrets.insert(Self.percentEncoded(value))
        }
        return secrets.filter { $0.count >= Self.shortestSecret }.sorted { $0.count > $1.count }
    }

    /// `user:password` and the password of a Basic credential (`Basic dXNlcjpwYXNzd29yZA==`):
    /// the header's value is base64, but an upstream greeting the user echoes them decoded.
    static func basicCredentials(_ value: String) -> [String] {
        let parts = value.split(separator: " ", omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "basic", let data = Data(base64Encoded: String(parts[1])),
            let pair = String(validating: Array(data), as: UTF8.self), let colon = pair.firstIndex(of: ":")
        else { return [] }
        return [pair, String(pair[pair.index(after: colon)...])]
    }

    /// RFC 3986's unreserved characters kept, every other byte as %XX.
    static func percentEncoded(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                out += "%" + (byte < 16 ? "0" : "") + String(byte, radix: 16, uppercase: true)
            }
        }
        return out
    }

    /// The recorded-from URL without `user:password@`, which a target URL may carry.
    static func withoutUserInfo(_ url: String) -> String {
        guard let scheme = url.range(of: "://") else { return url }
        let authorityEnd = url[scheme.upperBound...].firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? url.endIndex
        guard let at = url[scheme.upperBound..<authorityEnd].lastIndex(of: "@") else { return url }
        return String(url[..<scheme.upperBound]) + String(url[url.index(after: at)...])
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

    static func scrub(_ text: String, _ secrets: [String]) -> String {
        secrets.reduce(text) { $0.replacingOccurrences(of: $1, with: RecordingOptions.placeholder) }
    }

    static func isText(_ contentType: String) -> Bool {
        contentType.hasPrefix("text/") || ["json", "xml", "javascript", "x-www-form-urlencoded", "html"].contains { contentType.contains($0) }
    }

    static func fileExtension(_ contentType: String) -> String {
        let types: [(String, String)] = [
            ("json", "json"), ("xml", "xml"), ("html", "html"), ("javascript", "js"), ("css", "css"),
            ("text/plain", "txt"), ("png", "png"), ("jpeg", "jpg"), ("gif", "gif"), ("pdf", "pdf"),
        ]
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
