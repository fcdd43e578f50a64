import Foundation
import Testing
import UnderstudyTesting
import WireFormat

@testable import Geocoder

/// The gazetteer's parts: names, the spatial index, place IDs, loading and its problems.
@Suite struct GazetteerTests {
    @Test func theShippedGazetteerHasTheWholeUSAndTheWorldsCities() {
        let counts = sharedGazetteer.counts
        #expect(counts.postalCodes > 40_000)
        #expect(counts.localities > 50_000)
        #expect(counts.states >= 51)
        #expect(counts.countries > 200)
        #expect(sharedGazetteer.problems.isEmpty)
    }

    @Test func namesCompareWithoutCaseAccentsPunctuationOrCommonAbbreviations() {
        #expect(PlaceName.key("  ST. LOUIS,  mo ") == PlaceName.key("Saint Louis MO"))
        #expect(PlaceName.key("São Paulo") == "sao paulo")
        #expect(PlaceName.key("Winston-Salem") == "winston salem")
        #expect(PlaceName.key("O'Fallon") == "ofallon")
        #expect(PlaceName.words("Mount Vernon, NY 10550") == ["mt", "vernon", "ny", "10550"])
    }

    @Test func theGridFindsWhatAScanFinds() async {
        // Seconds of arithmetic in a debug build: on a thread of its own, so that the other
        // tests' continuations are not held up in the meantime.
        let mismatches = await withCheckedContinuation { (done: CheckedContinuation<[String], Never>) in
            Thread.detachNewThread {
                var generator = SeededGenerator(seed: 7)
                let points = (0..<3_000).map { _ in
                    Coordinate(lat: Double.random(in: -60...70, using: &generator), lng: Double.random(in: -170...170, using: &generator))
                }
                let grid = SpatialGrid(points, cellDegrees: 0.5)
                var mismatches: [String] = []
                for query in 0..<200 {
                    let target = Coordinate(
                        lat: Double.random(in: -60...70, using: &generator), lng: Double.random(in: -170...170, using: &generator))
                    let limit = Double.random(in: 10_000...800_000, using: &generator)
                    let scanned = points.indices.map { ($0, target.distance(to: points[$0])) }.filter { $0.1 <= limit }
                    if grid.nearest(to: target, within: limit)?.index != scanned.min(by: { $0.1 < $1.1 })?.0 {
                        mismatches.append("query \(query): nearest differs")
                    }
                    if Set(grid.points(near: target, within: limit).map(\.index)) != Set(scanned.map(\.0)) {
                        mismatches.append("query \(query): points within \(limit) m differ")
                    }
                }
                done.resume(returning: mismatches)
            }
        }
        #expect(mismatches.isEmpty)
    }

