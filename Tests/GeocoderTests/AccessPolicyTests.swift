import Foundation
import HTTPServer
import MockCore
import Testing
import UnderstudyTesting

@testable import Geocoder

/// Keys, rate limits and Premier signatures, as `stubs/geocoder/config.json` sets them.
@Suite struct AccessPolicyTests {
    @Test func withoutAPolicyKeysAreIgnoredAsIn2010() async throws {
        let (server, _) = try geocoderServer(config: "{}")
        #expect(try await server.geocode("address=94086").status == "OK")
        #expect(try await server.geocode("address=94086&key=whatever").status == "OK")
    }

    @Test func aRequiredKeyMustBeSent() async throws {
        let (server, _) = try geocoderServer(config: #"{"keys": "required"}"#)
        let denied = try await server.geocode("address=94086")
        #expect(denied.status == "REQUEST_DENIED")
        #expect(
            denied.error_message
                == "You must use an API key to authenticate each request to Google Maps Platform APIs. For additional information, please refer to http://g.co/dev/maps-no-account"
        )
        #expect(denied.results.isEmpty)
        // The key is checked before the request: a keyless bad request is denied, not invalid.
        #expect(try await server.geocode("latlng=abc").status == "REQUEST_DENIED")
        #expect(try await server.geocode("address=94086&key=AIzaAnything").status == "OK")
    }

    @Test func listedKeysAnswerWithTheirStatusAndOthersAreInvalid() async throws {
        let config = #"{"keys": {"good": "OK", "nobilling": "OVER_DAILY_LIMIT", "blocked": "REQUEST_DENIED", "flaky": "UNKNOWN_ERROR"}}"#
        let (server, _) = try geocoderServer(config: config)
        #expect(try await server.geocode("address=94086&key=good").status == "OK")
        let invalid = try await server.geocode("address=94086&key=stolen")
        #expect(invalid.status == "REQUEST_DENIED")
        #expect(invalid.error_message == "The provided API key is invalid.")
        #expect(try await server.geocode("address=94086&key=nobilling").status == "OVER_DAILY_LIMIT")
        let blocked = try await server.geocode("address=94086&key=blocked")
        #expect(blocked.status == "REQUEST_DENIED")
        #expect(blocked.error_message == "This API project is not authorized to use this API.")
        #expect(try await server.geocode("address=94086&key=flaky").status == "UNKNOWN_ERROR")
    }

    @Test func theDailyQuotaRunsOutAndComesBackOnReset() async throws {
        let (server, _) = try geocoderServer(config: #"{"rateLimit": {"perDay": 2}}"#)
        #expect(try await server.geocode("address=94086&key=a").status == "OK")
        #expect(try await server.geocode("address=94086&key=a").status == "OK")
        let over = try await server.geocode("address=94086&key=a")
        #expect(over.status == "OVER_QUERY_LIMIT")
        #expect(over.error_message == "You have exceeded your daily request quota for this API.")
        // Per key: another key still has its quota.
        #expect(try await server.geocode("address=94086&key=b").status == "OK")
        _ = try await server.send("POST", "/__admin/reset")
        #expect(try await server.geocode("address=94086&key=a").status == "OK")
    }

    @Test func requestsFasterThanTheRateLimitAreTurnedAway() async throws {
        let (server, _) = try geocoderServer(config: #"{"rateLimit": {"perSecond": 1}}"#)
        // Ten at once: however slow the machine, they do not spread over ten seconds.
        let statuses = try await withThrowingTaskGroup(of: GeocodeJSON.self) { group in
            for _ in 0..<10 { group.addTask { try await server.geocode("address=94086") } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        let turnedAway = statuses.filter { $0.status == "OVER_QUERY_LIMIT" }
        #expect(statuses.contains { $0.status == "OK" })
        #expect(!turnedAway.isEmpty)
        #expect(turnedAway.allSatisfy { $0.error_message == "You have exceeded your rate-limit for this API." && $0.results.isEmpty })
        #expect(turnedAway.count + statuses.filter { $0.status == "OK" }.count == 10)
    }

    @Test func theRateWindowOpensAgainEachSecond() {
        let limiter = RateLimiter()
        let scope = StateScopes().default
        let second: UInt64 = 1_000_000_000
        #expect(limiter.admit("k", perSecond: 2, perDay: nil, scope: scope, now: 5 * second) == .allowed)
        #expect(limiter.admit("k", perSecond: 2, perDay: nil, scope: scope, now: 5 * second + 10) == .allowed)
        #expect(limiter.admit("k", perSecond: 2, perDay: nil, scope: scope, now: 5 * second + 20) == .overRate)
        #expect(limiter.admit("other", perSecond: 2, perDay: nil, scope: scope, now: 5 * second + 30) == .allowed)
        #expect(limiter.admit("k", perSecond: 2, perDay: nil, scope: scope, now: 6 * second) == .allowed)
    }

    @Test func premierClientsMustSignTheirRequests() async throws {
        let secret = "vNIXE0xscrmjlyV-12Nj_BvUPaw="
        let (server, _) = try geocoderServer(config: #"{"clients": {"gme-acme": "\#(secret)"}}"#)
        let path = "/maps/api/geocode/json?address=94086&client=gme-acme"
        let signature = try #require(URLSignature.sign(path, secret: secret))
        let (body, good) = try await server.send("GET", path + "&signature=" + signature)
        #expect(good.statusCode == 200)
        #expect(try JSONDecoder().decode(GeocodeJSON.self, from: body).status == "OK")
        let (denial, bad) = try await server.send("GET", path + "&signature=AAAAAAAAAAAAAAAAAAAAAAAAAAA=")
        #expect(bad.statusCode == 403)
        #expect(String(decoding: denial, as: UTF8.self).contains("The signature was checked against the URL: \(path)"))
        let (_, unknown) = try await server.send("GET", "/maps/api/geocode/json?address=94086&client=gme-other&signature=" + signature)
        #expect(unknown.statusCode == 403)
    }

    @Test func signaturesAreGooglesHMACSHA1() {
        // RFC 3174 and RFC 2202 test vectors.
        #expect(hex(URLSignature.sha1(Array("abc".utf8))) == "a9993e364706816aba3e25717850c26c9cd0d89d")
        #expect(
            hex(URLSignature.sha1(Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)))
                == "84983e441c3bd26ebaae4aa1f95129e5e54670f1")
        #expect(
            hex(URLSignature.hmacSHA1(key: [UInt8](repeating: 0x0b, count: 20), message: Array("Hi There".utf8)))
                == "b617318655057264e28bc0b6fb378c8ef146be00")
        #expect(
            hex(
                URLSignature.hmacSHA1(
                    key: [UInt8](repeating: 0xaa, count: 80),
                    message: Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8)))
                == "aa4ae5e15272d00e95705637ce8a3b55ed402112")
    }

