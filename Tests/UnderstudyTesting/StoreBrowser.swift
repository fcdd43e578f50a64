import Foundation
import HTTPServer

/// A minimal browser, as the hybrid app's web view behaves: it keeps the cookies the store sets
/// (and drops expired ones), follows redirects, submits forms with their hidden fields, and
/// collects the `madisons://` links a page offers. It browses a server over raw connections, or
/// the router in memory (`BackendTester`).
public final class StoreBrowser {
    /// A request (method, target, header fields, body) and its answer, every header as sent.
    typealias Exchange = (String, String, [(String, String)], String?) throws -> RawHTTPConnection.Response
    private let exchange: Exchange
    public var userAgent: String
    public private(set) var cookies: [(name: String, value: String)] = []
    /// Set-Cookie lines of the last answer (redirects included).
    public private(set) var lastSetCookies: [String] = []

    public static let iPhoneHybrid = "Mozilla/5.0 (iPhone; CPU iPhone OS 5_0 like Mac OS X) AppleWebKit/534.46 (KHTML, like Gecko) Mobile/9A334"
    public static let iPadHybrid = "Mozilla/5.0 (iPad; CPU OS 5_0 like Mac OS X) AppleWebKit/534.46 (KHTML, like Gecko) Mobile/9A334"
    public static let mobileSafari =
        "Mozilla/5.0 (iPhone; CPU iPhone OS 5_0 like Mac OS X) AppleWebKit/534.46 (KHTML, like Gecko) Version/5.1 Mobile/9A334 Safari/7534.48.3"

    /// Over a raw connection to `server`, one a request.
    public init(_ server: TestServer, userAgent: String = StoreBrowser.iPhoneHybrid) {
        exchange = { method, target, headers, body in
            let connection = try server.connect()
            var text = "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1:\(server.port)\r\nConnection: close\r\n"
            for (name, value) in headers { text += "\(name): \(value)\r\n" }
            if let body { text += "Content-Length: \(body.utf8.count)\r\n" }
            try connection.send(text + "\r\n" + (body ?? ""))
            return try connection.readResponse()
        }
        self.userAgent = userAgent
    }

    /// Through the router in memory.
    public init(_ tester: BackendTester, userAgent: String = StoreBrowser.iPhoneHybrid) {
        exchange = { method, target, headers, body in
            tester.rawAndWait(method, target, headers: headers, body: body ?? "")
        }
        self.userAgent = userAgent
    }

    public struct Page {
        public var status: Int
        public var target: String
        public var headers: [(name: String, value: String)]
        public var html: String

        public func header(_ name: String) -> String? { headers.first { $0.name.lowercased() == name.lowercased() }?.value }

