import Foundation
import Testing
import UnderstudyTesting

@testable import Geocoder

/// `latlng` to the places around it, and `place_id` back to its place.
@Suite struct ReverseGeocodingTests {
    @Test func aPointInSunnyvaleIsItsZIPCodeTownStateAndCountryMostSpecificFirst() async throws {
        let (server, _) = try geocoderServer()
        let answer = try await server.geocode("latlng=37.3764,-122.0238&sensor=false")
        #expect(answer.status == "OK")
        #expect(answer.results.map(\.formatted_address) == ["Sunnyvale, CA 94086, USA", "Sunnyvale, CA, USA", "California, USA", "United States"])
        #expect(answer.results.map { $0.types.first } == ["postal_code", "locality", "administrative_area_level_1", "country"])
    }

    @Test func outsideTheUSTheTownThatPullsHardestAndItsCountry() async throws {
        let (server, _) = try geocoderServer()
        // Berlin's centre: Berlin, not one of its districts.
        #expect(try await server.geocode("latlng=52.52,13.40").results.map(\.formatted_address) == ["Berlin, Germany", "Germany"])
        // Potsdam, 27 km from Berlin's centre: Potsdam.
        #expect(try await server.geocode("latlng=52.40,13.06").results.first?.formatted_address == "Potsdam, Germany")
    }

    @Test func midOceanHasZeroResults() async throws {
        let (server, _) = try geocoderServer()
        let answer = try await server.geocode("latlng=0,-140")
        #expect(answer.status == "ZERO_RESULTS")
        #expect(answer.results.isEmpty)
    }

    @Test func resultTypeAndLocationTypeFilterTheResults() async throws {
        let (server, _) = try geocoderServer()
        let towns = try await server.geocode("latlng=37.3764,-122.0238&result_type=locality")
        #expect(towns.results.map(\.formatted_address) == ["Sunnyvale, CA, USA"])
        let either = try await server.geocode("latlng=37.3764,-122.0238&result_type=" + escaped("country|postal_code"))
        #expect(either.results.map(\.formatted_address) == ["Sunnyvale, CA 94086, USA", "United States"])
        #expect(try await server.geocode("latlng=37.3764,-122.0238&location_type=ROOFTOP").status == "ZERO_RESULTS")
        #expect(try await server.geocode("latlng=37.3764,-122.0238&location_type=APPROXIMATE").results.count == 4)
        // A shipped exact place: a street address, rooftop, first.
        let hq = try await server.geocode("latlng=37.4224764,-122.0842499&location_type=ROOFTOP")
        #expect(hq.results.map(\.formatted_address) == ["1600 Amphitheatre Pkwy, Mountain View, CA 94043, USA"])
        #expect(hq.results.first?.types == ["street_address"])
    }

    @Test(arguments: [
        "latlng=91,0", "latlng=0,181", "latlng=abc", "latlng=1", "latlng=1,2,3",
        "latlng=1,2&result_type=planet", "latlng=1,2&location_type=EXACT",
    ])
    func malformedReverseRequestsAreInvalid(query: String) async throws {
        let (server, _) = try geocoderServer()
        let answer = try await server.geocode(query)
        #expect(answer.status == "INVALID_REQUEST")
        #expect(answer.error_message?.hasPrefix("Invalid request. Invalid '") == true)
    }

    @Test(arguments: [
        "address=94086", "address=Sunnyvale,+CA", "address=California", "address=Germany", "address=Toledo,+Spain",
        "address=The+White+House",
    ])
    func everyPlaceIDResolvesToTheSamePlace(query: String) async throws {
        let (server, _) = try geocoderServer()
        let first = try #require(try await server.geocode(query).results.first)
        #expect(first.place_id.hasPrefix("ChIJ") && first.place_id.count >= 27)
        #expect(first.place_id.allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" })
        let again = try await server.geocode("place_id=" + first.place_id)
        #expect(again.results.map(\.formatted_address) == [first.formatted_address])
        #expect(again.results.first?.place_id == first.place_id)
        // Deterministic: the same place has the same ID on another server.
        let (other, _) = try geocoderServer()
        #expect(try await other.geocode(query).results.first?.place_id == first.place_id)
    }

    @Test func unknownAndMalformedPlaceIDs() async throws {
        let (server, _) = try geocoderServer()
        #expect(try await server.geocode("place_id=" + PlaceKey.postalCode("00000").placeID).status == "ZERO_RESULTS")
        let malformed = try await server.geocode("place_id=notAPlaceID")
        #expect(malformed.status == "INVALID_REQUEST")
        #expect(try await server.geocode("place_id=x&address=Paris").status == "INVALID_REQUEST")
    }

    /// The latlng parser's fast path for plain decimals gives `Double(_:)`'s value, sign and
    /// all, and leaves everything else to it.
    @Test func plainDecimalsParseAsDoubleParsesThem() {
        var generator = SeededGenerator(seed: 5)
        var texts = [
            "0", "-0", "37.3764", "-122.0238", "90", "-180.0000000", "007.50", "123456789012345", "1234567890123456",
            "0.000000000000001", "1.", ".5", "-.5", "-", "", "1.2.3", "1e5", "+1", " 1", "1 ", "nan", "inf", "0x1p3", "１",
        ]
        for _ in 0..<5_000 {
            let whole = String(Int.random(in: 0...999, using: &generator))
            let decimals = String((0..<Int.random(in: 0...14, using: &generator)).map { _ in "0123456789".randomElement(using: &generator) ?? "0" })
            texts.append((Bool.random(using: &generator) ? "-" : "") + whole + (decimals.isEmpty ? "" : "." + decimals))
        }
        for text in texts {
            let parsed = Array(text.utf8).withUnsafeBufferPointer { GeocodeRequest.decimal($0[...]) }
            #expect(parsed?.bitPattern == Double(text)?.bitPattern, "\(text)")
        }
    }
}
