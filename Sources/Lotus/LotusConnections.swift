import Foundation
import HTTPServer
import MockCore
import WireFormat

/// The Connections components over the loaded directory (what `LotusBackend` loads): reads are
/// answered from the fixtures and the scope's writes; answers of reads are cached per scope until
/// the next write.
final class LotusConnections: Sendable {
    let settings: LotusSettings
    let directory: LotusDirectory
    /// Each scope's writes.
    private let scopes: ScopeKey<LotusScope>
    /// Rendered answers of every scope, under one cap.
    private let cache: AnswerCache
    /// Mount prefixes with their trailing slash, longest first.
    private let prefixes: [String]

    /// The components, and the pages of the features known only by their stories (where the
    /// stories link).
    static let services = ["/news", "/profiles", "/blogs", "/search"]
    static let components = services + StoryKind.otherSources.sorted().map { "/\($0)/html" }
    private static let componentPrefixes = components.map { $0 + "/" }

    /// `prefixes`: the settings' prefixes with their trailing slash, longest first (the backend's).
    init(
        settings: LotusSettings, prefixes: [String], directory: LotusDirectory, scopes: ScopeKey<LotusScope>, cache: AnswerCache
    ) {
        self.settings = settings
        self.prefixes = prefixes
        self.directory = directory
        self.scopes = scopes
        self.cache = cache
    }

    /// `path` without the longest of `prefixes` that holds it, and that prefix (without its
    /// slash); nil when what is left is no component's.
    static func component(of path: String, prefixes: [String]) -> (path: String, prefix: String)? {
        var path = path
        var prefix = ""
        for candidate in prefixes where path.hasPrefix(candidate) {
            prefix = String(candidate.dropLast())
            path.removeFirst(prefix.count)
            break
        }
        guard components.contains(path) || componentPrefixes.contains(where: { path.hasPrefix($0) }) else { return nil }
        return (path, prefix)
    }

    // MARK: Requests

    func handle(_ request: Request, _ context: RequestContext) -> Reply {
        let scope = context.scope[scopes]
        let headers = LotusHeaders(request.headers)
        // A repeated read is answered before anything else is worked out: its key is what the
        // answer depends on (target, host, credentials, languages), as sent.
        let isRead = request.method == .get || request.method == .head
        var key = ""
        if isRead {
            // Over TLS the links are https: the same target is another answer.
            key =
                (request.isSecure ? "https\u{0}" : "") + context.basePath + request.target + "\u{0}" + (headers.host ?? "") + "\u{0}"
                + (headers.authorization ?? "") + "\u{0}" + (headers.acceptLanguage ?? "")
            if let cached = cache.response(for: key, in: scope.name, generation: scope.generation) {
                return .response(ConditionalGET.answer(headers, cached))
            }
        }
        guard let (path, prefix) = Self.component(of: request.path, prefixes: prefixes) else { return .decline }
        return .response(answer(request, context, scope, headers, key: key, path: path, prefix: prefix, directory))
    }

    /// A request of one of the components, `path` without its mount `prefix`.
    private func answer(
        _ request: Request, _ context: RequestContext, _ scope: LotusScope, _ headers: LotusHeaders,
        key: String, path: String, prefix: String, _ directory: LotusDirectory
    ) -> Response {
        let host = headers.host ?? "127.0.0.1:\(request.localPort)"
        let lang = request.query("lang")
        let acceptLanguage = headers.acceptLanguage
        let labels = lang == nil && acceptLanguage == nil ? LotusLabels.english : LotusLabels(lang: lang, acceptLanguage: acceptLanguage)

        // Credentials, when sent, must be right; a protected resource then asks for them.
        var user: Person?
        if let authorization = headers.authorization {
            guard let person = basicUser(authorization, directory) else { return challenge(request, basePath: context.basePath) }
            user = person
        }
        let view = View(
            request: request, headers: headers, basePath: context.basePath, base: request.scheme + "://" + host + context.basePath + prefix,
            path: path, user: user, labels: labels, directory: directory)
        switch request.method {
        case .get, .head:
            return read(view, scope, key: key)
        case .post, .put:
            return write(view, scope)
        default:
            return error(.methodNotAllowed, labels)
        }
    }

