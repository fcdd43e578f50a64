import HTTPServer

/// The answer when no backend takes a request: what was asked and what is mounted, as text for
/// people or JSON for tools (`Accept: application/json`).
enum NotFoundPage {
    static func response(for request: Request, routes: [Router.Route]) -> Response {
        let summary = "No backend or stub answers \(request.method.rawValue) \(request.target)"
        if wantsJSON(request) {
            let mounted: [JSONValue] = routes.map { route in
                .object([("prefix", .string(route.prefix)), ("backend", .string(route.backend.name))])
            }
            let body: JSONValue = .object([
                ("status", 404),
                ("message", .string(summary)),
                ("request", .object([("method", .string(request.method.rawValue)), ("url", .string(request.target))])),
                ("mounted", .array(mounted)),
            ])
            return .json(body.serialized, status: 404)
        }
        let width = max(8, routes.map(\.prefix.count).max() ?? 0) + 2
        var text = summary + "\n\nMounted here (tried top to bottom):\n"
        for route in routes {
            text += "  " + route.prefix + String(repeating: " ", count: width - route.prefix.count) + route.backend.name + "\n"
        }
        return .text(text, status: 404)
    }

    static func wantsJSON(_ request: Request) -> Bool {
        guard let accept = request.headers["Accept"]?.lowercased() else { return false }
        return accept.contains("application/json") || accept.contains("+json")
    }
}
