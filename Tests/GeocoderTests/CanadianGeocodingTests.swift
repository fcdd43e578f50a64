import Foundation
import Testing
import UnderstudyTesting

@testable import Geocoder

/// Canada: postal codes (full ones for Toronto's core and Markham, every sortation area) and the
/// provinces and territories by name, French name and abbreviation, over a real socket.
@Suite struct CanadianGeocodingTests {
    @Test func aFullPostalCodeAnswersAsGoogleFormatsACanadianOne() async throws {
        let (server, _) = try geocoderServer()
        let answer = try await server.geocode("address=" + escaped("L6G 1C7"))
        #expect(answer.status == "OK")
        let result = try #require(answer.results.first)
        #expect(result.types == ["postal_code"])
        #expect(result.formatted_address == "Markham, ON L6G 1C7, Canada")
        #expect(result.address_components.map(\.types.first) == ["postal_code", "locality", "administrative_area_level_1", "country"])
        #expect(result.address_components.map(\.long_name) == ["L6G 1C7", "Markham", "Ontario", "Canada"])
        #expect(result.address_components.map(\.short_name) == ["L6G 1C7", "Markham", "ON", "CA"])
        #expect(result.geometry.location_type == "APPROXIMATE")
        #expect(abs(result.geometry.location.lat - 43.8464) < 0.001 && abs(result.geometry.location.lng + 79.3316) < 0.001)
        #expect(result.partial_match == nil)
        let toronto = try await server.geocode("address=" + escaped("M5V 3L9"))
        #expect(toronto.results.map(\.formatted_address) == ["Toronto, ON M5V 3L9, Canada"])
    }

    @Test(arguments: [
        "l6g1c7", "L6G1C7", "l6g 1c7", "  L6G   1C7 ", "Markham, ON L6G 1C7", "Markham ON L6G 1C7, Canada",
        "Markham (Ontario) L6G 1C7", "L6G 1C7, Canada",
    ])
    func postalCodesAreReadWithOrWithoutTheSpaceInAnyCaseWithTheirOwnPlace(address: String) async throws {
        let (server, _) = try geocoderServer()
        let answer = try await server.geocode("address=" + escaped(address))
        #expect(answer.results.map(\.formatted_address) == ["Markham, ON L6G 1C7, Canada"])
        #expect(answer.results.first?.partial_match == nil)
    }

    @Test func aCodeNotShippedAnswersItsSortationAreaAsAPartialMatch() async throws {
        let (server, _) = try geocoderServer()
        let ottawa = try await server.geocode("address=" + escaped("K1A 0B1"))
        let result = try #require(ottawa.results.first)
        #expect(result.formatted_address == "Ottawa, ON K1A, Canada")
        #expect(result.types == ["postal_code_prefix", "postal_code"])
        #expect(result.partial_match == true)
        #expect(result.geometry.location_type == "APPROXIMATE")
        // A sortation area asked for is an exact match.
        let area = try await server.geocode("address=L6G")
        #expect(area.results.map(\.formatted_address) == ["Markham, ON L6G, Canada"])
        #expect(area.results.first?.partial_match == nil)
        // An area that does not exist ("Z" starts none): nothing to place.
        #expect(try await server.geocode("address=" + escaped("Z9Z 9Z9")).status == "ZERO_RESULTS")
        // A street before a shipped code: the code, as a partial match.
        let street = try await server.geocode("address=" + escaped("8200 Warden Ave, Markham, ON L6G 1C7"))
        #expect(street.results.map(\.formatted_address) == ["Markham, ON L6G 1C7, Canada"])
        #expect(street.results.first?.partial_match == true)
    }

