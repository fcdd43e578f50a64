import Foundation
import HTTPServer
import JSON
import MockCore
import Templating
import WorkLimits

/// WireMock 3's webhooks: after a stub's answer has gone out, a request to another server, made
/// from the stub's `serveEventListeners` entries named `webhook` (or 2.x's `postServeActions`).
/// Its `method`, `url`, header values and `body` are templates over `originalRequest` (the
/// triggering request, as response templates see `request`) and `parameters` (the webhook's own
/// parameters). Defaults as WireMock's `WebhookDefinition`: method `GET`; a body only for
/// methods that carry one (POST, PUT, PATCH).
struct Webhook: Sendable {
    var method: Template
    var url: Template
    var headers: [(name: String, values: [Template])]
    var body: Body
    var delay: ResponseDefinition.DelayDistribution?
    var parameters: TemplateValue

    /// The longest `delay` a webhook may wait: a mapping asking for more is refused, so that no
    /// webhook outlives by long the mapping and the scope it came from (a lognormal draw is cut here).
    static let maxDelay: Duration = .seconds(60)

    enum Body: Sendable {
        case none
        case text(Template)
        case bytes([UInt8])
    }

    /// Every webhook of a mapping; a listener of another name is kept with a warning (it does nothing).
    static func parseAll(_ mapping: JSONValue, helpers: TemplateHelpers, warnings: inout [StubError]) throws(StubError) -> [Webhook] {
        var hooks: [Webhook] = []
        if let listeners = mapping["serveEventListeners"] {
            guard let entries = listeners.arrayValue else {
                throw StubError(field: "serveEventListeners", message: "expected an array of {\"name\", \"parameters\"}")
            }
            for (index, entry) in entries.enumerated() {
                let field = "serveEventListeners[\(index)]"
                guard let name = entry["name"]?.stringValue else { throw StubError(field: "\(field).name", message: "expected a listener's name") }
                guard name == "webhook" else {
                    warnings.append(
                        StubError(field: "\(field).name", message: "'\(name)' is not a listener Understudy has: ignored (it has 'webhook')"))
                    continue
                }
                hooks.append(try parse(entry["parameters"] ?? .object([]), helpers: helpers, field: "\(field).parameters"))
            }
        }
        switch mapping["postServeActions"] {
        case nil, .null?:
            break
        case .object(let actions)?:  // 2.x: {"webhook": {parameters}}
            for (name, parameters) in actions {
                guard name == "webhook" else {
                    warnings.append(StubError(field: "postServeActions.\(name)", message: "not an action Understudy has: ignored (it has 'webhook')"))
                    continue
                }
                hooks.append(try parse(parameters, helpers: helpers, field: "postServeActions.webhook"))
            }
        case .array(let actions)?:  // 3.x: [{"name": "webhook", "parameters": {…}}]
            for (index, action) in actions.enumerated() {
                let field = "postServeActions[\(index)]"
                guard action["name"]?.stringValue == "webhook" else {
                    warnings.append(StubError(field: "\(field).name", message: "not an action Understudy has: ignored (it has 'webhook')"))
                    continue
                }
                hooks.append(try parse(action["parameters"] ?? .object([]), helpers: helpers, field: "\(field).parameters"))
            }
        default:
            throw StubError(field: "postServeActions", message: "expected an object or an array of {\"name\", \"parameters\"}")
        }
        return hooks
    }

