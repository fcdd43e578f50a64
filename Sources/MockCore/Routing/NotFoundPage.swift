import HTTPServer
import JSON

/// The answer when no backend takes a request: what was asked, the stubs that came closest and
/// why each missed (WireMock's near-miss report), what is mounted, and where the dashboard is; as
/// text for people, JSON for tools (`Accept: application/json`), or a page with the dashboard a
/// click away for a browser (`Accept: text/html`, as a browser asks for `/`).
enum NotFoundPage {
    static let dashboard = "/__admin/ui/"

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
        text += "\nEvery request, why each missed, and the stubs: the dashboard, \(dashboard)\n"
        guard wantsHTML(request) else { return .text(text, status: 404) }
        let page =
            "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>404: \(escaped(summary))</title></head><body>"
            + "<p><a href=\"\(dashboard)\">Open the dashboard</a>: every request, why each missed, and the stubs.</p>"
            + "<pre>\(escaped(text))</pre></body></html>"
        var response = Response.text(page, status: 404)
        response.headers.set("Content-Type", "text/html; charset=utf-8")
        return response
    }

    /// A browser's page load (`text/html` named before any JSON).
    static func wantsHTML(_ request: Request) -> Bool {
        guard let accept = request.headers["Accept"]?.lowercased() else { return false }
        return accept.contains("text/html") && !wantsJSON(request)
    }

    private static func escaped(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.append(character)
            }
        }
        return out
    }

    static func wantsJSON(_ request: Request) -> Bool {
        guard let accept = request.headers["Accept"]?.lowercased() else { return false }
        return accept.contains("application/json") || accept.contains("+json")
    }
}
