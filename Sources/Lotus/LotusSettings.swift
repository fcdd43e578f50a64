import Foundation
import JSON
import MockCore

/// `stubs/lotus/config.json`; every key optional (`mounts` was called `prefixes` before).
///
/// ```json
/// { "mounts": ["/developerworks/mydeveloperworks"], "realm": "Lotus Connections",
///   "httpsRedirect": false, "now": "2010-10-08T12:00:00Z", "responseCache": 512,
///   "responseCacheBytes": 33554432 }
/// ```
struct LotusSettings: EmulatorSettings {
    /// Paths the components are also mounted under (besides the root): the seed's app calls
    /// `…/developerworks/mydeveloperworks/news/atom/stories/public`.
    var prefixes = ["/developerworks/mydeveloperworks"]
    /// The Basic realm of the 401 challenge (unverified).
    var realm = "Lotus Connections"
    /// 2.5 redirects a request for a protected resource to HTTPS before it challenges; off by
    /// default, since this server speaks plain HTTP.
    var httpsRedirect = false
    /// The time given to what clients post; the clock when nil.
    var now: AtomDate?
    var responseCache = 512
    var responseCacheBytes = AnswerCache.defaultMaxBytes

    init() {}

    mutating func read(_ json: JSONValue, in file: URL) throws(FixtureError) {
        func problem(_ field: String, _ message: String) -> FixtureError { .field(file, field, message) }
        if let prefixes = try Self.mounts(in: json, formerly: "prefixes", file: file) {
            self.prefixes = try Self.mountPaths(prefixes, file: file, allowingNone: true)
        }
        if let realm = json["realm"] {
            guard let text = realm.stringValue else { throw problem("realm", "must be a string") }
            self.realm = text
        }
        if let redirect = json["httpsRedirect"] {
            guard case .bool(let flag) = redirect else { throw problem("httpsRedirect", "must be true or false") }
            httpsRedirect = flag
        }
        if let now = json["now"] {
            guard let text = now.stringValue, let date = AtomDate(text) else {
                throw problem("now", "must be an RFC 3339 instant such as 2010-10-08T12:00:00Z")
            }
            self.now = date
        }
        responseCache = try FixtureError.wholeNumber(json, "responseCache", in: file) ?? responseCache
        responseCacheBytes = try FixtureError.wholeNumber(json, "responseCacheBytes", in: file) ?? responseCacheBytes
    }
}
