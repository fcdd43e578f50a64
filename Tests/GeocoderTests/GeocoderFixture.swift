import Foundation
import MockCore
import UnderstudyTesting

@testable import Geocoder

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The repository's `stubs/geocoder`, as `make run` serves it.
let shippedGeocoder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("stubs/geocoder")

/// The shipped gazetteer, loaded once for the whole test run.
let sharedGazetteer = Gazetteer(directory: shippedGeocoder)

/// The geocoder over the shipped gazetteer, behind the router in memory; `config` and `places`
/// (JSON texts), when given, replace the shipped ones in a folder of the test's own.
func geocoderServer(config: String? = nil, places: String? = nil) throws -> (BackendTester, GeocoderBackend) {
    var directory = shippedGeocoder
    if config != nil || places != nil {
        let shippedPlaces = try String(contentsOf: shippedGeocoder.appendingPathComponent("places.json"), encoding: .utf8)
        directory = try makeTemporaryDirectory(["config.json": config ?? "{}", "places.json": places ?? shippedPlaces])
    }
    let backend = GeocoderBackend(directory: directory, gazetteer: sharedGazetteer)
    return (try BackendTester(backends: [backend]), backend)
}

/// A geocoding answer as a client reads the JSON.
struct GeocodeJSON: Decodable {
    struct Result: Decodable {
        struct Component: Decodable {
            let long_name: String
            let short_name: String
            let types: [String]
        }
        struct Geometry: Decodable {
            struct Point: Decodable {
                let lat: Double
                let lng: Double
            }
            struct Box: Decodable {
                let northeast: Point
                let southwest: Point
            }
            let location: Point
            let location_type: String
            let viewport: Box
            let bounds: Box?
        }
        let address_components: [Component]
        let formatted_address: String
        let geometry: Geometry
        let partial_match: Bool?
        let place_id: String
        let types: [String]
    }
    let status: String
    let results: [Result]
    let error_message: String?
}

extension BackendTester {
    /// GET `/maps/api/geocode/json?<query>`, decoded.
    func geocode(_ query: String) async throws -> GeocodeJSON {
        let (body, response) = try await send("GET", "/maps/api/geocode/json?" + query)
        guard response.statusCode == 200 else { throw GeocoderTestError.status(response.statusCode, String(decoding: body, as: UTF8.self)) }
        return try JSONDecoder().decode(GeocodeJSON.self, from: body)
    }
}

enum GeocoderTestError: Error {
    case status(Int, String)
}
