import Foundation
import HTTPServer
import JSON
import Logging
import MockCore
import Templating
import WorkLimits
import XML

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// WireMock's response templating: the request model templates read (`request.path`,
/// `request.query.x`, …) and the helpers the stub engine adds to the standard ones.
enum ResponseTemplating {
    /// The standard helpers plus `jsonPath`, `xPath`, `soapXPath`, the server's (`hostname`,
    /// `systemValue`, `log`) and `fixture` (a JSON or text file of the stub pack's folder, or of
    /// `stubs/`, for pages built from fixture data).
    static func helpers(fixtures: BodyFiles) -> TemplateHelpers {
        TemplateHelpers.standard
            .adding("jsonPath") { call throws(HelperError) in
                let document = try jsonDocument(call.param(0))
                let expression = try call.text(1, "a JSONPath expression")
                let path: JSONPath
                do throws(StubError) {
                    path = try JSONPath.parse(expression, field: "jsonPath")
                } catch {
                    throw HelperError(error.message)
                }
                let found: [JSONValue]
                do throws(JSONPath.SelectionBudgetExceeded) {
                    found = try path.evaluateWithinBudget(document)
                } catch {
                    throw selectionBudgetExceeded("jsonPath", expression)
                }
                if found.isEmpty { return call.hash["default"] ?? .null }
                return path.isDefinite && found.count == 1 ? printedAsJSON(found[0]) : printedAsJSON(.array(found))
            }
            .adding("xPath") { call throws(HelperError) in
                try xPath(call, call.text(1, "an XPath expression"))
            }
            // An XPath from inside a SOAP envelope's Body: `{{soapXPath request.body '/order/id/text()'}}`.
            .adding("soapXPath") { call throws(HelperError) in
                try xPath(call, "/Envelope/Body" + call.text(1, "an XPath expression"))
            }
            .adding("formatXml", takesBlock: true) { call throws(HelperError) in try formatXml(call) }
            .adding("jsonRemove") { call throws(HelperError) in try jsonRemove(call) }
            .adding("jsonArrayAdd", takesBlock: true) { call throws(HelperError) in try jsonArrayAdd(call) }
            .adding("hostname") { _ throws(HelperError) in .string(hostName) }
            .adding("systemValue") { call throws(HelperError) in try systemValue(call) }
            // Writes its arguments to the server's log and prints nothing, as WireMock's does.
            .adding("log") { call throws(HelperError) in
                let level =
                    call.hash["level"].flatMap { Logger.Level(rawValue: $0.text.lowercased() == "warn" ? "warning" : $0.text.lowercased()) } ?? .info
                templateLogger.log(level: level, "template: \(call.params.map(\.text).joined(separator: " "))")
                return .string("")
            }
            .adding("fixture") { call throws(HelperError) in
                let name = try call.text(0, "a file name in the stub folder")
                let data: [UInt8]
                do throws(StubError) {
                    data = Array(try fixtures.bytes(name, field: "fixture"))
                } catch {
                    throw HelperError(error.message)
                }
                guard name.lowercased().hasSuffix(".json") else { return .string(String(decoding: data, as: UTF8.self)) }
                do throws(JSONParseError) {
                    return TemplateValue(try JSONValue.parse(data))
                } catch {
                    throw HelperError("fixture '\(name)': line \(error.line), column \(error.column): \(error.message)")
                }
            }
    }

    private static let templateLogger = Logger(label: "understudy")

    /// WireMock 3.10's `{{#formatXml format='pretty'|'compact'}}…{{/formatXml}}` or `{{formatXml x}}`:
    /// the XML written out again (`XMLTree.formatted`), with WireMock's error texts.
    private static func formatXml(_ call: HelperCall) throws(HelperError) -> TemplateValue {
        let format = try FormattingCall(call, helper: "formatXml", what: "XML")
        guard let tree = try? XMLTree.parse(format.text) else { throw HelperError("Input is not valid XML") }
        return .string(tree.formatted(pretty: format.pretty))
    }

