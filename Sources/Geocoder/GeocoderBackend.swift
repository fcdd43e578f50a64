import Foundation
import HTTPServer
import Logging
import MockCore
import Synchronization

/// The geocoding web service: `GET <mount>/json` and `<mount>/xml` (mount `/maps/api/geocode` by
/// default), answered from the gazetteer and the user's places in `stubs/geocoder/`. Every status
/// comes back with HTTP 200, as Google sends it.
public final class GeocoderBackend: Backend {
    public let name = "geocoder"
    public let mounts: [String]
    public let gazetteer: Gazetteer

    /// The settings and user places, read again on `POST /__admin/reset` so edits apply without a
    /// restart; a file that turned bad keeps its last good version.
    private struct Editable: Sendable {
        var settings: GeocoderSettings
        var places: UserPlaces
    }

    private let directory: URL
    private let editable: Mutex<Editable>
    private let rateLimiter = RateLimiter()
    private let logger: Logger

    /// Loads `directory` (normally `stubs/geocoder`); problems are logged and the rest served.
    public init(directory: URL, logger: Logger = Logger(label: "understudy")) {
        self.directory = directory
        self.logger = logger
        gazetteer = Gazetteer(directory: directory)
        for problem in gazetteer.problems { logger.warning("geocoder: \(problem)") }
        var editable = Editable(settings: GeocoderSettings(), places: UserPlaces())
        for problem in Self.reload(&editable, from: directory, gazetteer: gazetteer) { logger.warning("geocoder: \(problem)") }
        self.editable = Mutex(editable)
        mounts = editable.settings.mounts
    }

    /// Every problem with the folder's files, for `understudy check`.
    public static func check(directory: URL) -> [GazetteerError] {
        let gazetteer = Gazetteer(directory: directory)
        var editable = Editable(settings: GeocoderSettings(), places: UserPlaces())
        return gazetteer.problems + reload(&editable, from: directory, gazetteer: gazetteer)
    }

    private static func reload(_ editable: inout Editable, from directory: URL, gazetteer: Gazetteer) -> [GazetteerError] {
        var problems: [GazetteerError] = []
        do {
            editable.settings = try GeocoderSettings(file: directory.appendingPathComponent("config.json"))
        } catch {
            problems.append(error)
        }
        do {
            editable.places = try UserPlaces(file: directory.appendingPathComponent("places.json"), gazetteer: gazetteer)
        } catch {
            problems.append(error)
        }
        return problems
    }

    public func reset(scope: StateScope?) {
        rateLimiter.reset(scope)
        var copy = editable.withLock { $0 }
        for problem in Self.reload(&copy, from: directory, gazetteer: gazetteer) { logger.warning("geocoder: \(problem)") }
        editable.withLock { $0 = copy }
    }

    public func handle(_ request: Request, _ context: RequestContext) -> Reply {
        guard request.method == .get || request.method == .head, let format = format(of: request.path) else { return .decline }
        let (settings, places) = editable.withLock { ($0.settings, $0.places) }
        if let denial = signatureDenial(request, settings) { return .response(denial) }
        let answer = accessAnswer(request, settings, context) ?? lookup(request, places)
        let body = format == .json ? GeocodeJSONWriter.write(answer) : GeocodeXMLWriter.write(answer)
        return .response(Response(status: 200, headers: format.headers, body: ResponseBody(body)))
    }

    enum Format {
        case json, xml

        // Google's content types with their charset; the CORS header lets browser apps call it.
        var headers: HTTPHeaders {
            switch self {
            case .json: ["Content-Type": "application/json; charset=UTF-8", "Access-Control-Allow-Origin": "*"]
            case .xml: ["Content-Type": "application/xml; charset=UTF-8", "Access-Control-Allow-Origin": "*"]
            }
        }
    }

    private func format(of path: String) -> Format? {
        for mount in mounts where path.hasPrefix(mount) {
            switch path.dropFirst(mount.utf8.count) {
            case "/json": return .json
            case "/xml": return .xml
            default: continue
            }
        }
        return nil
    }

