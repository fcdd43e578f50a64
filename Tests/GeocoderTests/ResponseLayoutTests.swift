import Foundation
import Testing
import UnderstudyTesting
import WireFormat

@testable import Geocoder

/// The bytes of Google's layouts, compared with stored responses (Expected/): legacy clients
/// scrape the XML by line, so indentation, order and number formats are part of the contract.
@Suite struct ResponseLayoutTests {
    func expected(_ name: String) throws -> String {
        let url = try #require(Bundle.module.url(forResource: "Expected/" + name, withExtension: nil))
        return try String(contentsOf: url, encoding: .utf8)
    }

    @Test(arguments: [
        ("xml?address=94086&sensor=true", "94086.xml"), ("json?address=94086&sensor=true", "94086.json"),
        ("xml?address=Berlin", "berlin.xml"), ("json?address=1+Main+St,+Sunnyvale,+CA+94086", "partial.json"),
        ("xml?address=qwxzzyv", "zero-results.xml"), ("json?address=qwxzzyv", "zero-results.json"),
        ("xml?sensor=false", "invalid-request.xml"), ("json?sensor=false", "invalid-request.json"),
        ("json?address=The+White+House", "rooftop.json"),
    ])
    func responsesAreLaidOutByteForByteAsGoogleLaysThemOut(query: String, file: String) async throws {
        let (server, _) = try geocoderServer()
        let (body, response) = try await server.send("GET", "/maps/api/geocode/" + query)
        #expect(response.statusCode == 200)
        #expect(
            response.value(forHTTPHeaderField: "Content-Type")
                == (file.hasSuffix(".xml") ? "application/xml; charset=UTF-8" : "application/json; charset=UTF-8"))
        #expect(String(decoding: body, as: UTF8.self) == (try expected(file)))
    }

    /// Gazetteer places are written straight from their records: reverse lookups (a US and a
    /// Canadian postal code with town, region and country; a town abroad) and a region by place ID,
    /// compared with the bytes the values they replaced were written as.
    @Test(arguments: [
        ("json?latlng=37.3764,-122.0238&sensor=false", "reverse-sunnyvale.json"),
        ("xml?latlng=37.3764,-122.0238&sensor=false", "reverse-sunnyvale.xml"),
        ("json?latlng=43.6426,-79.3871", "reverse-toronto.json"), ("xml?latlng=52.52,13.405", "reverse-berlin.xml"),
        ("json?place_id=" + PlaceKey.state("CA-ON").placeID, "place-ontario.json"),
    ])
    func placesAreWrittenFromTheirRecordsByteForByte(query: String, file: String) async throws {
        let (server, _) = try geocoderServer()
        let (body, response) = try await server.send("GET", "/maps/api/geocode/" + query)
        #expect(response.statusCode == 200)
        #expect(String(decoding: body, as: UTF8.self) == (try expected(file)))
    }

    @Test func xmlNumbersHaveSevenDecimalsAndJSONNumbersTheShortestForm() {
        #expect(GeocodeXMLWriter.sevenDecimals(37.3764) == "37.3764000")
        #expect(GeocodeXMLWriter.sevenDecimals(-122.0238) == "-122.0238000")
        #expect(GeocodeXMLWriter.sevenDecimals(13.404954) == "13.4049540")
        #expect(GeocodeXMLWriter.sevenDecimals(-0.00000001) == "0.0000000")
        #expect(GeocodeXMLWriter.sevenDecimals(0.0000001) == "0.0000001")
        #expect(GeocodeJSONWriter.number(47.60317389999999) == "47.60317389999999")
        #expect(GeocodeJSONWriter.number(-122.336407) == "-122.336407")
        #expect(GeocodeJSONWriter.number(52) == "52")
        #expect(GeocodeJSONWriter.number(-52) == "-52")
        #expect(GeocodeJSONWriter.number(-0.0) == "0")
        #expect(GeocodeJSONWriter.number(0.00001) == "0.00001")
        // Google's 16 significant digits (a rooftop viewport corner).
        #expect(GeocodeJSONWriter.number(38.8976763 + 0.0013489802915) == "38.8990252802915")
        #expect(GeocodeJSONWriter.number(-122.0842499 + 0.0013489802915) == "-122.0829009197085")
    }

    /// `number` writes values of at most 7 decimals without the shortest-digits search: for every
    /// coordinate a gazetteer answer can hold (each record's rounded location and bounds, a
    /// postal code's box), and for random ones, the bytes must be the search's (or a whole
    /// number's digits); `sevenDecimals` must write the 7 decimals of the scaled integer.
    @Test func sevenDecimalNumbersAreWrittenAsTheShortestDigitsSearchWritesThem() async {
        let mismatches = await withCheckedContinuation { (done: CheckedContinuation<[Double], Never>) in
            Thread.detachNewThread {
                let gazetteer = sharedGazetteer
                var boxes = gazetteer.postalCodes.map { Box(around: $0.location, metres: $0.radius) }
                boxes += gazetteer.postalCodes.map { Box(southwest: $0.location, northeast: $0.location) }
                boxes += gazetteer.localities.map { [$0.bounds, Box(southwest: $0.location, northeast: $0.location)] }.joined()
                boxes += gazetteer.states.map { [$0.bounds, Box(southwest: $0.location, northeast: $0.location)] }.joined()
                boxes += gazetteer.countries.map { [$0.bounds, Box(southwest: $0.location, northeast: $0.location)] }.joined()
                var values = boxes.flatMap { box in [box.southwest, box.northeast].flatMap { [$0.rounded.lat, $0.rounded.lng] } }
                var generator = SeededGenerator(seed: 22)
                values += (0..<20_000).map { _ in (Double.random(in: -180...180, using: &generator) * 1e7).rounded() / 1e7 }
                values += (0..<2_000).map { _ in Double(Int.random(in: -999...999, using: &generator)) / 1e7 }
                values += [0.0001, -0.0001, 0.00001, -0.0000001, 179.9999999, -89.9999999, 0.5, -0.5, 0, -0.0, 52, -122, 1e9 + 0.5]
                done.resume(
                    returning: values.filter { value in
                        var fast = ByteWriter(capacity: 32)
                        var reference = ByteWriter(capacity: 32)
                        fast.number(value)
                        if value == value.rounded() { reference.decimal(UInt64(abs(value))) } else { reference.shortestNumber(value) }
                        var sevenDecimals = ByteWriter(capacity: 32)
                        sevenDecimals.sevenDecimals(value)
                        let scaled = UInt64((abs(value) * 1e7).rounded())
                        let fraction = String(scaled % 10_000_000)
                        let expected =
                            (value < 0 && scaled != 0 ? "-" : "") + "\(scaled / 10_000_000)." + String(repeating: "0", count: 7 - fraction.count)
                            + fraction
                        return fast.bytes != (value < 0 && value == value.rounded() ? [UInt8(ascii: "-")] : []) + reference.bytes
                            || String(decoding: sevenDecimals.bytes, as: UTF8.self) != expected
                    })
            }
        }
        #expect(mismatches.isEmpty, "\(mismatches.prefix(10))")
    }

    @Test func textIsEscapedForEachFormat() {
        var result = GeocodeResult(
            types: ["street_address"], formattedAddress: #"Fish & "Chips" <Shop>, Zürich"#, components: [],
            location: Coordinate(lat: 1, lng: 2), locationType: "ROOFTOP",
            viewport: Box(around: Coordinate(lat: 1, lng: 2), metres: 10), bounds: nil, placeID: "ChIJx")
        result.partialMatch = true
        let answer = GeocodeAnswer(status: .ok, results: [result])
        let xml = String(decoding: GeocodeXMLWriter.write(answer), as: UTF8.self)
        let json = String(decoding: GeocodeJSONWriter.write(answer), as: UTF8.self)
        #expect(xml.contains(#"<formatted_address>Fish &amp; "Chips" &lt;Shop&gt;, Zürich</formatted_address>"#))
        #expect(xml.contains(" <partial_match>true</partial_match>\n  <place_id>ChIJx</place_id>"))
        #expect(json.contains(#""formatted_address" : "Fish & \"Chips\" <Shop>, Zürich","#))
        #expect(json.contains(#""address_components" : [],"#))
    }
}