    /// WireMock 3's `{{jsonRemove json '$.path'}}`: the JSON without what the path selects (as it
    /// was when the path selects nothing), with WireMock's error texts.
    private static func jsonRemove(_ call: HelperCall) throws(HelperError) -> TemplateValue {
        guard case .string(let input) = call.param(0) else { throw HelperError("Input JSON must be a string") }
        if input == "null" { return .string(input) }
        guard call.params.count == 2 else { throw HelperError("A single JSONPath expression parameter must be supplied") }
        guard case .string(let expression) = call.param(1) else { throw HelperError("JSONPath parameter must be a string") }
        guard let document = try? JSONValue.parse(input) else { throw HelperError("Input JSON string is not valid JSON ('\(input)')") }
        guard !expression.isEmpty, let path = try? JSONPath.parse(expression, field: "jsonRemove") else {
            throw HelperError("JSONPath parameter is not a valid JSONPath expression ('\(expression)')")
        }
        let modified: JSONValue?
        do throws(JSONPath.SelectionBudgetExceeded) {
            modified = try path.modifying(document, { _ in nil })
        } catch {
            throw selectionBudgetExceeded("jsonRemove", expression)
        }
        guard let changed = modified else {
            throw HelperError("Delete operation cannot be applied to JSONPath expression ('\(expression)')")
        }
        return .string(changed == document ? input : changed.serialized)
    }

    /// A helper whose path selects too much stops with an error rather than answer with (or
    /// change) part of what it selects.
    private static func selectionBudgetExceeded(_ helper: String, _ expression: String) -> HelperError {
        if RequestBudget.isExhausted {
            RequestBudget.current?.attribute(to: helper)
            return HelperError.budgetExceeded(in: helper)
        }
        return HelperError("\(helper): '\(expression)' selects more than \(JSONPath.selectionBudget) values along the way; it gave no answer")
    }

    /// WireMock 3's `{{jsonArrayAdd json item}}` (or the item as the block): the JSON with `item`
    /// added to its array, or to the one `jsonPath=` names; `flatten=true` adds an array's items;
    /// `maxItems=n` keeps the last n.
    private static func jsonArrayAdd(_ call: HelperCall) throws(HelperError) -> TemplateValue {
        guard case .string(let input) = call.param(0) else { throw HelperError("Base JSON must be a string") }
        // `null` is JSON, but Jayway refuses it as a document, and WireMock says so.
        guard input != "null", let document = try? JSONValue.parse(input) else { throw HelperError("Base JSON is not valid JSON ('\(input)')") }
        var path: JSONPath?
        if let option = call.hash["jsonPath"] {
            guard case .string(let expression) = option else { throw HelperError("jsonPath option must be a string") }
            guard !expression.isEmpty, let parsed = try? JSONPath.parse(expression, field: "jsonPath"), parsed.isDefinite else {
                throw HelperError("jsonPath option is not valid JSONPath expression ('\(expression)')")
            }
            path = parsed
        }
        let itemText: TemplateValue = call.block.map(TemplateValue.string) ?? call.param(1)
        guard case .string(let itemSource) = itemText else { throw HelperError("Item-to-add JSON must be a string") }
        guard let item = try? JSONValue.parse(itemSource) else { throw HelperError("Item-to-add JSON is not valid JSON ('\(itemSource)')") }
        var flatten = false
        if let option = call.hash["flatten"] {
            guard case .bool(let flag) = option else { throw HelperError("flatten option must be a boolean") }
            flatten = flag
        }
        var maxItems: Int?
        if let option = call.hash["maxItems"] {
            guard case .number(let number) = option, number == number.rounded() else { throw HelperError("maxItems option must be an integer") }
            guard number >= 0 else { throw HelperError("maxItems option integer must be positive") }
            maxItems = Int(number)
        }
        func added(_ target: JSONValue) -> JSONValue? {
            guard case .array(var items) = target else { return nil }
            if flatten, case .array(let more) = item { items += more } else { items.append(item) }
            if let maxItems, items.count > maxItems { items.removeFirst(items.count - maxItems) }
            return .array(items)
        }
        let detail = path.map { "root: '\(input)', jsonPath: '\($0.source)'" } ?? "'\(input)'"
        guard let path else {
            guard let changed = added(document) else { throw HelperError("Target JSON is not a JSON array (\(detail))") }
            return .string(changed.serialized)
        }
        var isArray = false
        let changed: JSONValue?
        do throws(JSONPath.SelectionBudgetExceeded) {
            changed = try path.modifying(document) { target in
                guard let grown = added(target) else { return target }
                isArray = true
                return grown
            }
        } catch {
            throw selectionBudgetExceeded("jsonArrayAdd", path.source)
        }
        guard isArray, let changed else { throw HelperError("Target JSON is not a JSON array (\(detail))") }
        return .string(changed.serialized)
    }

