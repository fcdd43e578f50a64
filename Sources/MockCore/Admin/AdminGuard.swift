import Foundation
import HTTPServer
import JSON

/// Who may call the admin API (`/__admin/…`), checked before any admin backend sees a request.
/// The threats are a web page in the developer's browser (a cross-origin "simple" request, or DNS
/// rebinding: a name of the attacker's that resolves to 127.0.0.1) and other hosts when the server
/// listens beyond loopback. Clients that are not browsers (curl, WireMock's clients, tests) send no
/// `Origin` and a loopback or IP `Host`, and pass unchanged.
public struct AdminGuard: Sendable {
    /// When set, every admin call but `GET /__admin/health` must carry it, as
    /// `Authorization: Bearer TOKEN` (or WireMock's `Authorization: Token TOKEN`).
    public var token: String?
    /// Host names, besides loopback names and IP literals, that admin requests may be addressed to.
    public var allowedHosts: Set<String>
    /// Origins (`http://localhost:3000`) whose pages may call the admin API besides the server's own:
    /// a browser-based test harness.
    public var allowedOrigins: Set<String>

    public init(token: String? = nil, allowedHosts: [String] = [], allowedOrigins: [String] = []) {
        self.token = token
        self.allowedHosts = Set(allowedHosts.map { $0.lowercased() })
        self.allowedOrigins = Set(allowedOrigins.map { $0.lowercased().trimmingCharacters(in: CharacterSet(charactersIn: "/")) })
    }

    /// nil when `request` may go on to the admin API, else the refusal to send. `isPublic`: its
    /// route needs no token (`AdminRoute.isPublic`).
    public func refusal(for request: Request, isPublic: Bool) -> Response? {
        let host = request.headers["Host"]
        let origin = request.headers["Origin"]
        let allowedOrigin = origin.map { allowedOrigins.contains($0.lowercased()) } ?? false
        if let origin, !allowedOrigin, !Self.isSameOrigin(origin, host: host) {
            return refuse(403, "a cross-origin request (Origin: \(origin)) may not call the admin API; allow it with --admin-origin \(origin)")
        }
        if !allowedOrigin, request.headers["Sec-Fetch-Site"]?.lowercased() == "cross-site" {
            return refuse(403, "a cross-site browser request may not call the admin API")
        }
        if let token, !isPublic {
            guard let presented = Self.presentedToken(request.headers["Authorization"]), Self.constantTimeEqual(presented, token) else {
                return refuse(401, "the admin API needs its token: send 'Authorization: Bearer TOKEN' (the token given with --admin-token)")
            }
        } else if let host, let name = Self.hostName(host), !isAllowed(name) {
            return refuse(
                403,
                "the admin API answers requests to loopback names and IP addresses only, not to '\(name)' "
                    + "(a guard against DNS rebinding); allow it with --admin-host \(name)")
        }
        if !request.body.isEmpty, let type = request.headers["Content-Type"], !Self.isAcceptedBodyType(type),
            Self.isCrossSiteBrowserRequest(origin: origin, host: host, fetchSite: request.headers["Sec-Fetch-Site"])
        {
            return refuse(415, "admin API bodies are JSON: send them as application/json, not '\(type)'")
        }
        return nil
    }

    private func isAllowed(_ name: String) -> Bool {
        name == "localhost" || name.hasSuffix(".localhost") || Self.isIPLiteral(name) || allowedHosts.contains(name)
    }

    private func refuse(_ status: Int, _ message: String) -> Response {
        .json(
            JSONValue.object([("errors", .array([.object([("code", .int(status)), ("title", .string(message))])]))]).serialized,
            status: status)
    }

    /// Whether a browser sent this from a page of another site (an allowed origin's, since others
    /// are refused before): only such a request can be a "simple" one that no preflight asked about.
    /// Browsers send `Origin` with every cross-origin POST, PUT and DELETE; clients that are not
    /// browsers send neither header (WireMock's Java client posts its JSON as `text/plain`).
    static func isCrossSiteBrowserRequest(origin: String?, host: String?, fetchSite: String?) -> Bool {
        if let fetchSite, !["same-origin", "none"].contains(fetchSite.lowercased()) { return true }
        guard let origin else { return false }
        return !isSameOrigin(origin, host: host)
    }

    /// JSON, or what curl sends with `-d` (`application/x-www-form-urlencoded`): browsers can send
    /// `text/plain` and `multipart/form-data` across origins without asking first, so from a
    /// cross-site browser request those are refused.
    static func isAcceptedBodyType(_ type: String) -> Bool {
        let media = type.split(separator: ";", maxSplits: 1).first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
        return media == "application/json" || media.hasSuffix("+json") || media == "application/x-www-form-urlencoded"
    }

    /// The Origin's authority must be the Host the request was sent to (the server's own pages).
    static func isSameOrigin(_ origin: String, host: String?) -> Bool {
        guard let host, let separator = origin.range(of: "://") else { return false }
        let scheme = origin[..<separator.lowerBound].lowercased()
        var authority = origin[separator.upperBound...].lowercased()
        if authority.hasSuffix("/") { authority.removeLast() }
        let defaultPort = scheme == "https" ? ":443" : ":80"
        let strip = { (value: String) in value.hasSuffix(defaultPort) ? String(value.dropLast(defaultPort.count)) : value }
        return (scheme == "http" || scheme == "https") && strip(authority) == strip(host.lowercased())
    }

    /// The host of a `Host` value, without its port or IPv6 brackets, lower-cased; nil if malformed.
    static func hostName(_ host: String) -> String? {
        let value = host.trimmingCharacters(in: .whitespaces).lowercased()
        if value.hasPrefix("[") {
            guard let close = value.firstIndex(of: "]") else { return nil }
            return String(value[value.index(after: value.startIndex)..<close])
        }
        return String(value.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false).first ?? "")
    }

    /// An IPv4 or IPv6 literal: no name to rebind, so the page that sent it came from this server.
    static func isIPLiteral(_ name: String) -> Bool {
        if name.contains(":") { return name.allSatisfy { $0.isHexDigit || $0 == ":" || $0 == "." } }
        let parts = name.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts.allSatisfy { part in !part.isEmpty && part.count <= 3 && part.allSatisfy { ("0"..."9").contains($0) } }
    }

    static func presentedToken(_ authorization: String?) -> String? {
        guard let authorization else { return nil }
        for scheme in ["bearer ", "token "] where authorization.lowercased().hasPrefix(scheme) {
            return String(authorization.dropFirst(scheme.count)).trimmingCharacters(in: .whitespaces)
        }
        return nil
    }

    /// Compares without stopping at the first difference, so timing says nothing of the token.
    static func constantTimeEqual(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8)
        let y = Array(b.utf8)
        var difference = UInt8(x.count == y.count ? 0 : 1)
        for index in 0..<max(x.count, y.count) {
            difference |= (index < x.count ? x[index] : 0) ^ (index < y.count ? y[index] : 0)
        }
        return difference == 0
    }
}
