import HTTPServer
import MockCore
import Templating

/// A matched mapping's answer: rendered if it is a template, then proxied, delayed or sent.
enum StubReply {
    static func reply(_ candidate: Candidate, to request: Request, globalDelay: GlobalSettings.Delay?) -> Reply {
        if globalDelay == nil, let plain = candidate.plainResponse { return .response(plain) }
        let mapping = candidate.mapping
        let definition = mapping.response
        let delay = definition.delay(globally: globalDelay)
        if let fault = definition.fault {
            return .deferred { reply in
                if let delay { reply.loop.schedule(after: delay) { reply.fail(with: fault) } } else { reply.fail(with: fault) }
            }
        }
        if let base = definition.proxyBaseURL {
            var headers = request.headers
            headers.remove("Host")
            for name in definition.removeProxyRequestHeaders { headers.remove(name) }
            for field in definition.additionalProxyRequestHeaders { headers.set(field.name, field.value) }
            var target = Substring(request.target)
            if let prefix = definition.proxyURLPrefixToRemove, !prefix.isEmpty, target.hasPrefix(prefix) { target = target.dropFirst(prefix.count) }
            // What follows the base must be a path or a query: `/api@other:9999/x` less `/api`, or
            // `/svc.evil.test/x` less `/svc`, would otherwise name another host.
            guard target.isEmpty || target.first == "/" || target.first == "?", URLOrigin(base + target) == URLOrigin(base) else {
                return .response(
                    .text(
                        "This proxy stub forwards paths under \(base) only: '\(request.target)' would leave it"
                            + (definition.proxyURLPrefixToRemove.map { " once '\($0)' is taken off" } ?? "") + ".\n", status: 400))
            }
            let outbound = OutboundRequest(method: request.method, url: base + target, headers: headers, body: request.body)
            return .deferred { reply in
                reply.loop.send(outbound) { result in
                    let response: Response
                    switch result {
                    case .success(let answer): response = answer
                    case .failure(let error): response = .text("Proxying to \(base) failed: \(error)\n", status: 502)
                    }
                    if let delay { reply.send(response, after: delay) } else { reply.send(response) }
                }
            }
        }
        var response = definition.response
        if let template = definition.template {
            response = template.render(response, for: request, pathVariables: mapping.request.pathVariables(request.rawPath))
        }
        if var events = definition.eventStream {
            let first = events.start(after: request.headers["Last-Event-ID"])
            if events.isTemplated {
                events = events.rendered(
                    in: ResponseTemplating.context(
                        for: request, parameters: definition.template?.parameters ?? .object(TemplateObject([])),
                        pathVariables: mapping.request.pathVariables(request.rawPath)))
            }
            return .deferred { [response] reply in
                let start = {
                    var head = response
                    head.body = ResponseBody([UInt8]())
                    if let stream = reply.startStream(head) { events.play(on: stream, from: first) }
                }
                if let delay { reply.loop.schedule(after: delay, start) } else { start() }
            }
        }
        if let (chunks, duration) = definition.dribble {
            return .deferred { [response] reply in
                let start = { reply.sendDribbled(response, chunks: chunks, over: duration) }
                if let delay { reply.loop.schedule(after: delay, start) } else { start() }
            }
        }
        guard let delay else { return .response(response) }
        return .deferred { [response] reply in reply.send(response, after: delay) }
    }
}
