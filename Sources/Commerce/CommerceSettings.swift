import Foundation
import JSON
import MockCore

/// `stubs/commerce/config.json`, all optional:
///
///     { "responseCache": 4096, "responseCacheBytes": 33554432, "geocoder": "http://maps.example.com/maps/api/geocode/json" }
///
/// `responseCache`: how many rendered catalog pages are kept (0 renders every request), in at
/// most `responseCacheBytes` of bodies.
/// `geocoder`: the Google-compatible geocoding service the store locator places a ZIP code or
/// city with (`…/json` or `…/xml`, as the app's "Geocoder URL" setting); by default this
/// server's own geocoder emulator.
/// `mounts`: which of the storefront's paths it serves (all by default): leaving one out lets
/// another backend, a stub or a recording, answer there.
struct CommerceSettings: EmulatorSettings {
    /// The storefront's paths: the servlet, its SEO URLs, its assets, and the search REST
    /// services (and where feature packs before 7 served them).
    static let storefrontPaths = ["/webapp/wcs/stores/servlet", "/shop", "/wcsstore", "/search/resources", "/wcs/resources"]

    var mounts = storefrontPaths
    var responseCache = 4096
    var responseCacheBytes = AnswerCache.defaultMaxBytes
    var geocoder: String?

    init() {}

    mutating func read(_ json: JSONValue, in file: URL) throws(FixtureError) {
        if let value = json["mounts"] {
            mounts = try Self.mountPaths(value, file: file)
            if let other = mounts.first(where: { !Self.storefrontPaths.contains($0) }) {
                throw FixtureError.field(file, "mounts", "\(other) is none of the storefront's: \(Self.storefrontPaths.joined(separator: ", "))")
            }
        }
        responseCache = try FixtureError.wholeNumber(json, "responseCache", in: file) ?? responseCache
        responseCacheBytes = try FixtureError.wholeNumber(json, "responseCacheBytes", in: file) ?? responseCacheBytes
        if let geocoder = json["geocoder"] {
            guard let url = geocoder.stringValue, url.hasPrefix("http://") || url.hasPrefix("https://"),
                url.hasSuffix("/json") || url.hasSuffix("/xml")
            else {
                throw FixtureError.field(file, "geocoder", "expected an http(s) URL ending in /json or /xml")
            }
            self.geocoder = url
        }
    }

    /// The geocoding request for `place`; `localAuthority` is where this server is reached. Nil
    /// when no geocoder is named and the server has no address of its own to ask (a loop that
    /// answers in memory, without a socket).
    func geocodingURL(_ place: String, localAuthority: String) -> String? {
        guard let base = geocoder ?? (localAuthority.isEmpty ? nil : "http://\(localAuthority)/maps/api/geocode/json") else { return nil }
        return base + "?sensor=false&address=" + place.percentEncoded
    }

    /// The first result's location in a geocoder's JSON or XML answer.
    static func location(in body: [UInt8]) -> (latitude: Double, longitude: Double)? {
        if let json = try? JSONValue.parse(body) {
            guard let location = json["results"]?.arrayValue?.first?["geometry"]?["location"],
                let latitude = location["lat"]?.doubleValue, let longitude = location["lng"]?.doubleValue
            else { return nil }
            return (latitude, longitude)
        }
        // <result>…<geometry><location><lat>40.7</lat><lng>-73.9</lng></location>…
        let text = String(decoding: body, as: UTF8.self)
        guard let location = text.range(of: "<location>") else { return nil }
        func value(_ tag: String) -> Double? {
            guard let open = text.range(of: "<\(tag)>", range: location.upperBound..<text.endIndex),
                let close = text.range(of: "</\(tag)>", range: open.upperBound..<text.endIndex)
            else { return nil }
            return Double(text[open.upperBound..<close.lowerBound].trimmingCharacters(in: .whitespaces))
        }
        guard let latitude = value("lat"), let longitude = value("lng") else { return nil }
        return (latitude, longitude)
    }
}
