import Foundation
import HTTPServer
import JSON
import MockCore
import Stubs

/// Traffic checked against an OpenAPI document (`serve --openapi`, a stubs folder's
/// `openapi.yaml`): a request's path, method, parameters and body, an answer's status, content
/// type and body. Bodies are checked when they are JSON (`application/json`, `…+json`); other
/// bodies (XML, forms) only by content type. Everything here is the server's own code: the
/// document was read once, when the server started.
public final class OpenAPIContract: ContractCheck {
    public let enforcement: ContractEnforcement
    /// The document's file.
    public let path: String
    public let operations: [SpecOperation]
    private let routes: [PathRoute]
    /// The indices of `routes` whose template has as many segments as the index.
    private let routesBySegments: [[Int]]
    private let basePathWithSlash: String
    private let schemas: JSONSchema
    /// The first server's path (`/v1`), under which the document's paths are served too.
    let basePath: String

    /// The checks of `document` (read by OpenAPIContracts' `SpecDocument.read`), its schemas
    /// compiled once.
    public init(document: SpecDocument, enforcement: ContractEnforcement) throws(SpecError) {
        self.enforcement = enforcement
        path = document.path
        let json = document.version.hasPrefix("3.0.") ? Dialect30.normalized(document.json) : document.json
        operations = try SpecOperation.all(in: document)
        basePath = Self.basePath(of: document.json)
        var routes: [PathRoute] = []
        for (index, operation) in operations.enumerated() {
            if let known = routes.firstIndex(where: { $0.template == operation.path }) {
                routes[known].operations.append(index)
            } else {
                routes.append(PathRoute(template: operation.path, operation: index))
            }
        }
        self.routes = routes
        var routesBySegments = Array(repeating: [Int](), count: (routes.map(\.segments.count).max() ?? 0) + 1)
        for (index, route) in routes.enumerated() { routesBySegments[route.segments.count].append(index) }
        self.routesBySegments = routesBySegments
        basePathWithSlash = basePath + "/"
        var pointers: [String] = []
        for operation in operations {
            pointers += operation.parameters.compactMap(\.schema) + operation.body.compactMap(\.schema)
            pointers += operation.answers.flatMap { $0.content.compactMap(\.schema) }
        }
        do {
            schemas = try JSONSchema(document: json, schemasAt: pointers)
        } catch {
            throw document.error(at: error.field, error.message)
        }
    }

    /// The path of the first server's URL (`https://api.example.com/v1` → `/v1`), its variables
    /// at their defaults; "" when it has none.
    public static func basePath(of json: JSONValue) -> String {
        guard let server = json["servers"]?.arrayValue?.first, var url = server["url"]?.stringValue else { return "" }
        for (name, variable) in server["variables"]?.objectValue ?? [] {
            url = url.replacingOccurrences(of: "{\(name)}", with: variable["default"]?.stringValue ?? "")
        }
        var path = Substring(url)
        if let scheme = path.range(of: "://") {
            path = path[scheme.upperBound...]
            path = path.firstIndex(of: "/").map { path[$0...] } ?? ""
        }
        while path.hasSuffix("/") { path = path.dropLast() }
        return String(path)
    }

    /// What `value` breaks of the schema at `pointer`.
    public func schemaViolation(of value: JSONValue, against pointer: String) -> SchemaViolation? {
        schemas.firstViolation(of: value, against: pointer)
    }

    // MARK: Requests

    public func check(request: Request, explainingUncovered: Bool) -> ContractFinding {
        let path = request.rawPath
        guard let (route, captures) = findRoute(path) else {
            guard explainingUncovered else { return ContractFinding(covered: false, operation: nil, violations: []) }
            let uncovered = violation(.request, nil, "path", "#/paths", "no path of the contract matches \(path)")
            return ContractFinding(covered: false, operation: nil, violations: [uncovered])
        }
        let method = request.method.rawValue
        guard let index = operationIndex(in: route, for: request) else {
            // A browser's CORS preflight is the browser's, not the app's: not the contract's business.
            if request.method == .options, request.headers["Access-Control-Request-Method"] != nil {
                return ContractFinding(covered: true, operation: nil, violations: [])
            }
            let allowed = route.operations.map { operations[$0].method }.joined(separator: ", ")
            let at = "#/paths/" + JSONPointer.escaped(route.template)
            let wrongMethod = violation(.request, route.template, "method", at, "\(route.template) has no \(method) operation (it has \(allowed))")
            return ContractFinding(covered: true, operation: nil, violations: [wrongMethod])
        }
        let operation = operations[index]
        var found: [ContractViolation] = []
        for parameter in operation.parameters {
            let values = values(of: parameter, in: request, captures: captures)
            let pointer = "\(parameter.location.rawValue).\(parameter.name)"
            guard !values.isEmpty else {
                if parameter.required {
                    found.append(
                        violation(
                            .request, operation.name, pointer, operation.pointer + "/parameters",
                            "required \(parameter.location.rawValue) parameter is missing"))
                }
                continue
            }
            guard let schema = parameter.schema else { continue }
            if let broken = schemas.firstViolation(of: Self.typed(values, parameter), against: schema) {
                found.append(violation(.request, operation.name, pointer + broken.instancePointer, broken.schemaPointer, broken.rule))
            }
        }
        found += checkBody(
            request.body, contentType: request.headers["Content-Type"], of: operation, media: operation.body, part: .request,
            required: operation.bodyRequired, at: operation.pointer + "/requestBody")
        return ContractFinding(covered: true, operation: index, violations: found)
    }

