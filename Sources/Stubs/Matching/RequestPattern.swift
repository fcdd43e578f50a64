import Foundation
import GraphQLMatching
import HTTPServer
import JSON
import MockCore
import WorkLimits

/// What a mapping's `request` block asks of a request.
public struct RequestPattern: Sendable {
    enum URLMatch: Sendable {
        case any
        case url(String)
        case urlPath(String)
        case urlPattern(ContentPattern.Regex)
        case urlPathPattern(ContentPattern.Regex)
        /// `/contacts/{contactId}/addresses/{id}`: literal segments and named variables.
        case urlPathTemplate(PathTemplate)
    }

    /// A pattern on a parameter that may be sent several times.
    enum ValuesPattern: Sendable {
        /// One pattern: some value must satisfy it (or, for `absent`, there must be none).
        case single(ContentPattern)
        /// Every pattern satisfied by some value, and no other values.
        case hasExactly([ContentPattern])
        /// Every pattern satisfied by some value.
        case includes([ContentPattern])

        func matches(_ values: [String]) -> Bool {
            switch self {
            case .single(let pattern):
                if values.isEmpty { return pattern.matches(nil) }
                return values.contains { pattern.matches($0) }
            case .hasExactly(let patterns):
                return values.count == patterns.count && patterns.allSatisfy { p in values.contains { p.matches($0) } }
                    && values.allSatisfy { v in patterns.contains { $0.matches(v) } }
            case .includes(let patterns):
                return patterns.allSatisfy { p in values.contains { p.matches($0) } }
            }
        }

        var expectation: String {
            switch self {
            case .single(let pattern): pattern.expectation
            case .hasExactly(let patterns): "exactly " + patterns.map(\.expectation).joined(separator: ", ")
            case .includes(let patterns): "including " + patterns.map(\.expectation).joined(separator: ", ")
            }
        }
    }

    var method: HTTPMethod?
    /// WireMock 3's `scheme`, `host` and `port`: for stubs that answer one real host only (a
    /// device's proxied requests carry it).
    var scheme: String?
    var host: ContentPattern?
    var port: Int?
    /// WireMock 3.13's `clientIp`: `X-Forwarded-For` as sent, else the address the request came
    /// from (through a tunnel, the device's), as a string pattern (`Request.clientIP`).
    var clientIp: ContentPattern?
    var url: URLMatch = .any
    var queryParameters: [(String, ValuesPattern)] = []
    var headers: [(String, ValuesPattern)] = []
    var cookies: [(String, ContentPattern)] = []
    var formParameters: [(String, ValuesPattern)] = []
    var basicAuth: (username: String, password: String)?
    var bodyPatterns: [ContentPattern] = []
    /// Patterns on the variables of a `urlPathTemplate`.
    var pathParameters: [(String, ContentPattern)] = []
    /// Patterns on the parts of a `multipart/…` body; all must be satisfied.
    var multipartPatterns: [MultipartPattern] = []
    /// wiremock-graphql-extension's `customMatcher`: the body (or a GET's query) read as a
    /// GraphQL operation and compared as a document.
    var graphQL: GraphQLPattern?

    /// What a request must have for the pattern to match it, as far as the engine's index can
    /// tell, so a request is tested only against mappings that can match it.
    enum IndexKey: Equatable {
        /// Exactly this path.
        case path(String)
        /// A path that starts with this (a `urlPathPattern`).
        case pathPrefix(String)
        /// A path that starts with this, as a `urlPathTemplate` reads paths.
        case templatePrefix(String)
        /// A target (path and query) that starts with this (a `urlPattern`).
        case targetPrefix(String)
        case none
    }

    var indexKey: IndexKey {
        switch url {
        case .any: .none
        case .url(let target): .path(String(target.prefix { $0 != "?" }))
        case .urlPath(let path): .path(path)
        case .urlPattern(let regex): .targetPrefix(regex.literalPrefix)
        case .urlPathPattern(let regex): .pathPrefix(regex.literalPrefix)
        case .urlPathTemplate(let template): .templatePrefix(template.literalPrefix)
        }
    }

    /// `GET urlPath /a/b`: the method and URL condition, for messages and file names.
    var summary: String {
        let condition: String
        switch url {
        case .any: condition = "any URL"
        case .url(let target): condition = "url " + target
        case .urlPath(let path): condition = "urlPath " + path
        case .urlPattern(let regex): condition = "urlPattern " + regex.source
        case .urlPathPattern(let regex): condition = "urlPathPattern " + regex.source
        case .urlPathTemplate(let template): condition = "urlPathTemplate " + template.source
        }
        return (method?.rawValue ?? "ANY") + " " + condition
    }

