import HTTPServer
import JSON

/// The answer when no backend takes a request: what was asked, the stubs that came closest and
/// why each missed (WireMock's near-miss report), and what is mounted; as text for people or
/// JSON for tools (`Accept: application/json`).
enum NotFoundPage {
    static func response(for request: Request, routes: [Router.Route], nearMisses: [NearMiss] = []) -> Response {
        let summary = "No backend or stub answers \(request.method.rawValue) \(request.target)"
        if wantsJSON(request) {
            let mounted: [JSONValue] = routes.map { route in
                .object([("prefix", .string(route.prefix)), ("backend", .string(route.backend.name))])
            }
            let misses: [JSONValue] = nearMisses.map { miss in
                .object([
                    ("summary", .string(miss.summary)), ("distance", .double(miss.distance)),
                    ("misses", .array(miss.misses.map(JSONValue.string))), ("stubMapping", miss.stub),
                ])
            }
            let body: JSONValue = .object([
                ("status", 404),
                ("message", .string(summary)),
                ("request", .object([("method", .string(request.method.rawValue)), ("url", .string(request.target))])),
                ("nearMisses", .array(misses)),
                ("mounted", .array(mounted)),
            ])
            return .json(body.serialized, status: 404)
        }
        var text = summary + "\n"
        if !nearMisses.isEmpty {
            text += "\nClosest stubs:\n"
            for (index, miss) in nearMisses.enumerated() {
                text += "  \(index + 1). \(miss.summary)\n"
                for reason in miss.misses { text += "       - \(reason)\n" }
            }
        }
        let width = max(8, routes.map(\.prefix.count).max() ?? 0) + 2
        text += "\nMounted here (tried top to bottom):\n"
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
