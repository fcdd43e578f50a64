import Foundation
import HTTPServer
import Logging
import MockCore

/// The geocoding service over the loaded gazetteer (what `GeocoderBackend` loads) and the user's
/// places, with the key policy, rate limits and answer cache of `config.json`.
final class GeocodingService: Sendable {
    let gazetteer: Gazetteer

    /// The settings and user places, read again on `POST /__admin/reset` so edits apply without a
    /// restart; a file that turned bad keeps its last good version.
    private struct Editable: Sendable {
        var settings: GeocoderSettings
        var places: UserPlaces
        /// Answers rendered from these places: a new, empty cache with every reload, so a request
        /// still answering from the old places can never fill the new cache.
        var cache = AnswerCache(maxEntries: 0)
    }

    private let directory: URL
    private let editable: Locked<Editable>
    private let rateLimiter = RateLimiter()
    private let logger: Logger

    /// The service over `gazetteer`, with the editable files of `directory` (`settings` until
    /// they are read).
    init(gazetteer: Gazetteer, directory: URL, settings: GeocoderSettings, logger: Logger) {
        self.gazetteer = gazetteer
        self.directory = directory
        self.logger = logger
        editable = Locked(Editable(settings: settings, places: UserPlaces()))
        reloadEditable()
    }

    /// The fixtures' counts and the answer cache's, for the backend's report.
    var report: BackendReport {
        let (places, cache) = editable.withLock { ($0.places, $0.cache) }
        let counts = gazetteer.counts
        return BackendReport(
            fixtures: [
                // US ZIP codes and Canada's postal codes; US states and Canada's provinces and territories.
                ("postal codes", counts.postalCodes), ("towns", counts.localities), ("regions", counts.states), ("countries", counts.countries),
                ("user places", places.byAddress.count),
            ],
            cache: cache.statistics)
    }

    /// Reads config.json and places.json again; a file with a problem keeps its last good version.
    func reloadEditable() {
        var copy = editable.withLock { $0 }
        let (settings, problem) = GeocoderSettings.read(from: directory)
        if let problem { logger.warning("geocoder: \(problem)") } else { copy.settings = settings }
        do {
            copy.places = try UserPlaces(file: directory.appendingPathComponent("places.json"), gazetteer: gazetteer)
        } catch {
            logger.warning("geocoder: \(error)")
        }
        copy.cache = AnswerCache(maxEntries: copy.settings.responseCache, maxBytes: copy.settings.responseCacheBytes)
        editable.withLock { $0 = copy }
    }

    func answer(_ request: Request, _ context: RequestContext, _ format: Format) -> Response {
        let gazetteer = self.gazetteer
        let (settings, places, cache) = editable.withLock { ($0.settings, $0.places, $0.cache) }
        if let denial = signatureDenial(request, settings) { return denial }
        if let refusal = accessAnswer(request, settings, context) {
            return Response(status: 200, headers: format.headers, body: ResponseBody(render(refusal, format)))
        }
        // Without a cache there is no key to make.
        guard cache.isEnabled else { return fresh(request, places, gazetteer, format) }
        let key = (format == .json ? "j" : "x") + (request.rawQuery ?? "")
        if let cached = cache.response(for: key) { return cached }
        let response = fresh(request, places, gazetteer, format)
        cache.store(response, for: key)
        return response
    }

    private func fresh(_ request: Request, _ places: UserPlaces, _ gazetteer: Gazetteer, _ format: Format) -> Response {
        Response(status: 200, headers: format.headers, body: ResponseBody(shared: SharedBytes(render(lookup(request, places, gazetteer), format))))
    }

    private func render(_ answer: GeocodeAnswer, _ format: Format) -> [UInt8] {
        format == .json ? GeocodeJSONWriter.write(answer) : GeocodeXMLWriter.write(answer)
    }

    enum Format {
        case json, xml

        // Google's content types with their charset; the CORS header lets browser apps call it.
        var headers: HTTPHeaders {
            switch self {
            case .json: Self.jsonHeaders
            case .xml: Self.xmlHeaders
            }
        }

        // Made once: every answer carries one of them.
        private static let jsonHeaders: HTTPHeaders = ["Content-Type": "application/json; charset=UTF-8", "Access-Control-Allow-Origin": "*"]
        private static let xmlHeaders: HTTPHeaders = ["Content-Type": "application/xml; charset=UTF-8", "Access-Control-Allow-Origin": "*"]
    }

    /// The answer to what the request asks, once it may ask.
    func lookup(_ request: Request, _ places: UserPlaces, _ gazetteer: Gazetteer) -> GeocodeAnswer {
        switch GeocodeRequest.parse(request) {
        case .failure(let invalid):
            return .invalid(invalid.message)
        case .success(.forward(let query)):
            switch places.answer(for: query.words) {
            case .result(let result)?: return .found([result])
            case .status(let status, let message)?: return GeocodeAnswer(status: status, errorMessage: message)
            case nil: return .found(places: ForwardLookup(gazetteer: gazetteer).lookup(query))
            }
        case .success(.reverse(let point, let resultTypes, let locationTypes)):
            var exact = places.nearest(to: point, within: 100).map { [$0] } ?? []
            var found = ReverseLookup(gazetteer: gazetteer).lookup(point)
            if let resultTypes {
                exact.removeAll { Set($0.types).isDisjoint(with: resultTypes) }
                found.removeAll { place in !place.types.contains { resultTypes.contains($0.description) } }
            }
            if let locationTypes {
                exact.removeAll { !locationTypes.contains($0.locationType) }
                found.removeAll { !locationTypes.contains($0.locationType.description) }
            }
            return .found(exact, places: found)
        case .success(.placeID(let id)):
            guard let key = PlaceKey(placeID: id) else { return .invalid("Invalid request. Invalid 'place_id' parameter.") }
            if let result = places.result(for: key) { return .found([result]) }
            return .found(places: gazetteer.result(for: key).map { [$0] } ?? [])
        }
    }

    /// The key policy and the rate limit: nil when the request may go on.
    private func accessAnswer(_ request: Request, _ settings: GeocoderSettings, _ context: RequestContext) -> GeocodeAnswer? {
        if settings.requireSensor, let denial = Self.sensorDenial(request.query("sensor")) { return denial }
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
            request.query("signature") == expected
        {
            return nil
        }
        return .text(
            """
            Unable to authenticate the request. Provided 'signature' is not valid for the provided client ID, or the provided 'client' is not valid.
            The signature was checked against the URL: \(signed)
            If this does not match the URL you requested, please ensure that your request is URL encoded correctly.

            """, status: 403)
    }

    /// The 2010 service's rule: `sensor` must be `true` or `false` ("REQUEST_DENIED indicates that
    /// your request was denied, generally because of lack of a sensor parameter"). The message is
    /// Google's Static Maps wording; the 2010 geocoder sent no `error_message`.
    private static func sensorDenial(_ sensor: String?) -> GeocodeAnswer? {
        sensor == "true" || sensor == "false"
            ? nil
            : GeocodeAnswer(
                status: .requestDenied, errorMessage: "The 'sensor' parameter specified in the request must be set to either true or false.")
    }

    static let noKeyMessage =
        "You must use an API key to authenticate each request to Google Maps Platform APIs. "
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