    @Test func aBadConfigurationSaysWhereAndKeepsTheDefaults() throws {
        let directory = try makeTemporaryDirectory(["config.json": #"{"keys": {"k": "MAYBE"}}"#])
        defer { try? FileManager.default.removeItem(at: directory) }
        #expect(throws: GazetteerError.self) { try GeocoderSettings(file: directory.appendingPathComponent("config.json")) }
        let problems = GeocoderBackend.check(directory: directory)
        #expect(problems.map(\.description).contains { $0.contains("config.json") && $0.contains("keys.k: must be one of OK") })
    }

    @Test func sensorIsOptionalByDefaultAsSince2014() async throws {
        let (server, _) = try geocoderServer()
        #expect(try await server.geocode("address=94086").status == "OK")
        #expect(try await server.geocode("address=94086&sensor=maybe").status == "OK")
    }

    @Test func requireSensorDeniesRequestsWithoutTrueOrFalseAsIn2010() async throws {
        let (server, _) = try geocoderServer(config: #"{"requireSensor": true}"#)
        for query in ["address=94086", "address=94086&sensor=", "address=94086&sensor=yes", "address=94086&sensor=TRUE", "latlng=abc"] {
            let denied = try await server.geocode(query)
            #expect(denied.status == "REQUEST_DENIED", "\(query)")
            #expect(denied.error_message == "The 'sensor' parameter specified in the request must be set to either true or false.")
            #expect(denied.results.isEmpty)
        }
        #expect(try await server.geocode("address=94086&sensor=true").status == "OK")
        #expect(try await server.geocode("latlng=37.3764,-122.0238&sensor=false").status == "OK")
        // The XML answer has the same shape as the other denials: status, then the message.
        let (body, response) = try await server.send("GET", "/maps/api/geocode/xml?address=94086")
        #expect(response.statusCode == 200)
        #expect(
            String(decoding: body, as: UTF8.self) == """
                <?xml version="1.0" encoding="UTF-8"?>
                <GeocodeResponse>
                 <status>REQUEST_DENIED</status>
                 <error_message>The 'sensor' parameter specified in the request must be set to either true or false.</error_message>
                </GeocodeResponse>

                """)
    }

    @Test func requireSensorMustBeABoolean() throws {
        let directory = try makeTemporaryDirectory(["config.json": #"{"requireSensor": "yes"}"#])
        defer { try? FileManager.default.removeItem(at: directory) }
        let problems = GeocoderBackend.check(directory: directory)
        #expect(problems.map(\.description).contains { $0.hasSuffix("config.json: requireSensor: must be true or false") })
        #expect(try GeocoderSettings(file: shippedGeocoder.appendingPathComponent("config.json")).requireSensor == false)
    }

    private func hex(_ bytes: [UInt8]) -> String {
        bytes.map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined()
    }
}

/// The cache of rendered answers is never in front of keys and quotas.
@Suite struct ResponseCacheTests {
    @Test func aCachedAnswerIsStillSubjectToTheKeyPolicy() async throws {
        let (server, _) = try geocoderServer(config: #"{"keys": {"good": "OK", "nobilling": "OVER_DAILY_LIMIT"}, "responseCache": 10}"#)
        #expect(try await server.geocode("address=94086&key=good").status == "OK")
        #expect(try await server.geocode("address=94086&key=good").status == "OK")
        #expect(try await server.geocode("address=94086&key=nobilling").status == "OVER_DAILY_LIMIT")
        let (server2, _) = try geocoderServer(config: #"{"responseCache": 0}"#)
        #expect(try await server2.geocode("address=94086").results.count == 1)
        #expect(try await server2.geocode("address=94086").results.count == 1)
    }
}