    /// JSONPath results print as JSON, as WireMock prints them: objects pretty-printed, lists
    /// on one line; other values as themselves.
    private static func printedAsJSON(_ json: JSONValue) -> TemplateValue {
        let value = TemplateValue(json)
        switch json {
        case .object(let members) where !members.isEmpty:
            guard case .object(let object) = value else { return value }
            return .object(TemplateObject(object.members, printed: json.prettyPrinted()))
        case .object: return .object(TemplateObject([], printed: "{ }"))
        case .array(let items): return .object(TemplateObject([], printed: json.serialized, elements: items.map(TemplateValue.init)))
        default: return value
        }
    }

    private static func xPath(_ call: HelperCall, _ expression: String) throws(HelperError) -> TemplateValue {
        let found: [String]
        do { found = try XMLComparison.evaluateForTemplate(xPath: expression, in: call.param(0).text) } catch {
            throw HelperError(error.message)
        }
        if found.isEmpty { return call.hash["default"] ?? .null }
        return found.count == 1 ? .string(found[0]) : .array(found.map(TemplateValue.string))
    }

    /// The host's name, once.
    private static let hostName: String = {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "localhost" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }()

    /// Which keys `systemValue` may read: WireMock's default permission, so that a template
    /// cannot print the server's environment (secrets, paths) to a client.
    private static let permittedSystemKeys = try? NSRegularExpression(pattern: "^wiremock.*$", options: [.caseInsensitive])

    /// `{{systemValue type='ENVIRONMENT' key='wiremock.region'}}` (or `type='PROPERTY'`, of which a
    /// Swift server has none); a key not permitted prints WireMock's refusal.
    private static func systemValue(_ call: HelperCall) throws(HelperError) -> TemplateValue {
        guard let key = call.hash["key"]?.text else { throw HelperError("systemValue needs key=, e.g. {{systemValue key='wiremock.region'}}") }
        let type = call.hash["type"]?.text.uppercased() ?? "ENVIRONMENT"
        guard type == "ENVIRONMENT" || type == "PROPERTY" else { throw HelperError("systemValue: type must be ENVIRONMENT or PROPERTY") }
        guard let permitted = permittedSystemKeys,
            permitted.firstMatch(in: key, budgetNanoseconds: NSRegularExpression.matchBudgetNanoseconds) != .noMatch
        else {
            throw HelperError("Access to \(key) is denied")
        }
        return type == "ENVIRONMENT" ? ProcessInfo.processInfo.environment[key].map(TemplateValue.string) ?? .null : .null
    }

    private static func jsonDocument(_ value: TemplateValue) throws(HelperError) -> JSONValue {
        switch value {
        case .array, .object: return value.json
        case .null: throw HelperError("jsonPath needs JSON, e.g. {{jsonPath request.body '$.name'}}")
        default:
            do {
                return try JSONValue.parse(value.text)
            } catch {
                throw HelperError("jsonPath: the input is not JSON (line \(error.line), column \(error.column): \(error.message))")
            }
        }
    }

    /// The `request` a template sees, as WireMock models it, and the mapping's
    /// `transformerParameters` as `parameters`. A `urlPathTemplate`'s variables are members of
    /// `request.path` (`request.path.id`).
    /// The path and its segments are URL-decoded, as WireMock's are.
    static func context(for request: Request, parameters: TemplateValue, pathVariables: [(name: String, value: String)] = []) -> TemplateValue {
        .object(TemplateObject([("request", requestModel(request, pathVariables: pathVariables)), ("parameters", parameters)]))
    }

