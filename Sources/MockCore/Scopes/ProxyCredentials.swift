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
        if let password, !Self.sameSecret(given, password) {
            throw ProxyRefusal.challenge("the proxy password is not the one given with --proxy-password")
        }
        if let problem = ScopeSelection.problem(with: user) {
            throw ProxyRefusal(status: 400, message: "\(problem) (the user name of Proxy-Authorization names the state scope)")
        }
        scope = user
    }

    /// Whether `given` is `expected`, in a time that does not depend on where they differ: every
    /// byte of `expected` is compared whatever came before, so the time a refusal takes does not
    /// tell a guesser how much of the password was right. (Its length may show; its bytes do not.)
    static func sameSecret(_ given: String, _ expected: String) -> Bool {
        let given = Array(given.utf8)
        var difference: UInt8 = given.count == expected.utf8.count ? 0 : 1
        var index = 0
        for byte in expected.utf8 {
            // Past the end of `given`, a byte that always differs, so the loop still runs its full length.
            difference |= byte ^ (index < given.count ? given[index] : ~byte)
            index += 1
        }
        return difference == 0
    }

    /// `field` (a `Proxy-Authorization` value) as the journal keeps it: the scheme and, for Basic
    /// credentials whose user name is a valid scope name, the user name, with the password (or
    /// any other scheme's token) replaced by `[redacted]`, e.g. `Basic ci-3:[redacted]`. The
    /// journal is served to anyone who may call the admin API and shown in the dashboard;
    /// the proxy password is not theirs to read.
    public static func redacted(_ field: String) -> String {
        // A scheme is shown only when credentials follow it: a lone word may be the secret itself.
        let words = field.split(maxSplits: 1, whereSeparator: { $0 == " " || $0 == "\t" })
        let isScheme = { (word: Substring) in
            word.utf8.count <= 32 && word.utf8.allSatisfy { $0 == UInt8(ascii: "-") || ($0 | 0x20 >= 0x61 && $0 | 0x20 <= 0x7A) }
        }
        let shownScheme = words.count == 2 && isScheme(words[0]) ? String(words[0]) + " " : ""
        if let (user, _) = try? basic(field), ScopeSelection.problem(with: user) == nil {
            return "\(shownScheme)\(user):\(redactionMark)"
        }
        return shownScheme + redactionMark
    }

    /// Replaces the value of every `Proxy-Authorization` field of `headers` with `redacted(_:)`,
    /// in place and in order; headers without one (nearly all) are only scanned.
    public static func redact(_ headers: inout HTTPHeaders) {
        guard headers.contains(fieldName) else { return }
        headers = HTTPHeaders(
            headers.fields.map { field in
                HTTPHeaders.namesEqual(field.name, fieldName) ? HTTPHeader(name: field.name, value: redacted(field.value)) : field
            })
    }

    static let fieldName = "Proxy-Authorization"

    /// What stands in for a secret the journal does not keep.
    public static let redactionMark = "[redacted]"

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