    @Test(arguments: [
        ("Markham, ON", "Markham, ON, Canada"), ("Markham, Ontario", "Markham, ON, Canada"), ("markham on", "Markham, ON, Canada"),
        ("Toronto, ON", "Toronto, ON, Canada"), ("Toronto, Ontario, Canada", "Toronto, ON, Canada"), ("Toronto, Canada", "Toronto, ON, Canada"),
        ("Montréal, QC", "Montréal, QC, Canada"), ("Montreal, Quebec", "Montréal, QC, Canada"), ("Montréal (Québec)", "Montréal, QC, Canada"),
        ("Vancouver, Colombie-Britannique", "Vancouver, BC, Canada"), ("Halifax, Nouvelle-Écosse", "Halifax, NS, Canada"),
        ("Ontario", "Ontario, Canada"), ("ON", "Ontario, Canada"), ("Québec", "Quebec, Canada"), ("Quebec", "Quebec, Canada"),
        ("Terre-Neuve-et-Labrador", "Newfoundland and Labrador, Canada"), ("Nunavut", "Nunavut, Canada"),
        // A US town named like a province, with its state: the state decides.
        ("Ontario, CA", "Ontario, CA, USA"), ("Ontario, California", "Ontario, CA, USA"),
    ])
    func provincesByNameFrenchNameAndAbbreviation(address: String, expected: String) async throws {
        let (server, _) = try geocoderServer()
        let answer = try await server.geocode("address=" + escaped(address))
        #expect(answer.status == "OK")
        #expect(answer.results.map(\.formatted_address) == [expected])
        #expect(answer.results.first?.partial_match == nil)
    }

    @Test func markhamOntarioIsTheCanadianTownNeverOntarioCalifornia() async throws {
        let (server, _) = try geocoderServer()
        let result = try #require(try await server.geocode("address=" + escaped("Markham, Ontario")).results.first)
        #expect(result.types == ["locality", "political"])
        #expect(result.address_components.map(\.long_name) == ["Markham", "Ontario", "Canada"])
        #expect(result.address_components.map(\.short_name) == ["Markham", "ON", "CA"])
        #expect(abs(result.geometry.location.lat - 43.87) < 0.05 && abs(result.geometry.location.lng + 79.27) < 0.05)
        // A town the province does not have: the province, as a partial match — not another Ontario.
        let unknown = try #require(try await server.geocode("address=" + escaped("Qwxzzyv, Ontario")).results.first)
        #expect(unknown.formatted_address == "Ontario, Canada")
        #expect(unknown.partial_match == true)
        let province = try #require(try await server.geocode("address=Ontario").results.first)
        #expect(province.types == ["administrative_area_level_1", "political"])
        #expect(province.address_components.map(\.short_name) == ["ON", "CA"])
    }

