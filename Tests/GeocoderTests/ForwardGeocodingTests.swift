import Foundation
import Testing
import UnderstudyTesting

@testable import Geocoder

/// Addresses, ZIP codes and `components` to places, over a real socket.
@Suite struct ForwardGeocodingTests {
    @Test func aZIPCodeAloneAnswersItsPostalCodeResultInGooglesComponentOrder() async throws {
        let (server, _) = try geocoderServer()
        let answer = try await server.geocode("address=94086&sensor=false")
        #expect(answer.status == "OK")
        let result = try #require(answer.results.first)
        #expect(answer.results.count == 1)
        #expect(result.types == ["postal_code"])
        #expect(result.formatted_address == "Sunnyvale, CA 94086, USA")
        #expect(
            result.address_components.map(\.types.first) == [
                "postal_code", "locality", "administrative_area_level_2",
                "administrative_area_level_1", "country",
            ])
        #expect(result.address_components.map(\.long_name) == ["94086", "Sunnyvale", "Santa Clara County", "California", "United States"])
        #expect(result.address_components.map(\.short_name) == ["94086", "Sunnyvale", "Santa Clara County", "CA", "US"])
        #expect(result.geometry.location_type == "APPROXIMATE")
        #expect(abs(result.geometry.location.lat - 37.37) < 0.05 && abs(result.geometry.location.lng + 122.03) < 0.05)
        let bounds = try #require(result.geometry.bounds)
        #expect(bounds.southwest.lat < result.geometry.location.lat && result.geometry.location.lat < bounds.northeast.lat)
        #expect(bounds.southwest.lng < result.geometry.location.lng && result.geometry.location.lng < bounds.northeast.lng)
        #expect(result.partial_match == nil)
    }

    @Test(arguments: ["94086-1234", "Sunnyvale, CA 94086", "sunnyvale ca 94086", "  SUNNYVALE,,CA   94086 , USA ", "94086, United States"])
    func aZIPCodeWithItsOwnTownStateOrCountryIsAnExactMatch(address: String) async throws {
        let (server, _) = try geocoderServer()
        let answer = try await server.geocode("address=" + escaped(address))
        #expect(answer.results.map(\.formatted_address) == ["Sunnyvale, CA 94086, USA"])
        #expect(answer.results.first?.partial_match == nil)
    }

    @Test func aStreetInAKnownZIPCodeIsAPartialMatchOfTheZIPCode() async throws {
        let (server, _) = try geocoderServer()
        let answer = try await server.geocode("address=" + escaped("12345 Imaginary Blvd, Sunnyvale, CA 94086"))
        #expect(answer.results.map(\.formatted_address) == ["Sunnyvale, CA 94086, USA"])
        #expect(answer.results.first?.partial_match == true)
    }

    @Test func aStreetInAKnownTownIsAPartialMatchOfTheTown() async throws {
        let (server, _) = try geocoderServer()
        let answer = try await server.geocode("address=" + escaped("500 Nowhere Street, Mountain View, CA"))
        #expect(answer.results.map(\.formatted_address) == ["Mountain View, CA, USA"])
        #expect(answer.results.first?.partial_match == true)
        #expect(answer.results.first?.types == ["locality", "political"])
    }

    @Test(arguments: [
        ("Sunnyvale, CA", "Sunnyvale, CA, USA"), ("sunnyvale california", "Sunnyvale, CA, USA"),
        ("St. Louis, MO", "St. Louis, MO, USA"), ("Saint Louis MO", "St. Louis, MO, USA"),
        ("Paris, TX", "Paris, TX, USA"), ("Paris", "Paris, France"), ("Paris, France", "Paris, France"),
        ("Berlin, DE", "Berlin, Germany"), ("zurich", "Zürich, Switzerland"), ("Toronto, Canada", "Toronto, ON, Canada"),
        ("New York", "New York, NY, USA"), ("California", "California, USA"), ("CA", "California, USA"),
        ("Germany", "Germany"), ("usa", "United States"),
    ])
    func townsStatesAndCountriesInTheFormsAppsSend(address: String, expected: String) async throws {
        let (server, _) = try geocoderServer()
        let answer = try await server.geocode("address=" + escaped(address))
        #expect(answer.status == "OK")
        #expect(answer.results.map(\.formatted_address) == [expected])
    }

    @Test func resultTypesAndComponentsFollowThePlaceKind() async throws {
        let (server, _) = try geocoderServer()
        let state = try #require(try await server.geocode("address=California").results.first)
        #expect(state.types == ["administrative_area_level_1", "political"])
        #expect(state.address_components.map(\.short_name) == ["CA", "US"])
        let country = try #require(try await server.geocode("address=Germany").results.first)
        #expect(country.types == ["country", "political"])
        #expect(country.address_components.map(\.long_name) == ["Germany"])
        let town = try #require(try await server.geocode("address=Berlin").results.first)
        #expect(town.address_components.map(\.short_name) == ["Berlin", "DE"])
        #expect(abs(town.geometry.location.lat - 52.52) < 0.01)
    }

    @Test func nonsenseHasZeroResults() async throws {
        let (server, _) = try geocoderServer()
        let answer = try await server.geocode("address=qwxzzyv+plorbt")
        #expect(answer.status == "ZERO_RESULTS")
        #expect(answer.results.isEmpty)
        #expect(answer.error_message == nil)
    }

    @Test func componentsFilterAndMayStandAlone() async throws {
        let (server, _) = try geocoderServer()
        #expect(try await server.geocode("components=postal_code:94086").results.map(\.formatted_address) == ["Sunnyvale, CA 94086, USA"])
        #expect(try await server.geocode("components=" + escaped("postal_code:94086|country:US")).results.count == 1)
        #expect(try await server.geocode("components=country:DE").results.map(\.formatted_address) == ["Germany"])
        #expect(try await server.geocode("components=" + escaped("locality:Paris|country:US")).results.first?.formatted_address == "Paris, TX, USA")
        #expect(try await server.geocode("components=administrative_area:California").results.map(\.formatted_address) == ["California, USA"])
        #expect(try await server.geocode("address=Paris&components=country:FR").results.first?.formatted_address == "Paris, France")
        // A filter that excludes the place: the country alone, as a partial match (as Google does).
        for query in ["address=94086&components=country:DE", "address=Paris&components=country:DE", "address=qwxzzyv&components=country:DE"] {
            let answer = try await server.geocode(query)
            #expect(answer.results.map(\.formatted_address) == ["Germany"])
            #expect(answer.results.first?.partial_match == true)
        }
        // A route cannot be placed: the town is a partial match.
        let route = try await server.geocode("components=" + escaped("route:Main Street|locality:Sunnyvale|administrative_area:CA"))
        #expect(route.results.first?.formatted_address == "Sunnyvale, CA, USA")
        #expect(route.results.first?.partial_match == true)
    }

    @Test func regionAndBoundsBiasTheRankingButDoNotRestrictIt() async throws {
        let (server, _) = try geocoderServer()
        // Google's own example: Toledo is the one in Ohio, unless the region is Spain.
        #expect(try await server.geocode("address=Toledo").results.first?.formatted_address == "Toledo, OH, USA")
        #expect(try await server.geocode("address=Toledo&region=es").results.first?.formatted_address == "Toledo, Spain")
        let nearBoston = "bounds=" + escaped("41.9,-72.8|42.4,-72.3")
        let springfield = try await server.geocode("address=Springfield&" + nearBoston)
        #expect(springfield.results.first?.formatted_address == "Springfield, MA, USA")
        #expect(
            try await server.geocode("address=Springfield&bounds=" + escaped("39.6,-89.9|39.9,-89.4")).results.first?.formatted_address
                == "Springfield, IL, USA")
        // Bias, not a filter: Berlin is found with bounds around Boston.
        #expect(try await server.geocode("address=Berlin,+Germany&" + nearBoston).results.first?.formatted_address == "Berlin, Germany")
    }

    @Test func invalidRequestsSayWhatIsMissingOrWrong() async throws {
        let (server, _) = try geocoderServer()
        for query in ["", "sensor=true", "address=", "address=%20%20"] {
            let answer = try await server.geocode(query)
            #expect(answer.status == "INVALID_REQUEST")
            #expect(answer.error_message == "Invalid request. Missing the 'address', 'components', 'latlng' or 'place_id' parameter.")
        }
        for query in [
            "address=Paris&latlng=1,2", "components=foo", "components=planet:Mars", "address=Paris&bounds=1,2",
            "address=Paris&bounds=a,b|c,d",
        ] {
            let answer = try await server.geocode(query)
            #expect(answer.status == "INVALID_REQUEST", "\(query)")
            #expect(answer.error_message?.hasPrefix("Invalid request.") == true)
            #expect(answer.results.isEmpty)
        }
    }

    @Test func otherParametersAreAcceptedAndIgnored() async throws {
        let (server, _) = try geocoderServer()
        let answer = try await server.geocode("address=94086&sensor=true&language=de&key=anything&channel=app")
        #expect(answer.results.map(\.formatted_address) == ["Sunnyvale, CA 94086, USA"])
    }

    @Test func onlyGetAndHeadOnJsonAndXmlAreTheService() async throws {
        let (server, _) = try geocoderServer()
        let (_, post) = try await server.send("POST", "/maps/api/geocode/json?address=94086")
        #expect(post.statusCode == 404)
        let (_, html) = try await server.send("GET", "/maps/api/geocode/html?address=94086")
        #expect(html.statusCode == 404)
        let (body, head) = try await server.send("HEAD", "/maps/api/geocode/json?address=94086")
        #expect(head.statusCode == 200)
        #expect(body.isEmpty)
        #expect(head.value(forHTTPHeaderField: "Content-Type") == "application/json; charset=UTF-8")
    }
}

func escaped(_ text: String) -> String {
    var allowed = CharacterSet.urlQueryAllowed
    allowed.remove(charactersIn: "&=+|,")
    return text.addingPercentEncoding(withAllowedCharacters: allowed)!
}
