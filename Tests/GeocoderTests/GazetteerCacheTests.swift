import Foundation
import MockCore
import Testing
import UnderstudyTesting

@testable import Geocoder

/// The gazetteer's index cached between starts: made once, mapped after, made again when a CSV
/// file changes, and never trusted when damaged.
@Suite struct GazetteerCacheTests {
    static let zipHeader = "zip,lat,lng,city,state,county,radius_m\n"
    static let small: [String: String] = [
        "us-zipcodes.csv": zipHeader + "94086,37.3764,-122.0238,Sunnyvale,CA,Santa Clara County,695\n",
        "us-states.csv": "code,name,lat,lng,sw_lat,sw_lng,ne_lat,ne_lng\nCA,California,37,-119,32,-124,42,-114\n",
        "countries.csv": "iso,iso3,name,lat,lng,sw_lat,sw_lng,ne_lat,ne_lng\nUS,USA,United States,39,-98,24,-125,49,-66\n",
    ]

    @Test func theFirstStartIndexesAndCachesTheNextMapsTheSameAnswers() async throws {
        let cacheFolder = try makeTemporaryDirectory([:])
        defer { try? FileManager.default.removeItem(at: cacheFolder) }
        let cache = GazetteerCache(directory: cacheFolder)
        let (_, first) = Gazetteer.load(directory: shippedGeocoder, cache: cache)
        let (mapped, second) = Gazetteer.load(directory: shippedGeocoder, cache: cache)
        guard case .indexedAndCached(let path) = first else {
            Issue.record("first start: \(first)")
            return
        }
        #expect(second == .mapped(path))
        #expect(mapped.counts == sharedGazetteer.counts)
        #expect(mapped.problems.map(\.description) == sharedGazetteer.problems.map(\.description))
        // Every kind of lookup answers the same bytes from the mapped file as from memory.
        // In memory (no client is needed to compare answers).
        let fromFile = try BackendTester(backends: [GeocoderBackend(directory: shippedGeocoder, gazetteer: mapped)])
        let fromMemory = try BackendTester(backends: [GeocoderBackend(directory: shippedGeocoder, gazetteer: sharedGazetteer)])
        for query in [
            "address=94086", "address=Springfield,+IL", "address=L6G+1C7", "address=Toronto", "address=Germany",
            "latlng=37.3764,-122.0238", "latlng=43.6532,-79.3832", "latlng=48.8566,2.3522", "components=postal_code:10001",
            "address=Saint+Louis,+MO",
        ] {
            let path = "/maps/api/geocode/json?" + query
            let mappedBody = await fromFile.send(path).body.bytes
            let memoryBody = await fromMemory.send(path).body.bytes
            #expect(mappedBody == memoryBody, "\(query)")
            #expect(String(decoding: mappedBody, as: UTF8.self).contains("\"status\" : \"OK\""), "\(query)")
        }
    }

    @Test func anEditedFileIsIndexedAgain() throws {
        let stubs = try makeTemporaryDirectory(Self.small)
        let cacheFolder = try makeTemporaryDirectory([:])
        defer { [stubs, cacheFolder].forEach { try? FileManager.default.removeItem(at: $0) } }
        let cache = GazetteerCache(directory: cacheFolder)
        let (before, _) = Gazetteer.load(directory: stubs, cache: cache)
        #expect(before.postalCodesByZIP["94087"] == nil)
        try (Self.zipHeader + "94086,37.3764,-122.0238,Sunnyvale,CA,Santa Clara County,695\n94087,37.35,-122.03,Sunnyvale,CA,,900\n")
            .write(to: stubs.appendingPathComponent("us-zipcodes.csv"), atomically: true, encoding: .utf8)
        let (after, source) = Gazetteer.load(directory: stubs, cache: cache)
        guard case .indexedAndCached = source else {
            Issue.record("after the edit: \(source)")
            return
        }
        #expect(after.counts.postalCodes == 2)
        #expect(after.postalCodesByZIP["94087"] == 1)
        // Removing a file changes the checksum as well.
        try FileManager.default.removeItem(at: stubs.appendingPathComponent("us-states.csv"))
        let (withoutStates, _) = Gazetteer.load(directory: stubs, cache: cache)
        #expect(withoutStates.counts.states == 0)
    }

