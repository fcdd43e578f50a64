import HTTPServer

/// A storefront request as the views and commands see it: its parameters (query and form body,
/// as a servlet merges them), language, device, and the cookies that say whose session it is.
struct StoreRequest {
    let request: Request
    let parameters: [QueryItem]
    let language: StoreLanguage
    let device: DeviceFormat
    /// The request's cookies, parsed once.
    let cookies: [(name: String, value: String)]
    /// The session the cookies name, if it is still valid.
    var session: ShopperSession?
    /// The cookies named a session this server does not know (expired, or reset since).
    var sessionExpired: Bool { session == nil && !staleUserIds.isEmpty }
    /// Users whose session cookies are no longer valid: cleared when a new session is set.
    var staleUserIds: [Int] = []
    /// `/__scope/NAME` when the request came under that prefix: links and redirects keep it.
    var basePath = ""
    /// `https://host[:port]` of this store over TLS ("" when already on it; nil: no TLS).
    var secureOrigin: String?

    init(_ request: Request) {
        self.request = request
        var parameters = request.queryItems
        if request.method == .post,
            (request.headers["Content-Type"] ?? "").lowercased().hasPrefix("application/x-www-form-urlencoded")
        {
            parameters += FormURLEncoding.decode(request.bodyText)
        }
        self.parameters = parameters
        let cookies = request.cookies
        self.cookies = cookies
        let activePointer = Self.cookie("WC_ACTIVEPOINTER", in: cookies).map { PercentDecoding.decode($0, plusAsSpace: false) }
        language = StoreLanguage(
            langId: parameters.first { $0.name == "langId" }?.value
                ?? activePointer?.split(separator: ",").first.map(String.init))
        if let forced = parameters.first(where: { $0.name == "deviceFormat" })?.value.flatMap(DeviceFormat.init(name:))
            ?? Self.cookie(DeviceFormat.cookie, in: cookies).flatMap(DeviceFormat.init(name:))
        {
            device = forced
        } else {
            device = DeviceFormat(userAgent: request.headers["User-Agent"] ?? "")
        }
    }

    func cookie(_ name: String) -> String? { Self.cookie(name, in: cookies) }

    private static func cookie(_ name: String, in cookies: [(name: String, value: String)]) -> String? {
        cookies.first { $0.name == name }?.value
    }

    subscript(name: String) -> String? {
        parameters.first { $0.name == name }?.value
    }

    /// A parameter as text, empty when absent.
    func text(_ name: String) -> String {
        (self[name] ?? "").trimmingWhitespace()
    }

    /// The user ids and tokens the cookies carry: `WC_AUTHENTICATION_<id>=<id>,<token>`.
    var sessionCookies: [(userId: Int, token: String)] {
        cookies.compactMap { cookie in
            guard cookie.name.hasPrefix("WC_AUTHENTICATION_"), let userId = Int(cookie.name.dropFirst("WC_AUTHENTICATION_".count)) else { return nil }
            let value = PercentDecoding.decode(cookie.value, plusAsSpace: false)
            guard let comma = value.firstIndex(of: ",") else { return nil }
            return (userId, String(value[value.index(after: comma)...]))
        }
    }
}

extension StoreRequest {
    /// The same request with other parameters (taken from an SEO URL, or with a message added),
    /// for the same session.
    init(_ request: Request, parameters: [QueryItem], from original: StoreRequest) {
        var copy = request
        copy.queryItems = parameters
        self.init(copy)
        session = original.session
        staleUserIds = original.staleUserIds
        basePath = original.basePath
        secureOrigin = original.secureOrigin
    }
}

/// The cookies WebSphere Commerce 7 sets, as it names and encodes them (values URL-encoded, so
/// `,` is `%2C`). Unverified beyond the names: the fields after the store id in
/// `WC_USERACTIVITY_*`. Not `Secure`, unlike a production store over https: the emulator is
/// reached over plain http.
enum StoreCookies {
    static func established(storeId: String, language: StoreLanguage) -> [String] {
        [
            "WC_SESSION_ESTABLISHED=true; Path=/",
            "WC_ACTIVEPOINTER=\(language.rawValue)%2C\(storeId); Path=/",
        ]
    }

    static func session(_ session: ShopperSession, storeId: String, language: StoreLanguage) -> [String] {
        let token = session.token.percentEncoded
        return established(storeId: storeId, language: language) + [
            "WC_USERACTIVITY_\(session.userId)=\(session.userId)%2C\(storeId)%2Cnull%2Cnull%2Cnull%2Cnull%2Cnull%2Cnull%2Cnull%2Cnull%2Cnull; Path=/",
            "WC_AUTHENTICATION_\(session.userId)=\(session.userId)%2C\(token); Path=/; HttpOnly",
        ]
    }

    /// Expires the session cookies of `userId`.
    static func cleared(userId: Int) -> [String] {
        [
            "WC_USERACTIVITY_\(userId)=; Path=/; Max-Age=0; Expires=Thu, 01 Jan 1970 00:00:10 GMT",
            "WC_AUTHENTICATION_\(userId)=; Path=/; Max-Age=0; Expires=Thu, 01 Jan 1970 00:00:10 GMT",
        ]
    }
}

extension String {
    /// Percent-encoded so the value holds no `;`, `,`, `=`, `+`, `/` or space.
    var percentEncoded: String {
        var out = ""
        for byte in utf8 {
            if (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || byte == 0x2D || byte == 0x2E
                || byte == 0x5F
            {
                out.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                out += "%" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
            }
        }
        return out
    }

    func leftPadded(to width: Int) -> String { count >= width ? self : String(repeating: "0", count: width - count) + self }
}
