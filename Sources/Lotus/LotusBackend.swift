// Module Lotus: the Lotus Connections 2.5 Atom APIs of seed 004 — News (the public updates
// feed and its filters), Profiles, Blogs and Search — from editable fixtures in stubs/lotus/,
// with Basic authentication, conditional GET and writes undone by POST /__admin/reset.

import Foundation
import HTTPServer
import Logging
import MockCore

/// The Connections components at `/news`, `/profiles`, `/blogs`, `/search` (and under each
/// configured prefix). Reads are answered from the fixtures and the scope's writes; answers of
/// reads are cached per scope until the next write.
public final class LotusBackend: Backend {
    public let name = "lotus"
    public let mounts: [String]

    private let settings: LotusSettings
    private let directory: LotusDirectory
    private let state: ScopedState<LotusState>
    private let logger: Logger
    /// Mount prefixes, longest first.
    private let prefixes: [String]

    static let components = ["/news", "/profiles", "/blogs", "/search"]

    /// Loads `directory` (normally `stubs/lotus`); problems are logged with their file and place,
    /// and the rest is served.
    public init(directory: URL, logger: Logger = Logger(label: "understudy")) {
        var settings = LotusSettings()
        do {
            settings = try LotusSettings(file: directory.appendingPathComponent("config.json"))
        } catch {
            logger.warning("lotus: \(error)")
        }
        let (fixtures, problems) = LotusFixtures.load(directory)
        for problem in problems { logger.warning("lotus: \(problem)") }
        self.settings = settings
        self.logger = logger
        self.directory = LotusDirectory(fixtures)
        let capacity = settings.responseCache
        state = ScopedState { LotusState(cacheCapacity: capacity) }
        prefixes = settings.prefixes.sorted { $0.count > $1.count }
        mounts = ([""] + settings.prefixes).flatMap { prefix in Self.components.map { prefix + $0 } }
    }

    /// Every problem with the folder's files, for `understudy check`.
    public static func check(directory: URL) -> [LotusFixtureError] {
        var problems: [LotusFixtureError] = []
        do {
            _ = try LotusSettings(file: directory.appendingPathComponent("config.json"))
        } catch {
            problems.append(error)
        }
        return problems + LotusFixtures.load(directory).1
    }

    public func reset(scope: StateScope?) {
        state.reset(scope)
    }

    // MARK: Requests

    public func handle(_ request: Request, _ context: RequestContext) -> Reply {
        var path = request.path
        var prefix = ""
        for candidate in prefixes where path.hasPrefix(candidate + "/") {
            prefix = candidate
            path.removeFirst(candidate.count)
            break
        }
        guard Self.components.contains(where: { path == $0 || path.hasPrefix($0 + "/") }) else { return .decline }
        let host = request.headers["Host"] ?? "127.0.0.1:\(request.localPort)"
        let base = "http://" + host + prefix
        let labels = LotusLabels(lang: request.query("lang"), acceptLanguage: request.headers["Accept-Language"])

        // Credentials, when sent, must be right; a protected resource then asks for them.
        var user: Person?
        if let authorization = request.headers["Authorization"] {
            guard let person = basicUser(authorization) else { return .response(challenge(request, base: base)) }
            user = person
        }
        let snapshot = state.withValue(in: context.scope) { $0 }
        let now = AtomDate.now(fixed: settings.now)
        let lotus = LotusRequest(request: request, base: base, path: path, user: user, labels: labels,
                                 content: LotusContent(directory: directory, state: snapshot), now: now)
        switch request.method {
        case .get, .head:
            return .response(read(lotus, snapshot, request: request))
        case .post, .put:
            return .response(write(lotus, context.scope, base: base))
        default:
            return .response(error(.methodNotAllowed, labels))
        }
    }

    /// A read: from the scope's cache when the same request met the same data, else rendered;
    /// then answered 304 when the client's copy is current.
    private func read(_ lotus: LotusRequest, _ snapshot: LotusState, request: Request) -> Response {
        let key = "\(lotus.base)\u{0}\(lotus.path)?\(request.rawQuery ?? "")\u{0}\(lotus.user?.userid ?? "")\u{0}\(lotus.labels.language)"
        var response: Response
        if let cached = snapshot.cache.response(for: key, generation: snapshot.version) {
            response = cached
        } else {
            do {
                response = respond(try route(lotus), lotus.labels)
            } catch {
                if error.status == 401 { return challenge(request, base: lotus.base) }
                response = self.error(error, lotus.labels)
            }
            if response.status == 200 { snapshot.cache.store(response, for: key, generation: snapshot.version) }
        }
        return ConditionalGET.answer(request, response)
    }