    @Test func componentsFilterCanadianPlaces() async throws {
        let (server, _) = try geocoderServer()
        #expect(
            try await server.geocode("components=" + escaped("postal_code:M5V 3L9|country:CA")).results.map(\.formatted_address)
                == ["Toronto, ON M5V 3L9, Canada"])
        #expect(
            try await server.geocode("components=" + escaped("locality:Markham|administrative_area:ON")).results.map(\.formatted_address)
                == ["Markham, ON, Canada"])
        let excluded = try await server.geocode("address=" + escaped("L6G 1C7") + "&components=country:US")
        #expect(excluded.results.map(\.formatted_address) == ["United States"])
        #expect(excluded.results.first?.partial_match == true)
        // A country's name that is also a US state's, filtered to the US: the state (this used to trap).
        #expect(try await server.geocode("address=Georgia&components=country:US").results.map(\.formatted_address) == ["Georgia, USA"])
    }

    @Test func reverseGeocodingNearTorontoNamesTheCanadianPostalCodeTownAndProvince() async throws {
        let (server, _) = try geocoderServer()
        // The CN Tower.
        let answer = try await server.geocode("latlng=43.6426,-79.3871")
        #expect(answer.status == "OK")
        #expect(answer.results.map { $0.types.first } == ["postal_code", "locality", "administrative_area_level_1", "country"])
        let postalCode = try #require(answer.results.first)
        // (GeoNames puts some of downtown's newer codes at shared points, so which one is nearest
        // is the data's choice.)
        #expect(postalCode.formatted_address.hasPrefix("Toronto, ON M"))
        #expect(postalCode.formatted_address.hasSuffix(", Canada"))
        #expect(Array(answer.results.dropFirst().map(\.formatted_address)) == ["Toronto, ON, Canada", "Ontario, Canada", "Canada"])
        // Markham: a Markham code.
        let markham = try await server.geocode("latlng=43.8464,-79.3316&result_type=postal_code")
        #expect(markham.results.first?.formatted_address.hasPrefix("Markham, ON L6G") == true)
    }

    @Test func placeIDsOfCanadianPlacesResolve() async throws {
        let (server, _) = try geocoderServer()
        for address in ["L6G 1C7", "L6G", "Ontario", "Markham, ON"] {
            let result = try #require(try await server.geocode("address=" + escaped(address)).results.first)
            let again = try await server.geocode("place_id=" + result.place_id)
            #expect(again.results.map(\.formatted_address) == [result.formatted_address], "\(address)")
        }
    }

    @Test func postalCodesAreRecognisedOnlyInCanadaPostsShape() {
        #expect(CanadianPostalCode("l6g1c7")?.text == "L6G 1C7")
        #expect(CanadianPostalCode("L6G 1C7")?.text == "L6G 1C7")
        #expect(CanadianPostalCode("l6g")?.text == "L6G")
        for text in ["", "L6G1C", "6LG1C7", "L6G1C77", "L6G-1C7", "é6g1c7", "L6G 1CX"] {
            #expect(CanadianPostalCode(text) == nil, "\(text)")
        }
        let found = CanadianPostalCode.last(in: ["8200", "warden", "l6g", "1c7", "canada"], isKnownArea: { _ in false })
        #expect(found?.code.text == "L6G 1C7" && found?.words == 2..<4)
        #expect(CanadianPostalCode.last(in: ["abc", "l6g"], isKnownArea: { _ in false }) == nil)
    }

    @Test func badCanadianRowsAreReportedWithFileAndLineAndTheRestLoads() throws {
        let directory = try makeTemporaryDirectory([
            "regions.csv": "country,code,admin1_code,name,other_name,lat,lng,sw_lat,sw_lng,ne_lat,ne_lng\n"
                + "CA,ON,08,Ontario,,47.5,-84.8,42,-95,53,-74.6\nca,QC,10,Quebec,,51,-70,45,-79,58,-61\nCA,,10,Quebec,,51,-70,45,-79,58,-61\n",
            "ca-postalcodes.csv": "code,lat,lng,city,province,radius_m\nL6G,43.8485,-79.3346,Markham,ON,500\nL6G 1C7,43.8464,-79.3316,Markham,ON,34\n"
                + "l6g 1c8,43.8,-79.3,Markham,ON,30\nL6G1C9,43.8,-79.3,Markham,ON,30\nH3B,45.5,-73.5,Montreal,QC,500\nM5V,north,-79.4,Toronto,ON,500\n",
        ])
        defer { try? FileManager.default.removeItem(at: directory) }
        let gazetteer = Gazetteer(directory: directory)
        #expect(gazetteer.counts.postalCodes == 2)
        #expect(gazetteer.counts.states == 1)
        let problems = gazetteer.problems.map(\.description)
        #expect(
            problems.contains {
                $0.hasSuffix("regions.csv:3: country 'ca' is not a two-letter ISO code other than US (US states are in us-states.csv)")
            })
        #expect(problems.contains { $0.hasSuffix("regions.csv:4: code, admin1_code and name must not be empty") })
        #expect(
            problems.contains {
                $0.hasSuffix(
                    "ca-postalcodes.csv:4: code 'l6g 1c8' is not a Canadian postal code ('A9A 9A9') or forward sortation area ('A9A') in capitals")
            })
        #expect(
            problems.contains {
                $0.hasSuffix(
                    "ca-postalcodes.csv:5: code 'L6G1C9' is not a Canadian postal code ('A9A 9A9') or forward sortation area ('A9A') in capitals")
            })
        #expect(problems.contains { $0.hasSuffix("ca-postalcodes.csv:6: province 'QC' is not a Canadian region of regions.csv") })
        #expect(problems.contains { $0.hasSuffix("ca-postalcodes.csv:7: lat 'north' is not a number") })
        #expect(problems.count == 6)
    }
}