    /// Results write their place IDs from the records' fields: the same IDs as the keys'.
    @Test func placeIDsWrittenFromRecordsAreTheKeysIDs() {
        let gazetteer = sharedGazetteer
        func written(_ place: PlaceResult) -> String {
            var out = ByteWriter(capacity: 64)
            place.placeID.write(to: &out)
            return String(decoding: out.bytes, as: UTF8.self)
        }
        for index in gazetteer.states.indices {
            #expect(written(gazetteer.result(state: index)) == PlaceKey.state(gazetteer.states[index].key).placeID)
        }
        for index in gazetteer.countries.indices {
            #expect(written(gazetteer.result(country: index)) == PlaceKey.country(gazetteer.countries[index].code).placeID)
        }
        for index in stride(from: 0, to: gazetteer.postalCodes.count, by: 97) {
            #expect(written(gazetteer.result(postalCode: index)) == PlaceKey.postalCode(gazetteer.postalCodes[index].zip).placeID)
        }
        for index in stride(from: 0, to: gazetteer.localities.count, by: 89) {
            let town = gazetteer.localities[index]
            #expect(
                written(gazetteer.result(locality: index))
                    == PlaceKey.locality(country: town.country, region: town.regionCode, name: town.nameKey).placeID)
        }
    }

    /// Codes looked up by their bytes find what the string-keyed tables find, for every region
    /// and country, and nothing for codes they do not hold.
    @Test func codesFoundByTheirBytesAreTheTablesOnes() {
        let gazetteer = sharedGazetteer
        func text<Result>(_ string: String, _ body: (PlaceText) -> Result) -> Result {
            var bytes = Array(string.utf8)
            return bytes.withUnsafeMutableBytes { body(PlaceText(UnsafeRawBufferPointer($0))) }
        }
        for state in gazetteer.states {
            let found = text(state.country) { country in text(state.code) { gazetteer.regionIndex(country: country, code: $0) } }
            #expect(found == gazetteer.statesByCode[state.key], "\(state.key)")
        }
        for country in gazetteer.countries {
            #expect(text(country.code) { gazetteer.countryIndex($0) } == gazetteer.countriesByCode[country.code], "\(country.code)")
        }
        #expect(text("CA") { country in text("QQ") { gazetteer.regionIndex(country: country, code: $0) } } == nil)
        #expect(text("ZZ") { gazetteer.countryIndex($0) } == nil)
        #expect(text("A-LONGER-CODE") { gazetteer.countryIndex($0) } == nil)
        let index = CodeIndex(["US", "CA-ON", "US", "LONGER-CODE"])
        var key = CodeIndex.Key()
        text("US") { key.append($0) }
        #expect(index.lookup(key) == .found(0))
        key = CodeIndex.Key()
        text("LONGER-CODE") { key.append($0) }
        #expect(index.lookup(key) == .tooLong)
    }

    @Test func placeIDsRoundTripAndLookLikeGooglesOnes() {
        let keys: [PlaceKey] = [
            .postalCode("94086"), .state("CA"), .country("DE"), .userPlace("1 main st"),
            .locality(country: "US", region: "CA", name: "sunnyvale"),
        ]
        for key in keys {
            #expect(PlaceKey(placeID: key.placeID) == key)
            #expect(key.placeID.hasPrefix("ChIJ") && key.placeID.count >= 27)
        }
        #expect(PlaceKey(placeID: "ChIJ!!") == nil)
        #expect(PlaceKey(placeID: "XYZ") == nil)
    }

    @Test func badRowsAreReportedWithFileAndLineAndTheRestLoads() throws {
        let directory = try makeTemporaryDirectory([
            "us-zipcodes.csv": "zip,lat,lng,city,state,county,radius_m\n94086,37.3764,-122.0238,Sunnyvale,CA,Santa Clara County,695\n"
                + "9408,1,2,Short,CA,,500\n94087,north,-122,Sunnyvale,CA,,500\n94088,37.3,-122.0,Sunnyvale,CA,\"Santa Clara County\",900\n",
            "us-states.csv": "code,name,lat,lng,sw_lat,sw_lng,ne_lat,ne_lng\nCA,California,37,-119,32,-124,42,-114\n",
            "countries.csv": "iso,name\nUS,United States\n",
        ])
        defer { try? FileManager.default.removeItem(at: directory) }
        let gazetteer = Gazetteer(directory: directory)
        #expect(gazetteer.counts.postalCodes == 2)
        #expect(gazetteer.counts.states == 1)
        let problems = gazetteer.problems.map(\.description)
        #expect(problems.contains { $0.hasSuffix("us-zipcodes.csv:3: zip '9408' is not 5 digits") })
        #expect(problems.contains { $0.hasSuffix("us-zipcodes.csv:4: lat 'north' is not a number") })
        #expect(problems.contains { $0.hasSuffix("countries.csv:1: missing column 'iso3'") })
        // The town is made from its two ZIP codes.
        #expect(gazetteer.localities.map(\.name) == ["Sunnyvale"])
    }

    @Test func theServiceWaitsForTheGazetteerAndHealthSaysSoMeanwhile() async throws {
        // Loading happens on its own thread: the server answers at once, health says 503 until the
        // geocoder is ready, and a geocoding request sent meanwhile is answered once it is.
        let backend = GeocoderBackend(directory: shippedGeocoder)
        let server = try BackendTester(backends: [backend])
        let (_, health) = try await server.send("GET", "/__admin/health")
        // 200 only once ready (it may have become ready since: the load takes a second or so).
        #expect(health.statusCode == 503 || backend.isReady)
        let answer = try await server.geocode("address=94086")
        #expect(answer.results.first?.formatted_address == "Sunnyvale, CA 94086, USA")
        #expect(backend.isReady)
        #expect(try await server.send("GET", "/__admin/health").response.statusCode == 200)
    }
}

/// A small deterministic generator (SplitMix64), so a failing case can be replayed.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