    /// A parameter's values in the request: path captures, query items, header fields, cookies.
    private func values(of parameter: SpecOperation.Parameter, in request: Request, captures: [String: String]) -> [String] {
        switch parameter.location {
        case .path: return captures[parameter.name].map { [$0.removingPercentEncoding ?? $0] } ?? []
        case .query:
            let values = request.queryItems.filter { $0.name == parameter.name }.map { $0.value ?? "" }
            return parameter.commaSeparated ? values.flatMap { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) } : values
        case .header: return request.headers.values(for: parameter.name)
        case .cookie: return request.cookies.filter { $0.name == parameter.name }.map(\.value)
        }
    }

    /// Text values read as the schema's type says (`limit=20` is the integer 20): a value that
    /// does not read as it stays a string, which the type check then refuses.
    static func typed(_ values: [String], _ parameter: SpecOperation.Parameter) -> JSONValue {
        guard parameter.type == "array" else { return scalar(values.last ?? "", type: parameter.type) }
        return .array(values.map { scalar($0, type: parameter.itemType) })
    }

    private static func scalar(_ text: String, type: String?) -> JSONValue {
        switch type {
        case "integer": return Int(text).map(JSONValue.int) ?? .string(text)
        case "number": return Double(text).map { $0.isFinite ? JSONValue.double($0) : .string(text) } ?? .string(text)
        case "boolean": return text == "true" ? .bool(true) : text == "false" ? .bool(false) : .string(text)
        case "null": return text.isEmpty ? .null : .string(text)
        default: return .string(text)
        }
    }

    // MARK: Answers

    public func operation(for request: Request) -> Int? {
        findRoute(request.rawPath).flatMap { operationIndex(in: $0.0, for: request) }
    }

    public func check(response: Response, to request: Request, operation index: Int) -> [ContractViolation] {
        guard operations.indices.contains(index) else { return [] }
        let operation = operations[index]
        guard let answer = operation.answer(for: response.status) else {
            let documented = operation.answers.map(\.code).joined(separator: ", ")
            return [
                violation(
                    .response, operation.name, "status", operation.pointer + "/responses",
                    "status \(response.status) is not documented (\(documented.isEmpty ? "none is" : documented))")
            ]
        }
        var found: [ContractViolation] = []
        for name in answer.requiredHeaders where response.headers[name] == nil {
            found.append(violation(.response, operation.name, "header.\(name)", answer.pointer + "/headers", "required header is missing"))
        }
        // A body sent from a file is not read back to check it.
        guard response.body.file == nil, request.method != .head else { return found }
        return found
            + checkBody(
                response.body.bytes, contentType: response.headers["Content-Type"], of: operation, media: answer.content, part: .response,
                required: false, at: answer.pointer)
    }

    // MARK: Bodies

    private func checkBody(
        _ body: [UInt8], contentType: String?, of operation: SpecOperation, media: [SpecOperation.MediaType], part: ContractViolation.Part,
        required: Bool, at pointer: String
    ) -> [ContractViolation] {
        guard !body.isEmpty else {
            return required ? [violation(part, operation.name, "", pointer, "the body is required but empty")] : []
        }
        guard !media.isEmpty else { return [] }
        let given = contentType.map(Self.mediaType) ?? ""
        guard let chosen = Self.choose(given, from: media) else {
            let allowed = media.map(\.name).joined(separator: ", ")
            return [
                violation(
                    part, operation.name, "content-type", pointer + "/content",
                    "\(given.isEmpty ? "no Content-Type" : given) is not one the contract allows (\(allowed))")
            ]
        }
        guard Self.isJSONMediaType(given.isEmpty ? chosen.type : given), let schema = chosen.schema else { return [] }
        let instance: JSONValue
        do {
            instance = try JSONValue.parse(body)
        } catch {
            return [violation(part, operation.name, "", schema, "the body is not JSON: \(error)")]
        }
        guard let broken = schemas.firstViolation(of: instance, against: schema) else { return [] }
        return [violation(part, operation.name, broken.instancePointer, broken.schemaPointer, broken.rule)]
    }

    /// `application/json; charset=utf-8` → `application/json`.
    /// Made on bytes, for each checked body: the whitespace trimmed is HTTP's (spaces and tabs) and
    /// the case folded ASCII's, as media types are tokens.
    public static func mediaType(_ header: String) -> String {
        let bytes = header.utf8.prefix { $0 != UInt8(ascii: ";") }
        let isSpace = { (byte: UInt8) in byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
        guard let first = bytes.firstIndex(where: { !isSpace($0) }), let last = bytes.lastIndex(where: { !isSpace($0) }) else { return "" }
        let folded = bytes[first...last].map { (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) ? $0 | 0x20 : $0 }
        return String(decoding: folded, as: UTF8.self)
    }

    public static func isJSON(_ type: String) -> Bool { isJSONMediaType(mediaType(type)) }

    /// Whether a type `mediaType` made is JSON (`application/json`, `application/problem+json`).
    static func isJSONMediaType(_ type: String) -> Bool { type == "application/json" || type.hasSuffix("+json") }

    /// The documented media type for `given`: the same, else its `type/*`, else `*/*`.
    static func choose(_ given: String, from media: [SpecOperation.MediaType]) -> SpecOperation.MediaType? {
        if let exact = media.first(where: { $0.type == given }) { return exact }
        let family = given.split(separator: "/").first.map { "\($0)/*" }
        if let family, let ranged = media.first(where: { $0.type == family }) { return ranged }
        return media.first { $0.type == "*/*" }
    }

    // MARK: Paths

    private struct PathRoute {
        let template: String
        var operations: [Int]
        /// Each segment after the leading "/": its bytes when literal, nil for a `{parameter}`
        /// (its name in `names`).
        let segments: [[UInt8]?]
        let names: [String?]

        init(template: String, operation: Int) {
            self.template = template
            operations = [operation]
            let parts = template.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
            segments = parts.map { $0.hasPrefix("{") && $0.hasSuffix("}") ? nil : Array($0.utf8) }
            names = parts.map { $0.hasPrefix("{") && $0.hasSuffix("}") ? String($0.dropFirst().dropLast()) : nil }
        }

        /// The parameters' raw values when `parts`, a path's segments, are this template's.
        func match(_ parts: [Substring.UTF8View]) -> [String: String]? {
            guard parts.count == segments.count else { return nil }
            var captures: [String: String] = [:]
            for (index, part) in parts.enumerated() {
                if let literal = segments[index] {
                    guard part.elementsEqual(literal) else { return nil }
                } else {
                    guard !part.isEmpty, let name = names[index] else { return nil }
                    captures[name] = String(Substring(part))
                }
            }
            return captures
        }
    }

    /// The route of `path` (as written, or under the base path): literal templates before ones
    /// with parameters, as OpenAPI says. A path whose number of segments no template has costs a
    /// count of its slashes: every request a server with a contract answers comes here.
    private func findRoute(_ path: String) -> (PathRoute, [String: String])? {
        if let found = bestRoute(path[...]) { return found }
        guard !basePath.isEmpty, path.hasPrefix(basePathWithSlash) else { return nil }
        return bestRoute(path.dropFirst(basePath.count))
    }

    private func bestRoute(_ path: Substring) -> (PathRoute, [String: String])? {
        // The segments after the first "/" are as many as the path's slashes.
        let slash = UInt8(ascii: "/")
        var path = path
        let count = path.withUTF8 { bytes in bytes.reduce(0) { $1 == slash ? $0 + 1 : $0 } }
        guard count < routesBySegments.count, !routesBySegments[count].isEmpty else { return nil }
        let candidates = routesBySegments[count]
        let parts = Array(path.utf8.split(separator: slash, omittingEmptySubsequences: false).dropFirst())
        var best: (route: PathRoute, captures: [String: String])?
        for index in candidates {
            guard let captures = routes[index].match(parts) else { continue }
            if captures.count < best?.captures.count ?? Int.max { best = (routes[index], captures) }
        }
        return best
    }

    /// The index of the operation `request` is for: its method's, or for a HEAD the GET's (HTTP
    /// allows HEAD wherever GET is, and documents seldom list it).
    private func operationIndex(in route: PathRoute, for request: Request) -> Int? {
        let method = request.method.rawValue
        return route.operations.first { operations[$0].method == method }
            ?? (request.method == .head ? route.operations.first { operations[$0].method == "GET" } : nil)
    }

    private func violation(_ part: ContractViolation.Part, _ operation: String?, _ pointer: String, _ location: String, _ rule: String)
        -> ContractViolation
    {
        ContractViolation(part: part, operation: operation, pointer: pointer, specLocation: location, rule: rule)
    }
}