    @Test func aDamagedOrForeignCacheFileIsMadeAgain() throws {
        let stubs = try makeTemporaryDirectory(Self.small)
        let cacheFolder = try makeTemporaryDirectory([:])
        defer { [stubs, cacheFolder].forEach { try? FileManager.default.removeItem(at: $0) } }
        let cache = GazetteerCache(directory: cacheFolder)
        let path = cache.path(checksum: GazetteerCache.checksum(of: stubs))
        let good = GazetteerImageWriter.image(
            of: {
                var loader = GazetteerLoader()
                loader.load(from: stubs)
                return loader
            }(),
            checksum: GazetteerCache.checksum(of: stubs))
        for damaged in [Data("not an image".utf8), Data(good.prefix(good.count / 2)), Data(good + [0, 0, 0, 0, 0, 0, 0, 0])] {
            try damaged.write(to: URL(fileURLWithPath: path))
            let (gazetteer, source) = Gazetteer.load(directory: stubs, cache: cache)
            #expect(source == .indexedAndCached(path))
            #expect(gazetteer.counts.postalCodes == 1 && gazetteer.postalCodesByZIP["94086"] == 0)
        }
    }

    @Test func withoutAWritableCacheTheIndexIsKeptInMemory() throws {
        let stubs = try makeTemporaryDirectory(Self.small.merging(["blocker": "a file where the cache folder would be"]) { $1 })
        defer { try? FileManager.default.removeItem(at: stubs) }
        let (gazetteer, source) = Gazetteer.load(directory: stubs, cache: GazetteerCache(directory: stubs.appendingPathComponent("blocker/cache")))
        #expect(source == .indexed)
        #expect(gazetteer.postalCodes[0].zip == "94086")
        #expect(gazetteer.postalCodes[0].county == "Santa Clara County")
    }

    /// Bytes of an image flipped at random still read without a trap: wrong places at worst.
    @Test func damagedImagesReadWithoutTrapping() {
        var loader = GazetteerLoader()
        loader.load(from: shippedGeocoder)
        // A slice of the shipped data keeps the test quick in a debug build.
        loader.postalCodes = Array(loader.postalCodes.prefix(400))
        loader.localities = Array(loader.localities.prefix(400))
        let good = GazetteerImageWriter.image(of: loader, checksum: 1)
        var generator = SeededGenerator(seed: 11)
        for _ in 0..<30 {
            var bytes = good
            for _ in 0..<200 {
                bytes[Int.random(in: 0..<bytes.count, using: &generator)] = UInt8.random(in: 0...255, using: &generator)
            }
            let gazetteer = Gazetteer(image: GazetteerImage(copying: bytes))
            for index in [-1, gazetteer.postalCodes.count] + Array(stride(from: 0, to: gazetteer.postalCodes.count, by: 7)) {
                let code = gazetteer.postalCodes[index]
                _ = (code.zip, code.city, code.county, code.location, gazetteer.town(ofPostalCode: index))
            }
            for town in gazetteer.localities.prefix(50) { _ = (town.name, town.bounds, town.weight) }
            _ = gazetteer.localitiesByName["sunnyvale"]?.map { gazetteer.localities[$0].name }
            _ = gazetteer.postalCodesByZIP["94086"]
            _ = gazetteer.postalCodeGrid.nearest(to: Coordinate(lat: 37.4, lng: -122), within: 100_000)
            _ = gazetteer.localityGrid.points(near: Coordinate(lat: 40.7, lng: -74), within: 200_000)
        }
    }
}
