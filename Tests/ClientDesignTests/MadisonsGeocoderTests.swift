import Foundation
import Geocoder
import MockCore
import Testing
import UnderstudyTesting

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if canImport(FoundationXML)
import FoundationXML
#endif

/// Seed 000: the Madisons app's store locator turns a ZIP code into coordinates through its
/// "Geocoder URL" setting (`http://maps.googleapis.com/maps/api/geocode/xml`), reading the first
/// `<lat>` and `<lng>` of the answer with an XML parser, as the iPhone and iPad builds do.
@Suite struct MadisonsGeocoderTests {
    /// What the app keeps of the answer: the status and the first location.
    final class CoordinatesReader: NSObject, XMLParserDelegate {
        var status = "", lat: Double?, lng: Double?
        private var path: [String] = [], text = ""

        func parser(
            _ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?, attributes: [String: String] = [:]
        ) {
            path.append(name)
            text = ""
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) { text += string }

        func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
            switch path.suffix(2) {
            case ["GeocodeResponse", "status"]: status = text
            case ["location", "lat"] where lat == nil: lat = Double(text)
            case ["location", "lng"] where lng == nil: lng = Double(text)
            default: break
            }
            path.removeLast()
        }
    }

    func locate(_ address: String, on server: TestServer) async throws -> CoordinatesReader {
        // The app appends `address` and `sensor=true` to its configured URL.
        var components = URLComponents(url: server.url("/maps/api/geocode/xml"), resolvingAgainstBaseURL: false)!
        components.queryItems = [URLQueryItem(name: "address", value: address), URLQueryItem(name: "sensor", value: "true")]
        let (data, response) = try await server.session.data(from: components.url!)
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        let reader = CoordinatesReader()
        let parser = XMLParser(data: data)
        parser.delegate = reader
        #expect(parser.parse())
        return reader
    }

    @Test func theStoreLocatorFindsSunnyvaleFromItsZIPCode() async throws {
        let server = try TestServer.start(backends: [GeocoderBackend(directory: shippedStubs.appendingPathComponent("geocoder"))])
        defer { server.stop() }
        let sunnyvale = try await locate("94086", on: server)
        #expect(sunnyvale.status == "OK")
        let lat = try #require(sunnyvale.lat)
        let lng = try #require(sunnyvale.lng)
        #expect(abs(lat - 37.37) < 0.03 && abs(lng - -122.03) < 0.03)
    }

    @Test func theIPadCoordinatesLookupAcceptsPostalCodesAndTowns() async throws {
        let server = try TestServer.start(backends: [GeocoderBackend(directory: shippedStubs.appendingPathComponent("geocoder"))])
        defer { server.stop() }
        let seattle = try await locate("98101", on: server)
        #expect(abs((seattle.lat ?? 0) - 47.61) < 0.03 && abs((seattle.lng ?? 0) - -122.33) < 0.03)
        let town = try await locate("Armonk, NY", on: server)
        #expect(town.status == "OK")
        #expect(abs((town.lat ?? 0) - 41.13) < 0.05)
        // A typo the app must handle: no results, and no coordinates to read.
        let nowhere = try await locate("0000x", on: server)
        #expect(nowhere.status == "ZERO_RESULTS")
        #expect(nowhere.lat == nil)
    }

    /// The app ships French and its setting converts "ZIP codes, Postal Codes, or addresses": a
    /// shopper in Canada types a postal code or a town with its province, the French way too.
    /// The request is the same in every language (the app adds no `language`), so the answer's
    /// coordinates are what matter.
    @Test func theStoreLocatorFindsMarkhamFromACanadianPostalCodeOrTownInEnglishOrFrench() async throws {
        let server = try TestServer.start(backends: [GeocoderBackend(directory: shippedStubs.appendingPathComponent("geocoder"))])
        defer { server.stop() }
        // IBM's Markham lab, by its postal code, as typed with and without the space.
        for code in ["L6G 1C7", "l6g1c7"] {
            let lab = try await locate(code, on: server)
            #expect(lab.status == "OK", "\(code)")
            #expect(abs((lab.lat ?? 0) - 43.846) < 0.01 && abs((lab.lng ?? 0) - -79.332) < 0.01, "\(code)")
        }
        for town in ["Markham, ON", "Markham (Ontario)", "Markham, Ontario"] {
            let markham = try await locate(town, on: server)
            #expect(markham.status == "OK", "\(town)")
            // Markham, Ontario — never Ontario, California (34.06, -117.65).
            #expect(abs((markham.lat ?? 0) - 43.87) < 0.05 && abs((markham.lng ?? 0) - -79.27) < 0.05, "\(town)")
        }
        let downtown = try await locate("M5V 3L9", on: server)
        #expect(abs((downtown.lat ?? 0) - 43.642) < 0.01 && abs((downtown.lng ?? 0) - -79.386) < 0.01)
        let montreal = try await locate("Montréal (Québec)", on: server)
        #expect(abs((montreal.lat ?? 0) - 45.51) < 0.05 && abs((montreal.lng ?? 0) - -73.59) < 0.05)
    }
}