    /// The answer to what the request asks, once it may ask.
    func lookup(_ request: Request, _ places: UserPlaces) -> GeocodeAnswer {
        switch GeocodeRequest.parse(request) {
        case .failure(let invalid):
            return .invalid(invalid.message)
        case .success(.forward(let query)):
            switch places.answer(for: query.words) {
            case .result(let result)?: return .found([result])
            case .status(let status, let message)?: return GeocodeAnswer(status: status, errorMessage: message)
            case nil: return .found(ForwardLookup(gazetteer: gazetteer).lookup(query))
            }
        case .success(.reverse(let point, let resultTypes, let locationTypes)):
            var results = ReverseLookup(gazetteer: gazetteer).lookup(point)
            if let exact = places.nearest(to: point, within: 100) { results.insert(exact, at: 0) }
            if let resultTypes { results.removeAll { Set($0.types).isDisjoint(with: resultTypes) } }
            if let locationTypes { results.removeAll { !locationTypes.contains($0.locationType) } }
            return .found(results)
        case .success(.placeID(let id)):
            guard let key = PlaceKey(placeID: id) else { return .invalid("Invalid request. Invalid 'place_id' parameter.") }
            return .found([places.result(for: key) ?? gazetteer.result(for: key)].compactMap { $0 })
        }
    }

    /// The key policy and the rate limit: nil when the request may go on.
    private func accessAnswer(_ request: Request, _ settings: GeocoderSettings, _ context: RequestContext) -> GeocodeAnswer? {
        let key = request.query("key").flatMap { $0.isEmpty ? nil : $0 }
        let client = request.query("client")
        if client == nil {
            switch settings.keyPolicy {
            case .none: break
            case .required where key == nil, .listed where key == nil:
                return GeocodeAnswer(status: .requestDenied, errorMessage: Self.noKeyMessage)
            case .required: break
            case .listed(let keys):
                guard let status = keys[key!] else {
                    return GeocodeAnswer(status: .requestDenied, errorMessage: "The provided API key is invalid.")
                }
                if status != .ok { return GeocodeAnswer(status: status, errorMessage: Self.keyMessages[status]) }
            }
        }
        let caller = key ?? client ?? request.remoteAddress
        switch rateLimiter.admit(caller, perSecond: settings.perSecond, perDay: settings.perDay, scope: context.scope) {
        case .allowed: return nil
        case .overRate: return GeocodeAnswer(status: .overQueryLimit, errorMessage: "You have exceeded your rate-limit for this API.")
        case .overDailyQuota: return GeocodeAnswer(status: .overQueryLimit, errorMessage: "You have exceeded your daily request quota for this API.")
        }
    }

    /// A Premier request whose `client` is configured must carry the right `signature`; Google
    /// refuses a wrong one with HTTP 403 and a plain-text explanation (the text is unverified).
    private func signatureDenial(_ request: Request, _ settings: GeocoderSettings) -> Response? {
        guard let client = request.query("client"), !settings.clients.isEmpty else { return nil }
        let target = request.target
        let signed = target.range(of: "&signature=").map { String(target[..<$0.lowerBound]) } ?? target
        if let secret = settings.clients[client], let expected = URLSignature.sign(signed, secret: secret),
           request.query("signature") == expected {
            return nil
        }
        return .text("""
            Unable to authenticate the request. Provided 'signature' is not valid for the provided client ID, or the provided 'client' is not valid.
            The signature was checked against the URL: \(signed)
            If this does not match the URL you requested, please ensure that your request is URL encoded correctly.

            """, status: 403)
    }

    static let noKeyMessage = "You must use an API key to authenticate each request to Google Maps Platform APIs. "
        + "For additional information, please refer to http://g.co/dev/maps-no-account"

    /// What Google says with each status a listed key can be given.
    static let keyMessages: [GeocodeStatus: String] = [
        .requestDenied: "This API project is not authorized to use this API.",
        .overDailyLimit: "You have exceeded your daily request quota for this API. If you did not set a custom daily request quota, "
            + "verify your project has an active billing account: http://g.co/dev/maps-no-account",
        .overQueryLimit: "You have exceeded your daily request quota for this API.",
        .invalidRequest: "Invalid request.",
    ]
}