    /// How the request fares: matched, or which parts missed (for the near-miss report).
    struct Result {
        var misses: [String] = []
        var checks = 0
        var matched: Bool { misses.isEmpty }
        /// 0 for a match, up to 1 when nothing matched.
        var distance: Double { checks == 0 ? 0 : missWeight / Double(checks) }

        /// Sum of the misses' weights: a near-identical path weighs less than a different one.
        var missWeight = 0.0

        mutating func check(_ ok: Bool, _ what: @autoclosure () -> String, weight: @autoclosure () -> Double = 1) {
            checks += 1
            if !ok {
                misses.append(what())
                missWeight += weight()
            }
        }
    }

    func evaluate(_ request: Request) -> Result {
        var result = Result()
        if let method {
            // Exactly, as WireMock: a HEAD is not a GET stub's (2.35 and 3.13 answer it 404).
            result.check(request.method == method, "method is \(request.method.rawValue), not \(method.rawValue)")
        }
        if let scheme { result.check(request.scheme == scheme, "scheme is \(request.scheme), not \(scheme)") }
        if host != nil || port != nil {
            let requested = request.requestedHost
            if let host { result.check(host.matches(requested?.host), "host is \(requested?.host ?? "absent"), expected \(host.expectation)") }
            if let port { result.check(requested?.port == port, "port is \(requested.map { String($0.port) } ?? "absent"), not \(port)") }
        }
        if let clientIp {
            result.check(clientIp.matches(request.clientIP), "client IP is \(request.clientIP), expected \(clientIp.expectation)")
        }
        let rawPath = request.rawPath
        switch url {
        case .any: break
        case .url(let target):
            result.check(
                request.target == target, "URL is \(request.target), not \(target)",
                weight: Self.textDistance(request.target, target))
        case .urlPath(let path):
            result.check(rawPath == path, "path is \(rawPath), not \(path)", weight: Self.textDistance(rawPath, path))
        case .urlPathTemplate(let template) where pathParameters.isEmpty:
            if !template.fits(rawPath) { result.check(false, "path \(rawPath) does not fit \(template.source)") }
        case .urlPathTemplate(let template):
            if let variables = template.match(rawPath) {
                for (name, pattern) in pathParameters {
                    let value = variables.first { $0.name == name }?.value
                    result.check(pattern.matches(value), "path parameter \(name) is '\(value ?? "")', expected \(pattern.expectation)")
                }
            } else {
                result.check(false, "path \(rawPath) does not fit \(template.source)")
            }
        case .urlPattern(let regex): result.check(regex.matches(request.target) == true, "URL \(request.target) does not match \(regex.source)")
        case .urlPathPattern(let regex): result.check(regex.matches(rawPath) == true, "path \(rawPath) does not match \(regex.source)")
        }
        for (name, pattern) in queryParameters {
            let values = request.queryItems.filter { $0.name == name }.map { $0.value ?? "" }
            result.check(pattern.matches(values), "query parameter \(name) \(describe(values)), expected \(pattern.expectation)")
        }
        for (name, pattern) in headers {
            let values = request.headers.values(for: name)
            result.check(pattern.matches(values), "header \(name) \(describe(values)), expected \(pattern.expectation)")
        }
        if !cookies.isEmpty {
            let sent = request.cookies
            for (name, pattern) in cookies {
                let value = sent.first { $0.name == name }?.value
                result.check(pattern.matches(value), "cookie \(name) \(describe(value.map { [$0] } ?? [])), expected \(pattern.expectation)")
            }
        }
        // Each mapping reads the body anew (as text, a form, parts): a step of the request's
        // budget for each KiB, so that a large body tried against many mappings adds up.
        let bodySteps = 1 + request.body.count >> 10
        if !formParameters.isEmpty {
            let form = RequestBudget.spend(bodySteps, in: "formParameters") ? FormURLEncoding.decode(request.bodyText) : []
            for (name, pattern) in formParameters {
                let values = form.filter { $0.name == name }.map { $0.value ?? "" }
                result.check(pattern.matches(values), "form parameter \(name) \(describe(values)), expected \(pattern.expectation)")
            }
        }
        if let basicAuth {
            let expected = "Basic " + Data("\(basicAuth.username):\(basicAuth.password)".utf8).base64EncodedString()
            result.check(request.headers["Authorization"] == expected, "basic credentials differ")
        }
        for (index, pattern) in bodyPatterns.enumerated() {
            let matched = RequestBudget.spend(bodySteps, in: "bodyPatterns") && pattern.matches(body: request.body)
            result.check(matched, "body does not match bodyPatterns[\(index)]")
        }
        if let graphQL {
            // Three checks, as the extension weighs them: the query, the variables, the operation name.
            let misses = RequestBudget.spend(bodySteps, in: "graphql") ? graphQL.misses(request) : .init(query: "the request's work budget ran out")
            result.check(misses.query == nil, "GraphQL: \(misses.query ?? "")")
            result.check(misses.variables.isEmpty, "GraphQL: " + misses.variables.joined(separator: "; "))
            result.check(misses.operationName == nil, "GraphQL: \(misses.operationName ?? "")")
        }
        if !multipartPatterns.isEmpty {
            let parts = RequestBudget.spend(bodySteps, in: "multipartPatterns") ? MultipartBody.parts(of: request) : []
            for (index, pattern) in multipartPatterns.enumerated() {
                result.check(pattern.matches(parts), pattern.miss(parts, index: index))
            }
        }
        // A miss the request's budget may have caused says so: the stub might have matched.
        if !result.matched, let place = RequestBudget.current?.exhaustedIn {
            result.misses.append("budget exceeded in \(place): the request's work budget (\(RequestBudget.limitDescription)) ran out")
        }
        return result
    }

