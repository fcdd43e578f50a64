import HTTPServer
import WireFormat

/// The scope a device's proxy client names with its credentials: `Proxy-Authorization: Basic`
/// whose user name is a scope name, as `curl -x http://ci-3:x@host:port`, the Android emulator's
/// `-http-proxy http://ci-3:x@host:port`, OkHttp's and Java's proxy authenticators and Python
/// `requests` send them. An unchanged app on a device then lands in its own scope.
public struct ProxyCredentials {
    /// The scope the credentials name, nil when the request carries none.
    public let scope: String?

    /// Reads the request's `Proxy-Authorization`. With `password` set, credentials are required
    /// and their password must be it (`407` with a challenge otherwise, which many clients wait
    /// for before they send any); without, the password is ignored.
    public init(of request: Request, password: String?) throws(ProxyRefusal) {
        guard let field = request.headers["Proxy-Authorization"] else {
            if password != nil {
                throw ProxyRefusal.challenge(
                    "this proxy wants credentials: the user name is the state scope, the password the one given with --proxy-password")
            }
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

    /// `Basic base64(user:password)` → (user, password). Bytes, not Foundation: this runs for every
    /// request a device sends through the proxy.
    private static func basic(_ field: String) throws(ProxyRefusal) -> (String, String) {
        let bytes = field.utf8
        let isBlank = { (byte: UInt8) in byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
        let start = bytes.firstIndex { !isBlank($0) } ?? bytes.endIndex
        let schemeEnd = bytes[start...].firstIndex(where: isBlank) ?? bytes.endIndex
        let scheme = bytes[start..<schemeEnd]
        var encoded = bytes[schemeEnd...]
        while let first = encoded.first, isBlank(first) { encoded = encoded.dropFirst() }
        while let last = encoded.last, isBlank(last) { encoded = encoded.dropLast() }
        guard scheme.count == 5, zip(scheme, "basic".utf8).allSatisfy({ $0 | 0x20 == $1 }), !encoded.isEmpty else {
            throw ProxyRefusal(status: 400, message: "Proxy-Authorization must be Basic credentials (user:password in base64)")
        }
        // Decoded with repair, then compared: no generic validating initializer on the request path.
        guard encoded.count <= 1024, let decoded = Base64.decode(encoded),
            case let text = String(decoding: decoded, as: UTF8.self), text.utf8.elementsEqual(decoded)
        else {
            throw ProxyRefusal(status: 400, message: "Proxy-Authorization's Basic credentials are not base64 of UTF-8 text")
        }
        guard let colon = decoded.firstIndex(of: UInt8(ascii: ":")) else {
            throw ProxyRefusal(status: 400, message: "Proxy-Authorization's Basic credentials have no ':' between user name and password")
        }
        let utf8 = text.utf8
        let split = utf8.index(utf8.startIndex, offsetBy: colon)
        return (String(text[..<split]), String(text[utf8.index(after: split)...]))
    }
}

/// Why a proxied request or `CONNECT` was refused for its credentials.
public struct ProxyRefusal: Error {
    public let status: Int
    public let message: String

    public init(status: Int, message: String) {
        self.status = status
        self.message = message
    }

    /// `407` with `Proxy-Authenticate: Basic realm="Understudy"`: what makes a client that waits
    /// for a challenge send its credentials.
    static func challenge(_ message: String) -> ProxyRefusal { ProxyRefusal(status: 407, message: message) }

    public var response: Response {
        var response = Response.text("Proxy credentials refused: \(message).\n", status: status)
        if status == 407 { response.headers.set("Proxy-Authenticate", #"Basic realm="Understudy""#) }
        return response
    }
}