    /// The model of `request` alone: `request` in a response template, `originalRequest` in a webhook's.
    static func requestModel(_ request: Request, pathVariables: [(name: String, value: String)] = []) -> TemplateValue {
        let rawPath = request.rawPath
        let decodedPath = rawPath.removingPercentEncoding ?? rawPath
        // Split after decoding, as WireMock does: an encoded slash separates segments too.
        let segments = decodedPath.split(separator: "/").map { TemplateValue.string(String($0)) }
        let host = request.headers["Host"] ?? "localhost:\(request.localPort)"
        let path = TemplateValue.object(
            TemplateObject(
                pathVariables.map { ($0.name, TemplateValue.string($0.value)) },
                printed: decodedPath, elements: segments))
        // Prints as the path (WireMock's test requestLinePathSegments), indexes as a list.
        let pathSegments = TemplateValue.object(TemplateObject([], printed: decodedPath, elements: segments))
        let query = TemplateValue.object(grouped(request.queryItems.map { ($0.name, $0.value ?? "") }, caseInsensitive: false))
        let hostName = TemplateValue.string(String(host.split(separator: ":").first ?? ""))
        // A request that came over TLS (a tunnel, the https port) links back with https.
        let scheme = TemplateValue.string(request.scheme)
        let baseUrl = TemplateValue.string("\(request.scheme)://\(host)")
        let requestLine: [(key: String, value: TemplateValue)] = [
            ("method", .string(request.method.rawValue)),
            ("scheme", scheme),
            ("host", hostName),
            ("port", .number(Double(request.localPort))),
            ("path", .string(decodedPath)),
            ("pathSegments", pathSegments),
            ("query", query),
            ("baseUrl", baseUrl),
        ]
        let model: [(key: String, value: TemplateValue)] =
            [
                ("id", .string(request.id)),
                ("url", .string(request.target)),
                ("path", path),
                ("pathSegments", pathSegments),
                ("method", .string(request.method.rawValue)),
                ("scheme", scheme),
                ("host", hostName),
                ("port", .number(Double(request.localPort))),
                ("baseUrl", baseUrl),
                ("clientIp", .string(request.clientIP)),
                ("requestLine", .object(TemplateObject(requestLine))),
                ("query", query),
                ("headers", .object(grouped(request.headers.fields.map { ($0.name, $0.value) }, caseInsensitive: true))),
                ("cookies", .object(grouped(request.cookies.map { ($0.name, $0.value) }, caseInsensitive: false))),
                ("body", .string(request.bodyText)),
                ("bodyAsBase64", .string(Data(request.body).base64EncodedString())),
            ] + multipartModel(request)
        return .object(TemplateObject(model))
    }

    /// WireMock 3's `request.multipart` and `request.parts.NAME` (`name`, `headers`, `body`,
    /// `bodyAsBase64`, `binary`): the parts of a `multipart/…` body by their names.
    /// Unverified: WireMock's test for `binary`; here a part is binary when its bytes are not UTF-8.
    private static func multipartModel(_ request: Request) -> [(key: String, value: TemplateValue)] {
        let parts = MultipartBody.parts(of: request)
        guard !parts.isEmpty else { return [("multipart", .bool(false))] }
        let byName: [(key: String, value: TemplateValue)] = parts.map { part in
            let text = String(validating: part.body, as: UTF8.self)
            return (
                part.name ?? "",
                .object(
                    TemplateObject([
                        ("name", .string(part.name ?? "")),
                        ("headers", .object(grouped(part.headers.fields.map { ($0.name, $0.value) }, caseInsensitive: true))),
                        ("body", .string(text ?? String(decoding: part.body, as: UTF8.self))),
                        ("bodyAsBase64", .string(Data(part.body).base64EncodedString())),
                        ("binary", .bool(text == nil)),
                    ]))
            )
        }
        return [("multipart", .bool(true)), ("parts", .object(TemplateObject(byName)))]
    }

    /// Repeated names become one list-or-single value, in first-seen order.
    private static func grouped(_ pairs: [(String, String)], caseInsensitive: Bool) -> TemplateObject {
        var order: [String] = []
        var values: [String: [String]] = [:]
        for (name, value) in pairs {
            let key = caseInsensitive ? name.lowercased() : name
            if values[key] == nil { order.append(name) }
            values[key, default: []].append(value)
        }
        return TemplateObject(
            order.map { name in
                (name, .object(.listOrSingle(values[caseInsensitive ? name.lowercased() : name] ?? [])))
            }, caseInsensitive: caseInsensitive)
    }
}