    /// What a request asks, before the data it reads is taken.
    private struct View {
        let request: Request
        let headers: LotusHeaders
        /// The scope's path prefix the request came under, or "".
        let basePath: String
        /// Where links start: `http://host` (`https://` for a request that came over TLS: a tunnel
        /// or the https port) with the scope prefix and the mount prefix.
        let base: String
        let path: String
        let user: Person?
        let labels: LotusLabels
        let directory: LotusDirectory

        func with(_ content: LotusContent, now: AtomDate) -> LotusRequest {
            LotusRequest(request: request, base: base, path: path, user: user, labels: labels, content: content, now: now)
        }
    }

    /// A read the cache did not have: rendered from the scope's data, kept for the next time,
    /// answered 304 when the client's copy is current.
    private func read(_ view: View, _ scope: LotusScope, key: String) -> Response {
        let snapshot = scope.snapshot()
        let lotus = view.with(LotusContent(directory: view.directory, state: snapshot.state), now: AtomDate.now(fixed: settings.now))
        let response: Response
        do {
            response = respond(try route(lotus), lotus.labels)
        } catch {
            if error.status == 401 { return challenge(view.request, basePath: view.basePath) }
            return self.error(error, lotus.labels)
        }
        if response.status == 200 {
            cache.store(response, for: key, in: scope.name, generation: snapshot.generation)
        }
        return ConditionalGET.answer(view.headers, response)
    }

    private func route(_ lotus: LotusRequest) throws(LotusError) -> Rendered {
        if lotus.path.hasSuffix("/serviceconfigs") { return ServiceConfigs.render(lotus) }
        if let page = HTMLPages.render(lotus) { return page }
        switch lotus.path.split(separator: "/").first {
        case "news": return try NewsFeeds.handle(lotus)
        case "profiles": return try ProfilesAPI.handle(lotus)
        case "blogs": return try BlogsAPI.handle(lotus)
        default: return try SearchAPI.handle(lotus)
        }
    }

    /// A write, applied to the scope's state at once (so it shows in the next read).
    private func write(_ view: View, _ scope: LotusScope) -> Response {
        guard let entry = AtomEntry.parse(view.request.body) else { return error(.badEntry, view.labels) }
        let method = view.request.method
        let parts = view.path.split(separator: "/").map(String.init)
        let now = AtomDate.now(fixed: settings.now)
        do {
            let rendered = try scope.write { state throws(LotusError) -> Rendered in
                // Read what is current, under the lock: another write may have come first.
                let current = view.with(LotusContent(directory: view.directory, state: state), now: now)
                switch (method, view.path) {
                case (.put, "/profiles/atom/mv/theboard/entry/status.do"): return try ProfilesAPI.putStatus(current, entry, &state)
                case (.post, "/profiles/atom/mv/theboard/entries.do"): return try ProfilesAPI.postMessage(current, entry, &state)
                case (.post, "/profiles/atom/mv/theboard/comments.do"): return try ProfilesAPI.postComment(current, entry, &state)
                case (.post, "/news/atom/stories/saved"): return try NewsFeeds.save(current, entry, &state)
                case (.post, _) where parts.count == 4 && parts[0] == "blogs" && parts[2] == "api" && parts[3] == "entries":
                    return try BlogsAPI.postEntry(current, parts[1], entry, &state)
                case (.post, _) where parts.count == 5 && parts[0] == "blogs" && parts[2] == "api" && parts[3] == "entrycomments":
                    return try BlogsAPI.postComment(current, parts[1], parts[4], entry, &state)
                default: throw LotusError.methodNotAllowed
                }
            }
            return respond(rendered, view.labels)
        } catch {
            if error.status == 401 { return challenge(view.request, basePath: view.basePath) }
            return self.error(error, view.labels)
        }
    }

