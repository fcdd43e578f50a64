import Foundation
import HTTPServer
import MockCore
import Templating

/// WireMock's response templating: the request model templates read (`request.path`,
/// `request.query.x`, …) and the helpers the stub engine adds to the standard ones.
enum ResponseTemplating {
    /// The standard helpers plus `jsonPath`, `xPath` and `fixture` (a JSON or text file of the
    /// stub pack's folder, or of `stubs/`, for pages built from fixture data).
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
                let found = path.evaluate(document)
                if found.isEmpty { return call.hash["default"] ?? .null }
                return path.isDefinite && found.count == 1 ? TemplateValue(found[0]) : .array(found.map(TemplateValue.init))
            }
            .adding("xPath") { call throws(HelperError) in
                let expression = try call.text(1, "an XPath expression")
                guard let found = XMLComparison.evaluate(xPath: expression, namespaces: [:], in: call.param(0).text) else {
                    throw HelperError("xPath: the input is not XML or '\(expression)' is not a valid XPath")
                }
                if found.isEmpty { return call.hash["default"] ?? .null }
                return found.count == 1 ? .string(found[0]) : .array(found.map(TemplateValue.string))
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
    static func context(for request: Request, parameters: TemplateValue, pathVariables: [(name: String, value: String)] = []) -> TemplateValue {
        let segments = request.rawPath.split(separator: "/").map { TemplateValue.string(String($0)) }
        let host = request.headers["Host"] ?? "localhost:\(request.localPort)"
        let model: [(key: String, value: TemplateValue)] = [
            ("url", .string(request.target)),
            ("path", .object(TemplateObject(pathVariables.map { ($0.name, TemplateValue.string($0.value)) },
                                            printed: String(request.rawPath), elements: segments))),
            ("pathSegments", .array(segments)),
            ("method", .string(request.method.rawValue)),
            ("scheme", .string("http")),
            ("host", .string(String(host.split(separator: ":").first ?? ""))),
            ("port", .number(Double(request.localPort))),
            ("baseUrl", .string("http://\(host)")),
            ("clientIp", .string(request.remoteAddress)),
            ("query", .object(grouped(request.queryItems.map { ($0.name, $0.value ?? "") }, caseInsensitive: false))),
            ("headers", .object(grouped(request.headers.fields.map { ($0.name, $0.value) }, caseInsensitive: true))),
            ("cookies", .object(grouped(request.cookies.map { ($0.name, $0.value) }, caseInsensitive: false))),
            ("body", .string(request.bodyText)),
            ("bodyAsBase64", .string(Data(request.body).base64EncodedString())),
        ]
        return .object(TemplateObject([("request", .object(TemplateObject(model))), ("parameters", parameters)]))
    }

    /// Repeated names become one list-or-single value, in first-seen order.
    private static func grouped(_ pairs: [(String, String)], caseInsensitive: Bool) -> TemplateObject {
        var order: [String] = [], values: [String: [String]] = [:]
        for (name, value) in pairs {
            let key = caseInsensitive ? name.lowercased() : name
            if values[key] == nil { order.append(name) }
            values[key, default: []].append(value)
        }
        return TemplateObject(order.map { name in
            (name, .object(.listOrSingle(values[caseInsensitive ? name.lowercased() : name] ?? [])))
        }, caseInsensitive: caseInsensitive)
    }
}