    static func parse(_ parameters: JSONValue, helpers: TemplateHelpers, field: String) throws(StubError) -> Webhook {
        func compile(_ source: String, _ at: String) throws(StubError) -> Template {
            do {
                return try Template(source, helpers: helpers)
            } catch {
                throw StubError(field: at, message: "template \(error)")
            }
        }
        guard parameters.objectValue != nil else { throw StubError(field: field, message: "expected an object of the webhook's parameters") }
        guard let urlText = parameters["url"]?.stringValue, !urlText.isEmpty else {
            throw StubError(field: "\(field).url", message: "a webhook needs a url (an http:// or https:// URL, or a template)")
        }
        let url = try compile(urlText, "\(field).url")
        if url.isConstant, WebhookTarget(url.render(.null)) == nil {
            throw StubError(field: "\(field).url", message: "'\(urlText)' is not an http:// or https:// URL")
        }
        let methodText = parameters["method"].map { $0.stringValue ?? "" } ?? "GET"
        guard !methodText.isEmpty else { throw StubError(field: "\(field).method", message: "expected a method name such as \"POST\"") }
        var headers: [(name: String, values: [Template])] = []
        if let given = parameters["headers"] {
            guard let members = given.objectValue else {
                throw StubError(field: "\(field).headers", message: "expected an object of names and values")
            }
            for (name, value) in members {
                let texts: [String]
                switch value {
                case .string(let text): texts = [text]
                case .array(let items): texts = items.map { $0.stringValue ?? $0.serialized }
                default: texts = [value.serialized]
                }
                var compiled: [Template] = []
                for text in texts { compiled.append(try compile(text, "\(field).headers.\(name)")) }
                headers.append((name, compiled))
            }
        }
        var body = Body.none
        if let text = parameters["body"] {
            guard let source = text.stringValue else { throw StubError(field: "\(field).body", message: "expected a string") }
            body = .text(try compile(source, "\(field).body"))
        } else if let encoded = parameters["base64Body"] {
            guard let text = encoded.stringValue, let data = Data(base64Encoded: text) else {
                throw StubError(field: "\(field).base64Body", message: "expected base64 text")
            }
            body = .bytes(Array(data))
        }
        let delay = try parameters["delay"].map { delay throws(StubError) in
            try ResponseDefinition.parseDistribution(delay, field: "\(field).delay")
        }
        let limit = Double(maxDelay.components.seconds * 1000)
        switch delay {
        case .uniform(_, let upper)? where upper > limit, .lognormal(let upper, _, _)? where upper > limit:
            throw StubError(field: "\(field).delay", message: "a webhook waits at most \(Int(limit)) ms, not \(upper)")
        case .lognormal(_, _, let maxValue?)? where maxValue > limit:
            throw StubError(field: "\(field).delay", message: "a webhook waits at most \(Int(limit)) ms: maxValue \(maxValue) is more")
        default: break
        }
        return Webhook(
            method: try compile(methodText, "\(field).method"), url: url, headers: headers, body: body, delay: delay,
            parameters: TemplateValue(parameters))
    }

    /// How long this webhook waits before it is sent: a draw of its `delay`, at most `maxDelay`.
    func sampledDelay() -> Duration {
        guard let drawn = delay?.sample() else { return .zero }
        return min(drawn, Self.maxDelay)
    }

    /// The request to send for `request`, its templates rendered within the request's CPU budget
    /// (one of its own when the answer went out later than the request, on a timer); nil with the
    /// reason when the rendered URL or method cannot be sent or the budget ran out.
    func rendered(for request: Request) -> Result<OutboundRequest, WebhookProblem> {
        RequestBudget.run {
            let rendered = renderedWithoutBudget(for: request)
            guard !RequestBudget.isExhausted else {
                return .failure(WebhookProblem("not sent: rendering it ran out of the request's CPU budget"))
            }
            return rendered
        }
    }

    private func renderedWithoutBudget(for request: Request) -> Result<OutboundRequest, WebhookProblem> {
        let context = TemplateValue.object(
            TemplateObject([("originalRequest", ResponseTemplating.requestModel(request)), ("parameters", parameters)]))
        let urlText = url.render(context).trimmingCharacters(in: .whitespaces)
        guard WebhookTarget(urlText) != nil else {
            return .failure(WebhookProblem("the webhook's url '\(LogText.escaped(urlText))' is not an http:// or https:// URL"))
        }
        let methodText = method.render(context).trimmingCharacters(in: .whitespaces).uppercased()
        guard let method = HTTPMethod(rawValue: methodText) else {
            return .failure(WebhookProblem("the webhook's method '\(LogText.escaped(methodText))' is not an HTTP method"))
        }
        var outbound = OutboundRequest(method: method, url: urlText, timeout: WebhookDispatch.deadline)
        for (name, values) in headers {
            for value in values {
                let text = value.render(context)
                guard !text.contains(where: { $0 == "\r" || $0 == "\n" }) else { continue }
                outbound.headers.add(name, text)
            }
        }
        if [.post, .put, .patch].contains(method) {
            switch body {
            case .none: break
            case .text(let template): outbound.body = Array(template.render(context).utf8)
            case .bytes(let bytes): outbound.body = bytes
            }
        }
        outbound.maxResponseBytes = WebhookDispatch.maxAnswerBytes
        return .success(outbound)
    }
}

struct WebhookProblem: Error {
    let message: String
    init(_ message: String) { self.message = message }
}

/// An `http(s)://` URL's host and port, as the outbound client will read it.
struct WebhookTarget {
    let secure: Bool
    let host: String
    let port: Int

    init?(_ url: String) {
        let lower = url.lowercased()
        let secure = lower.hasPrefix("https://")
        guard secure || lower.hasPrefix("http://") else { return nil }
        let rest = url.dropFirst(secure ? 8 : 7)
        let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        // Credentials in the URL are not sent: the host is after the last '@'.
        let hostPart = authority.split(separator: "@", omittingEmptySubsequences: false).last ?? authority
        guard !hostPart.isEmpty, let parsed = HostName.of(authority: hostPart) else { return nil }
        self.secure = secure
        host = parsed.host.lowercased()
        port = parsed.port ?? (secure ? 443 : 80)
    }
}