        /// Every `href` on the page, entities decoded.
        public var links: [String] { Self.matches(#"href="([^"]*)""#, in: html).map(Self.decode) }

        public func link(containing text: String) -> String? { links.first { $0.contains(text) } }

        /// The `madisons://` bridge links.
        public var bridgeLinks: [String] { links.filter { $0.hasPrefix("madisons://") } }

        /// Text of the element with this id (tags stripped).
        public func text(id: String) -> String? {
            guard let range = html.range(of: "id=\"\(id)\"") else { return nil }
            let after = html[range.upperBound...]
            guard let open = after.firstIndex(of: ">") else { return nil }
            let rest = after[after.index(after: open)...]
            let end = rest.range(of: "</")?.lowerBound ?? rest.endIndex
            return String(rest[..<end]).replacingOccurrences(of: #"<[^>]+>"#, with: "", options: .regularExpression)
                .trimmingCharacters(in: .whitespacesAndNewlines)
        }

        /// A form's action and its hidden and pre-filled fields.
        public func form(_ id: String) -> (action: String, method: String, fields: [(String, String)])? {
            guard let start = html.range(of: "<form id=\"\(id)\"") else { return nil }
            let rest = html[start.lowerBound...]
            let body = rest[..<(rest.range(of: "</form>")?.upperBound ?? rest.endIndex)]
            let tag = String(body[..<(body.firstIndex(of: ">") ?? body.endIndex)])
            let action = Self.matches(#"action="([^"]*)""#, in: tag).first.map(Self.decode) ?? ""
            let method = Self.matches(#"method="([^"]*)""#, in: tag).first ?? "get"
            var fields: [(String, String)] = []
            for input in Self.matches(#"(<input [^>]*>)"#, in: String(body)) {
                guard let name = Self.matches(#"name="([^"]*)""#, in: input).first else { continue }
                if input.contains("type=\"radio\"") && !input.contains("checked") { continue }
                if input.contains("type=\"checkbox\"") { continue }
                fields.append((name, Self.decode(Self.matches(#"value="([^"]*)""#, in: input).first ?? "")))
            }
            return (action, method, fields)
        }

        public static func matches(_ pattern: String, in text: String) -> [String] {
            let expression = try! NSRegularExpression(pattern: pattern)
            return expression.matches(in: text, range: NSRange(text.startIndex..., in: text)).compactMap { match in
                Range(match.range(at: 1), in: text).map { String(text[$0]) }
            }
        }

        public static func decode(_ text: String) -> String {
            text.replacingOccurrences(of: "&#x3D;", with: "=").replacingOccurrences(of: "&quot;", with: "\"")
                .replacingOccurrences(of: "&#x27;", with: "'").replacingOccurrences(of: "&lt;", with: "<")
                .replacingOccurrences(of: "&gt;", with: ">").replacingOccurrences(of: "&amp;", with: "&")
        }
    }

    public func get(_ target: String, follow: Bool = true) throws -> Page {
        try request("GET", target, body: nil, follow: follow)
    }

    public func post(_ target: String, _ fields: [(String, String)], follow: Bool = true) throws -> Page {
        let body = fields.map { "\(Self.encode($0.0))=\(Self.encode($0.1))" }.joined(separator: "&")
        return try request("POST", target, body: body, follow: follow)
    }

    /// Submits a form of `page`: its fields, with `values` filled in (replacing fields of the same name).
    public func submit(_ page: Page, form id: String, _ values: [(String, String)] = []) throws -> Page {
        guard let form = page.form(id) else { throw BrowserError.noForm(id, page.target) }
        var fields = form.fields.filter { field in !values.contains { $0.0 == field.0 } }
        fields += values
        if form.method.lowercased() == "post" { return try post(form.action, fields) }
        let query = fields.map { "\(Self.encode($0.0))=\(Self.encode($0.1))" }.joined(separator: "&")
        return try get(form.action + (form.action.contains("?") ? "&" : "?") + query)
    }

    private func request(_ method: String, _ target: String, body: String?, follow: Bool) throws -> Page {
        var headers = [("User-Agent", userAgent)]
        if !cookies.isEmpty { headers.append(("Cookie", cookies.map { "\($0.name)=\($0.value)" }.joined(separator: "; "))) }
        if body != nil { headers.append(("Content-Type", "application/x-www-form-urlencoded")) }
        let response = try exchange(method, target, headers, body)
        let setCookies = response.headers.filter { $0.name.lowercased() == "set-cookie" }.map(\.value)
        lastSetCookies = setCookies
        for line in setCookies { remember(line) }
        if follow, response.status == 302, let location = response.header("Location") {
            let previous = setCookies
            let page = try get(location)
            lastSetCookies = previous + lastSetCookies
            return page
        }
        return Page(status: response.status, target: target, headers: response.headers, html: response.bodyText)
    }

    private func remember(_ line: String) {
        let pair = line.split(separator: ";", maxSplits: 1).first.map(String.init) ?? ""
        guard let equals = pair.firstIndex(of: "=") else { return }
        let name = String(pair[..<equals])
        let value = String(pair[pair.index(after: equals)...])
        cookies.removeAll { $0.name == name }
        if !line.contains("Max-Age=0") { cookies.append((name, value)) }
    }

    public func cookie(_ name: String) -> String? { cookies.first { $0.name == name }?.value }

    public func setCookie(_ name: String, _ value: String) {
        cookies.removeAll { $0.name == name }
        cookies.append((name, value))
    }

    public static func encode(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._*")
        return (text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text)
    }

    public enum BrowserError: Error { case noForm(String, String) }
}

extension StoreBrowser.Page {
    public func link(containing text: String, where condition: (String) -> Bool) -> String? {
        links.first { $0.contains(text) && condition($0) }
    }
}