    private func route(_ lotus: LotusRequest) throws(LotusError) -> Rendered {
        if lotus.path.hasSuffix("/serviceconfigs") { return ServiceConfigs.render(lotus) }
        switch lotus.path.split(separator: "/").first {
        case "news": return try NewsFeeds.handle(lotus)
        case "profiles": return try ProfilesAPI.handle(lotus)
        case "blogs": return try BlogsAPI.handle(lotus)
        default: return try SearchAPI.handle(lotus)
        }
    }

    /// A write, applied to the scope's state at once (so it shows in the next read).
    private func write(_ lotus: LotusRequest, _ scope: StateScope, base: String) -> Response {
        guard let entry = AtomEntry.parse(lotus.request.body) else { return error(.badEntry, lotus.labels) }
        let method = lotus.request.method
        let parts = lotus.path.split(separator: "/").map(String.init)
        do {
            let rendered = try state.withValue(in: scope) { state throws(LotusError) -> Rendered in
                // Read what is current now, under the lock: another write may have come first.
                let current = LotusRequest(request: lotus.request, base: lotus.base, path: lotus.path, user: lotus.user, labels: lotus.labels,
                                           content: LotusContent(directory: directory, state: state), now: lotus.now)
                let rendered: Rendered
                switch (method, lotus.path) {
                case (.put, "/profiles/atom/mv/theboard/entry/status.do"): rendered = try ProfilesAPI.putStatus(current, entry, &state)
                case (.post, "/profiles/atom/mv/theboard/entries.do"): rendered = try ProfilesAPI.postMessage(current, entry, &state)
                case (.post, "/profiles/atom/mv/theboard/comments.do"): rendered = try ProfilesAPI.postComment(current, entry, &state)
                case (.post, "/news/atom/stories/saved"): rendered = try NewsFeeds.save(current, entry, &state)
                case (.post, _) where parts.count == 4 && parts[0] == "blogs" && parts[2] == "api" && parts[3] == "entries":
                    rendered = try BlogsAPI.postEntry(current, parts[1], entry, &state)
                case (.post, _) where parts.count == 5 && parts[0] == "blogs" && parts[2] == "api" && parts[3] == "entrycomments":
                    rendered = try BlogsAPI.postComment(current, parts[1], parts[4], entry, &state)
                default: throw LotusError.methodNotAllowed
                }
                state.version += 1
                return rendered
            }
            return respond(rendered, lotus.labels)
        } catch let error as LotusError {
            if error.status == 401 { return challenge(lotus.request, base: base) }
            return self.error(error, lotus.labels)
        } catch {
            return self.error(.badEntry, lotus.labels)
        }
    }

    private func basicUser(_ authorization: String) -> Person? {
        guard authorization.lowercased().hasPrefix("basic "),
              let decoded = Data(base64Encoded: String(authorization.dropFirst(6)).trimmingCharacters(in: .whitespaces)),
              let text = String(data: decoded, encoding: .utf8), let colon = text.firstIndex(of: ":") else { return nil }
        return directory.authenticate(String(text[..<colon]), String(text[text.index(after: colon)...]))
    }

    /// 401 with a Basic challenge (after a redirect to HTTPS when configured, as 2.5 does).
    private func challenge(_ request: Request, base: String) -> Response {
        if settings.httpsRedirect {
            let host = request.headers["Host"] ?? "localhost"
            return Response(status: 302, headers: ["Location": "https://\(host)\(request.target)"])
        }
        var response = error(.unauthorized, LotusLabels(lang: nil, acceptLanguage: nil))
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
        Response(status: error.status, headers: ["Content-Type": "text/xml;charset=UTF-8", "Content-Language": labels.contentLanguage],
                 body: ResponseBody(error.body))
    }
}

/// `If-None-Match` and `If-Modified-Since` against an answer's `ETag` and `Last-Modified`.
enum ConditionalGET {
    /// A strong validator: FNV-1a over the body.
    static func etag(_ body: [UInt8]) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in body {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        return "\"" + String(hash, radix: 16) + "\""
    }

    static func answer(_ request: Request, _ response: Response) -> Response {
        guard response.status == 200 else { return response }
        let etag = response.headers["ETag"]
        if let tags = request.headers["If-None-Match"], let etag {
            guard tags == "*" || tags.split(separator: ",").contains(where: { $0.trimmingCharacters(in: .whitespaces) == etag }) else { return response }
            return notModified(response)
        }
        if let since = request.headers["If-Modified-Since"].flatMap(AtomDate.init(httpDate:)),
           let modified = response.headers["Last-Modified"].flatMap(AtomDate.init(httpDate:)), modified <= since {
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
