import Foundation
import JSON
import MockCore

/// `stubs/geocoder/config.json`: who may call, how often, and where the service is mounted.
///
/// ```json
/// { "mounts": ["/maps/api/geocode"],
///   "keys": "none" | "required" | { "KEY": "OK" | "REQUEST_DENIED" | "OVER_DAILY_LIMIT" | … },
///   "rateLimit": { "perSecond": 10, "perDay": 2500 },
///   "clients": { "gme-acme": "<url-safe base64 signing secret>" },
///   "responseCache": 4096,
///   "responseCacheBytes": 33554432,
///   "requireSensor": false }
/// ```
public struct GeocoderSettings: EmulatorSettings, Equatable {
    public enum KeyPolicy: Sendable, Equatable {
        /// The 2010-era service: no key needed, any key ignored.
        case none
        /// Today's service: a key must be sent; any key works.
        case required
        /// Only these keys work, each answering with its status (`OK`, or e.g. `OVER_DAILY_LIMIT`
        /// for a project without billing).
        case listed([String: GeocodeStatus])
    }

    public var mounts = ["/maps/api/geocode"]
    public var keyPolicy = KeyPolicy.none
    /// Requests a second and a day per key (or per client address without a key); nil: no limit.
    public var perSecond: Int?
    public var perDay: Int?
    /// Premier (Maps for Work) client IDs and their signing secrets; empty: `client` and
    /// `signature` are accepted without checking.
    public var clients: [String: String] = [:]
    /// How many rendered answers are kept for repeated queries; 0 turns the cache off.
    public var responseCache = 4_096
    public var responseCacheBytes = AnswerCache.defaultMaxBytes
    /// The 2010-era (v3) service: a request without `sensor=true` or `sensor=false` is
    /// `REQUEST_DENIED`. Google stopped requiring it in 2014, hence off by default.
    public var requireSensor = false

    public init() {}

    public mutating func read(_ json: JSONValue, in file: URL) throws(FixtureError) {
        func problem(_ field: String, _ message: String) -> FixtureError { .field(file, field, message) }
        if let mounts = json["mounts"] { self.mounts = try Self.mountPaths(mounts, file: file) }
        switch json["keys"] {
        case nil, .string("none"): keyPolicy = .none
        case .string("required"): keyPolicy = .required
        case .object(let members):
            var keys: [String: GeocodeStatus] = [:]
            for (key, value) in members {
                guard let text = value.stringValue, let status = GeocodeStatus(rawValue: text) else {
                    throw problem("keys.\(key)", "must be one of \(GeocodeStatus.allCases.map(\.rawValue).joined(separator: ", "))")
                }
                keys[key] = status
            }
            keyPolicy = .listed(keys)
        default: throw problem("keys", "must be \"none\", \"required\" or an object of key → status")
        }
        if let limit = json["rateLimit"] {
            guard limit.objectValue != nil else { throw problem("rateLimit", "must be an object with perSecond and/or perDay") }
            for (name, value) in [("perSecond", limit["perSecond"]), ("perDay", limit["perDay"])] {
                guard let value else { continue }
                guard let count = value.intValue, count >= 1 else { throw problem("rateLimit.\(name)", "must be a whole number ≥ 1") }
                if name == "perSecond" { perSecond = count } else { perDay = count }
            }
        }
        responseCache = try FixtureError.wholeNumber(json, "responseCache", in: file) ?? responseCache
        responseCacheBytes = try FixtureError.wholeNumber(json, "responseCacheBytes", in: file) ?? responseCacheBytes
        if let require = json["requireSensor"] {
            guard let flag = require.boolValue else { throw problem("requireSensor", "must be true or false") }
            requireSensor = flag
        }
        if let clients = json["clients"] {
            guard let members = clients.objectValue else { throw problem("clients", "must be an object of client ID → secret") }
            for (client, secret) in members {
                guard let text = secret.stringValue, URLSignature.decodeSecret(text) != nil else {
                    throw problem("clients.\(client)", "must be the signing secret in url-safe base64")
                }
                self.clients[client] = text
            }
        }
    }
}
