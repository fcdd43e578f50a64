import Foundation
import HTTPServer

/// The scope a device's proxy client names with its credentials: `Proxy-Authorization: Basic`
/// whose user name is a scope name, as `curl -x http://ci-3:x@host:port`, the Android emulator's
/// `-http-proxy http://ci-3:x@host:port`, OkHttp's and Java's proxy authenticators and Python
/// `requests` send them. An unchanged app on a device then lands in its own scope.
struct ProxyCredentials {
    /// The scope the credentials name, nil when the request carries none.
    let scope: String?

    /// Reads the request's `Proxy-Authorization`. With `password` set, credentials are required
    /// and their password must be it (`407` with a challenge otherwise, which many clients wait
    /// for before they send any); without, the password is ignored.
    init(of request: Request, password: String?) throws(ProxyRefusal) {
        guard let field = request.headers["Proxy-Authorization"] else {
            if password != nil { throw ProxyRefusal.challenge("this proxy wants credentials: the user name is the state scope, the password the one given with --proxy-password") }
            scope = nil
            return
        }
        let (user, given) = try Self.basic(field)
        if let password, given != password {
            throw ProxyRefusal.challenge("the proxy password is not the one given with --proxy-password")
        }
        if let problem = ScopeSelection.problem(with: user) {
            throw ProxyRefusal(status: 400, message: "\(problem) (the user name of Proxy-Authorization names the state scope)")
        }
        scope = user
    }

    /// `Basic base64(user:password)` → (user, password).
    private static func basic(_ field: String) throws(ProxyRefusal) -> (String, String) {
        let parts = field.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "basic" else {
            throw ProxyRefusal(status: 400, message: "Proxy-Authorization must be Basic credentials (user:password in base64)")
        }
        let encoded = parts[1].trimmingCharacters(in: .whitespaces)
        guard encoded.utf8.count <= 1024, let data = Data(base64Encoded: encoded), let text = String(data: data, encoding: .utf8) else {
            throw ProxyRefusal(status: 400, message: "Proxy-Authorization's Basic credentials are not base64 of UTF-8 text")
        }
        guard let colon = text.firstIndex(of: ":") else {
            throw ProxyRefusal(status: 400, message: "Proxy-Authorization's Basic credentials have no ':' between user name and password")
        }
        return (String(text[..<colon]), String(text[text.index(after: colon)...]))
    }
}

/// Why a proxied request or `CONNECT` was refused for its credentials.
struct ProxyRefusal: Error {
    let status: Int
    let message: String

    /// `407` with `Proxy-Authenticate: Basic realm="Understudy"`: what makes a client that waits
    /// for a challenge send its credentials.
    static func challenge(_ message: String) -> ProxyRefusal { ProxyRefusal(status: 407, message: message) }

    var response: Response {
        var response = Response.text("Proxy credentials refused: \(message).\n", status: status)
        if status == 407 { response.headers.set("Proxy-Authenticate", #"Basic realm="Understudy""#) }
        return response
    }
}
