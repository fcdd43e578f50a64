import Foundation
import Testing
@testable import Geocoder
import UnderstudyTesting

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
        defer { server.stop() }
        let (body, response) = try await server.send("GET", "/maps/api/geocode/" + query)
        #expect(response.statusCode == 200)
        #expect(response.value(forHTTPHeaderField: "Content-Type") == (file.hasSuffix(".xml") ? "application/xml; charset=UTF-8" : "application/json; charset=UTF-8"))
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

    @Test func textIsEscapedForEachFormat() {
        var result = GeocodeResult(types: ["street_address"], formattedAddress: #"Fish & "Chips" <Shop>, Zürich"#, components: [],
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
