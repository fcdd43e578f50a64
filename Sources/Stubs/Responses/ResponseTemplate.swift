import Foundation
import HTTPServer
import JSON
import MockCore
import Templating
import WorkLimits

/// The templated parts of a response, compiled when the mapping loads (so template errors are
/// load errors with line and column) and rendered per request. Parts without a tag are rendered
/// once, at load.
struct ResponseTemplate: Sendable {
    var headers: [(name: String, value: Template)]
    var body: Template?
    /// A `bodyFileName` that is itself a template: the file is read and rendered per request.
    var bodyFileName: Template?
    /// Whether a file body is rendered (`transformerParameters.disableBodyFileTemplating`).
    var templatesBodyFile: Bool
    var parameters: TemplateValue
    let files: BodyFiles
    let helpers: TemplateHelpers

    /// The template for a mapping's `response`, with its constant parts folded into `response`;
    /// nil when nothing varies per request.
    static func parse(_ json: JSONValue, response: inout Response, in directory: StubDirectory, field: String) throws(StubError) -> ResponseTemplate?
    {
        func compile(_ source: String, _ at: String) throws(StubError) -> Template {
            do {
                return try Template(source, helpers: directory.helpers)
            } catch {
                throw StubError(field: at, message: "template \(error)")
            }
        }
        let parameters = json["transformerParameters"] ?? .object([])
        var template = ResponseTemplate(
            headers: [], templatesBodyFile: parameters["disableBodyFileTemplating"]?.boolValue != true,
            parameters: TemplateValue(parameters), files: directory.files, helpers: directory.helpers)
        for header in response.headers.fields {
            template.headers.append((header.name, try compile(header.value, "\(field).headers.\(header.name)")))
        }
        if let text = json["body"]?.stringValue {
            template.body = try compile(text, "\(field).body")
        } else if let body = json["jsonBody"] {
            template.body = try compile(body.serialized, "\(field).jsonBody")
        } else if let name = json["bodyFileName"]?.stringValue {
            let nameTemplate = try compile(name, "\(field).bodyFileName")
            if !nameTemplate.isConstant {
                template.bodyFileName = nameTemplate
            } else if template.templatesBodyFile, try directory.files.exists(name, field: "\(field).bodyFileName") {
                let text = String(decoding: try directory.files.bytes(name, field: "\(field).bodyFileName"), as: UTF8.self)
                template.body = try compile(text, "\(field).bodyFileName (\(name))")
            }
        }
        if template.headers.allSatisfy(\.value.isConstant) {
            var folded = HTTPHeaders()
            for (name, value) in template.headers { folded.add(name, value.render(.null)) }
            response.headers = folded
            template.headers = []
        }
        if let body = template.body, body.isConstant {
            response.body = ResponseBody(shared: SharedBytes(Array(body.render(.null).utf8)))
            template.body = nil
        }
        return template.headers.isEmpty && template.body == nil && template.bodyFileName == nil ? nil : template
    }

    /// `base` with its headers and body rendered for `request`.
    func render(_ base: Response, for request: Request, pathVariables: [(name: String, value: String)]) -> Response {
        let context = ResponseTemplating.context(for: request, parameters: parameters, pathVariables: pathVariables)
        var response = base
        if !headers.isEmpty {
            var rendered = HTTPHeaders()
            for (name, value) in headers { rendered.add(name, Self.singleLine(value.render(context))) }
            response.headers = rendered
        }
        if let body {
            response.body = ResponseBody(body.render(context))
        } else if let bodyFileName {
            let name = bodyFileName.render(context)
            do {
                let bytes = try files.bytes(name, field: "bodyFileName")
                if templatesBodyFile {
                    let text = try Template(String(decoding: bytes, as: UTF8.self), helpers: helpers).render(context)
                    response.body = ResponseBody(text)
                } else {
                    response.body = ResponseBody(Array(bytes))
                }
            } catch let error as StubError {
                // The rendered name points at no file: for a path built from the request, that is
                // the request's fault, so 404 rather than 500.
                return .text("No body file for this request: \(error.message)\n", status: 404)
            } catch {
                return .text("The body file '\(name)' is not a valid template: \(error)\n", status: 500)
            }
        }
        if let place = RequestBudget.current?.exhaustedIn {
            return .text(
                "This stub's response template was stopped: the request's work budget (\(RequestBudget.limitDescription)) ran out in \(place).\n",
                status: 500)
        }
        return response
    }

    /// A rendered header value must stay one header line.
    private static func singleLine(_ text: String) -> String {
        text.contains(where: { $0 == "\r" || $0 == "\n" })
            ? text.replacingOccurrences(of: "\r", with: " ").replacingOccurrences(of: "\n", with: " ") : text
    }
}