    /// 0 for equal texts up to 1 for nothing in common (edit distance over the longer length).
    static func textDistance(_ a: String, _ b: String) -> Double {
        let longer = max(a.utf8.count, b.utf8.count)
        guard longer > 0 else { return 0 }
        // Up to a million cells for each missed mapping: past 16,384 (a path's usual length
        // squared, not worth a look-up of the budget), a step of the request's budget a thousand.
        let cells = a.utf8.count * b.utf8.count
        guard cells <= 1_000_000, cells <= 16_384 || RequestBudget.spend(cells >> 10, in: "near misses") else { return 1 }
        return Double(EditDistance.edits(a, b)) / Double(longer)
    }

    /// The variables of a `urlPathTemplate` in `path`, for templates (`request.path.name`).
    func pathVariables(_ path: String) -> [(name: String, value: String)] {
        if case .urlPathTemplate(let template) = url { return template.match(path) ?? [] }
        return []
    }

    private func describe(_ values: [String]) -> String {
        values.isEmpty ? "is absent" : "is " + values.map { "'\($0)'" }.joined(separator: ", ")
    }
}

extension RequestPattern {
    /// WireMock's order when several URL keys are given: the first present wins, the others are
    /// ignored (with a warning here).
    static let urlKeys = ["url", "urlPattern", "urlPath", "urlPathPattern", "urlPathTemplate"]

    /// A pattern whose warnings do not matter (the admin API's journal queries).
    static func parse(_ json: JSONValue, field: String = "request") throws(StubError) -> RequestPattern {
        var warnings: [StubError] = []
        return try parse(json, field: field, warnings: &warnings)
    }