    private func basicUser(_ authorization: String, _ directory: LotusDirectory) -> Person? {
        guard authorization.lowercased().hasPrefix("basic "),
            let decoded = Data(base64Encoded: String(authorization.dropFirst(6)).trimmingCharacters(in: .whitespaces)),
            let text = String(data: decoded, encoding: .utf8), let colon = text.firstIndex(of: ":")
        else { return nil }
        return directory.authenticate(String(text[..<colon]), String(text[text.index(after: colon)...]))
    }

    /// 401 with a Basic challenge (after a redirect to HTTPS when configured, as 2.5 does).
    private func challenge(_ request: Request, basePath: String) -> Response {
        if settings.httpsRedirect {
            let host = request.headers["Host"] ?? "localhost"
            return Response(status: 302, headers: ["Location": "https://\(host)\(basePath)\(request.target)"])
        }
        var response = error(.unauthorized, .english)
        response.headers.add("WWW-Authenticate", "Basic realm=\"\(settings.realm)\"")
        return response
    }

    private func respond(_ rendered: Rendered, _ labels: LotusLabels) -> Response {
        var headers: HTTPHeaders = ["Content-Type": rendered.contentType, "Content-Language": labels.contentLanguage]
        if rendered.status == 200, !rendered.body.isEmpty {
            headers.add("ETag", ConditionalGET.etag(rendered.body))
            if let lastModified = rendered.lastModified { headers.add("Last-Modified", lastModified.httpDate) }
        }
        for (name, value) in rendered.headers { headers.add(name, value) }
        return Response(status: rendered.status, headers: headers, body: ResponseBody(shared: SharedBytes(rendered.body)))
    }

    private func error(_ error: LotusError, _ labels: LotusLabels) -> Response {
        Response(
            status: error.status, headers: ["Content-Type": "text/xml;charset=UTF-8", "Content-Language": labels.contentLanguage],
            body: ResponseBody(error.body))
    }
}

/// `If-None-Match` and `If-Modified-Since` against an answer's `ETag` and `Last-Modified`.
enum ConditionalGET {
    /// A strong validator: FNV-1a over the body.
    static func etag(_ body: [UInt8]) -> String {
        "\"" + String(FNV1a.hash(body), radix: 16) + "\""
    }

    static func answer(_ request: LotusHeaders, _ response: Response) -> Response {
        guard response.status == 200, request.ifNoneMatch != nil || request.ifModifiedSince != nil else { return response }
        if let tags = request.ifNoneMatch, let etag = response.headers["ETag"] {
            guard tags == "*" || tags.split(separator: ",").contains(where: { $0.trimmingCharacters(in: .whitespaces) == etag }) else {
                return response
            }
            return notModified(response)
        }
        if let since = request.ifModifiedSince.flatMap(AtomDate.init(httpDate:)),
            let modified = response.headers["Last-Modified"].flatMap(AtomDate.init(httpDate:)), modified <= since
        {
            return notModified(response)
        }
        return response
    }

    private static func notModified(_ response: Response) -> Response {
        var headers = HTTPHeaders()
        for name in ["ETag", "Last-Modified", "Content-Language"] {
            if let value = response.headers[name] { headers.add(name, value) }
        }
        return Response(status: 304, headers: headers)
    }
}

/// The request headers Lotus reads, found in one pass over the fields.
struct LotusHeaders {
    var host: String?
    var authorization: String?
    var acceptLanguage: String?
    var ifNoneMatch: String?
    var ifModifiedSince: String?

    init(_ headers: HTTPHeaders) {
        for field in headers.fields {
            switch field.name.utf8.count {
            case 4 where host == nil && HTTPHeaders.namesEqual(field.name, "Host"): host = field.value
            case 13 where authorization == nil && HTTPHeaders.namesEqual(field.name, "Authorization"): authorization = field.value
            case 13 where ifNoneMatch == nil && HTTPHeaders.namesEqual(field.name, "If-None-Match"): ifNoneMatch = field.value
            case 15 where acceptLanguage == nil && HTTPHeaders.namesEqual(field.name, "Accept-Language"): acceptLanguage = field.value
            case 17 where ifModifiedSince == nil && HTTPHeaders.namesEqual(field.name, "If-Modified-Since"): ifModifiedSince = field.value
            default: continue
            }
        }
    }
}
