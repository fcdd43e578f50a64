import Foundation
import Testing
import UnderstudyTesting

@testable import Geocoder

/// `stubs/geocoder/places.json`: exact places and fixed statuses that win over the gazetteer.
@Suite struct UserPlacesTests {
    let places = """
        { "places": [
          { "address": "42 Galaxy Way, Sunnyvale, CA 94086", "aliases": ["42 Galaxy Way"],
            "formatted_address": "42 Galaxy Way, Sunnyvale, CA 94086, USA", "lat": 37.3801, "lng": -122.0301 },
          { "address": "Store 7", "formatted_address": "Madisons Store 7", "lat": 40.0, "lng": -75.0,
            "types": ["store", "point_of_interest"], "location_type": "GEOMETRIC_CENTER",
            "address_components": [{"long_name": "Store 7", "types": ["point_of_interest"]}] },
          { "address": "quota please", "status": "OVER_QUERY_LIMIT" },
          { "address": "break please", "status": "UNKNOWN_ERROR", "error_message": "Try again." }
        ] }
        """

    @Test func anExactPlaceAnswersRooftopWithComponentsFromItsZIPCode() async throws {
        let (server, _) = try geocoderServer(places: places)
        for address in ["42 Galaxy Way, Sunnyvale, CA 94086", "42 galaxy way", "42 Galaxy Way, Sunnyvale, CA 94086, USA"] {
            let answer = try await server.geocode("address=" + escaped(address))
            let result = try #require(answer.results.first)
            #expect(result.formatted_address == "42 Galaxy Way, Sunnyvale, CA 94086, USA")
            #expect(result.types == ["street_address"])
            #expect(result.geometry.location_type == "ROOFTOP")
            #expect(result.geometry.bounds == nil)
            #expect(result.geometry.location.lat == 37.3801)
            #expect(
                result.address_components.map(\.types.first) == [
                    "street_number", "route", "locality", "administrative_area_level_2",
                    "administrative_area_level_1", "country", "postal_code",
                ])
            #expect(result.address_components.map(\.long_name).prefix(3) == ["42", "Galaxy Way", "Sunnyvale"])
        }
    }

    @Test func typesLocationTypeAndComponentsCanBeGiven() async throws {
        let (server, _) = try geocoderServer(places: places)
        let result = try #require(try await server.geocode("address=Store+7").results.first)
        #expect(result.types == ["store", "point_of_interest"])
        #expect(result.geometry.location_type == "GEOMETRIC_CENTER")
        #expect(result.address_components.map(\.short_name) == ["Store 7"])
    }

    @Test func aFixedStatusLetsAnAppTestItsErrorPaths() async throws {
        let (server, _) = try geocoderServer(places: places)
        let quota = try await server.geocode("address=Quota+Please")
        #expect(quota.status == "OVER_QUERY_LIMIT")
        #expect(quota.results.isEmpty)
        let broken = try await server.geocode("address=break+please")
        #expect(broken.status == "UNKNOWN_ERROR")
        #expect(broken.error_message == "Try again.")
    }

    @Test func anEditedPlacesFileAppliesOnResetAndABadOneKeepsTheLastGood() async throws {
        let directory = try makeTemporaryDirectory(["places.json": places])
        defer { try? FileManager.default.removeItem(at: directory) }
        let backend = GeocoderBackend(directory: directory, gazetteer: sharedGazetteer)
        let server = try BackendTester(backends: [backend])
        #expect(try await server.geocode("address=Store+7").status == "OK")
        try Data(#"{"places": [{"address": "Store 8", "lat": 1, "lng": 2}]}"#.utf8).write(to: directory.appendingPathComponent("places.json"))
        _ = try await server.send("POST", "/__admin/reset")
        #expect(try await server.geocode("address=Store+8").status == "OK")
        #expect(try await server.geocode("address=Store+7").status == "ZERO_RESULTS")
        try Data(#"{"places": [{"address": "Store 9", "lat": 100, "lng": 2}]}"#.utf8).write(to: directory.appendingPathComponent("places.json"))
        _ = try await server.send("POST", "/__admin/reset")
        #expect(try await server.geocode("address=Store+8").status == "OK")
    }

    @Test(arguments: [
        (#"{"places": [{"lat": 1, "lng": 2}]}"#, "places[0].address: must be a non-empty text"),
        (#"{"places": [{"address": "x", "lat": 91, "lng": 2}]}"#, "places[0].lat: must be a latitude"),
        (#"{"places": [{"address": "x", "status": "FINE"}]}"#, "places[0].status: must be one of ZERO_RESULTS"),
        (#"{"places": {}}"#, "places: must be a list"),
        ("{\"places\": [\n  {\"address\": }]}", ":2: "),
    ])
    func problemsNameTheFileAndTheEntry(text: String, message: String) throws {
        let directory = try makeTemporaryDirectory(["places.json": text])
        defer { try? FileManager.default.removeItem(at: directory) }
        let problems = GeocoderBackend.check(directory: directory).map(\.description)
        #expect(problems.count == 1)
        #expect(problems.first?.contains("places.json") == true)
        #expect(problems.first?.contains(message) == true, "\(problems)")
    }
}