    static func parse(_ json: JSONValue, field: String = "request", warnings: inout [StubError]) throws(StubError) -> RequestPattern {
        guard json.objectValue != nil else { throw StubError(field: field, message: "expected an object") }
        var pattern = RequestPattern()
        if let method = json["method"] {
            guard let name = method.stringValue?.uppercased() else { throw StubError(field: "\(field).method", message: "expected a string") }
            if name != "ANY" {
                guard let known = HTTPMethod(rawValue: name) else {
                    throw StubError(field: "\(field).method", message: "unknown method '\(name)'")
                }
                pattern.method = known
            }
        }
        if let scheme = json["scheme"] {
            guard let name = scheme.stringValue?.lowercased(), name == "http" || name == "https" else {
                throw StubError(field: "\(field).scheme", message: "expected \"http\" or \"https\"")
            }
            pattern.scheme = name
        }
        if let host = json["host"] {
            // WireMock takes a plain string as equalTo.
            pattern.host = try ContentPattern.parse(
                host.stringValue.map { .object([("equalTo", .string($0)), ("caseInsensitive", true)]) } ?? host, field: "\(field).host")
        }
        if let clientIp = json["clientIp"] {
            // A plain string is equalTo, as for host.
            pattern.clientIp = try ContentPattern.parse(
                clientIp.stringValue.map { .object([("equalTo", .string($0))]) } ?? clientIp, field: "\(field).clientIp")
        }
        if let port = json["port"] {
            guard let number = port.intValue, (1...65535).contains(number) else {
                throw StubError(field: "\(field).port", message: "expected a port number")
            }
            pattern.port = number
        }
        let urlKeys = Self.urlKeys.filter { json[$0] != nil }
        for ignored in urlKeys.dropFirst() {
            warnings.append(StubError(field: "\(field).\(ignored)", message: "ignored: \(urlKeys[0]) is also given and wins, as in WireMock"))
        }
        if let key = urlKeys.first {
            guard let text = json[key]?.stringValue else { throw StubError(field: "\(field).\(key)", message: "expected a string") }
            switch key {
            case "url": pattern.url = .url(text)
            case "urlPath": pattern.url = .urlPath(text)
            case "urlPathTemplate": pattern.url = .urlPathTemplate(try PathTemplate(text, field: "\(field).urlPathTemplate"))
            default:
                let regex: ContentPattern.Regex
                do { regex = try ContentPattern.Regex(text) } catch {
                    throw StubError(field: "\(field).\(key)", message: "invalid regular expression '\(text)'")
                }
                pattern.url = key == "urlPattern" ? .urlPattern(regex) : .urlPathPattern(regex)
            }
        }
        for (name, value) in json["pathParameters"]?.objectValue ?? [] {
            guard case .urlPathTemplate(let template) = pattern.url, template.variables.contains(name) else {
                throw StubError(field: "\(field).pathParameters.\(name)", message: "needs a urlPathTemplate with {\(name)}")
            }
            pattern.pathParameters.append((name, try ContentPattern.parse(value, field: "\(field).pathParameters.\(name)")))
        }
        pattern.queryParameters = try valuesPatterns(json["queryParameters"], field: "\(field).queryParameters")
        pattern.headers = try valuesPatterns(json["headers"], field: "\(field).headers")
        pattern.formParameters = try valuesPatterns(json["formParameters"], field: "\(field).formParameters")
        for (name, value) in json["cookies"]?.objectValue ?? [] {
            pattern.cookies.append((name, try ContentPattern.parse(value, field: "\(field).cookies.\(name)")))
        }
        // `basicAuth` is WireMock's other name for it.
        if let key = ["basicAuthCredentials", "basicAuth"].first(where: { json[$0] != nil }), let credentials = json[key] {
            guard let user = credentials["username"]?.stringValue, let password = credentials["password"]?.stringValue else {
                throw StubError(field: "\(field).\(key)", message: "expected {\"username\": …, \"password\": …}")
            }
            pattern.basicAuth = (user, password)
        }
        if let multipart = json["multipartPatterns"] {
            guard let items = multipart.arrayValue else { throw StubError(field: "\(field).multipartPatterns", message: "expected an array") }
            for (index, item) in items.enumerated() {
                pattern.multipartPatterns.append(try MultipartPattern.parse(item, field: "\(field).multipartPatterns[\(index)]"))
            }
        }
        if let matcher = json["customMatcher"] {
            let name = matcher["name"]?.stringValue
            guard name == GraphQLPattern.matcherName else {
                throw StubError(
                    field: "\(field).customMatcher.name",
                    message:
                        "\(name.map { "'\($0)'" } ?? "no name"): the one custom matcher Understudy has is \(GraphQLPattern.matcherName) (wiremock-graphql-extension's)"
                )
            }
            do {
                pattern.graphQL = try GraphQLPattern(parameters: matcher["parameters"] ?? .object([]))
            } catch {
                throw StubError(field: "\(field).customMatcher.parameters", message: error.description)
            }
        }
        if let body = json["bodyPatterns"] {
            guard let items = body.arrayValue else { throw StubError(field: "\(field).bodyPatterns", message: "expected an array") }
            for (index, item) in items.enumerated() {
                let body = try ContentPattern.parse(item, field: "\(field).bodyPatterns[\(index)]")
                if case .invalidJsonSchema(let reason) = body {
                    warnings.append(
                        StubError(
                            field: "\(field).bodyPatterns[\(index)]", message: "not a JSON schema (\(reason)): nothing matches it, as in WireMock"))
                }
                pattern.bodyPatterns.append(body)
            }
        }
        return pattern
    }

    static func valuesPatterns(_ json: JSONValue?, field: String) throws(StubError) -> [(String, ValuesPattern)] {
        guard let json else { return [] }
        guard let members = json.objectValue else { throw StubError(field: field, message: "expected an object of name → pattern") }
        var patterns: [(String, ValuesPattern)] = []
        for (name, value) in members {
            let here = "\(field).\(name)"
            if let exactly = value["hasExactly"] ?? value["includes"] {
                guard let items = exactly.arrayValue else { throw StubError(field: here, message: "expected an array of patterns") }
                var list: [ContentPattern] = []
                for (index, item) in items.enumerated() { list.append(try ContentPattern.parse(item, field: "\(here)[\(index)]")) }
                patterns.append((name, value["hasExactly"] != nil ? .hasExactly(list) : .includes(list)))
            } else {
                patterns.append((name, .single(try ContentPattern.parse(value, field: here))))
            }
        }
        return patterns
    }
}
