import Foundation
import JSON
import MockCore

/// The user's own places, `stubs/geocoder/places.json`, which win over the gazetteer: an address
/// that answers an exact (`ROOFTOP`) result, or a fixed status to test an app's error paths.
///
/// ```json
/// { "places": [
///   { "address": "1600 Amphitheatre Parkway, Mountain View, CA",
///     "aliases": ["1600 Amphitheatre Pkwy, Mountain View, CA 94043"],
///     "formatted_address": "1600 Amphitheatre Pkwy, Mountain View, CA 94043, USA",
///     "lat": 37.4224764, "lng": -122.0842499 },
///   { "address": "flaky street", "status": "UNKNOWN_ERROR" } ] }
/// ```
/// `types` (default `["street_address"]`), `location_type` (default `ROOFTOP`) and
/// `address_components` are optional; without components, the street number and route come from
/// the address and the rest from the ZIP code the address names, or else the one at the coordinates.
struct UserPlaces: Sendable {
    enum Answer: Sendable {
        case result(GeocodeResult)
        case status(GeocodeStatus, message: String?)
    }

    private(set) var byAddress: [String: Answer] = [:]
    private(set) var results: [GeocodeResult] = []
    /// By the key in their place IDs.
    private var byKey: [String: GeocodeResult] = [:]

    init() {}

    init(file: URL, gazetteer: Gazetteer) throws(GazetteerError) {
        guard let data = FileManager.default.contents(atPath: file.path) else { return }
        let json: JSONValue
        do {
            json = try JSONValue.parse(Array(data))
        } catch {
            throw GazetteerError(file: file.path, line: error.line, message: error.message)
        }
        guard let places = json["places"]?.arrayValue else {
            throw GazetteerError(file: file.path, line: 0, message: "places: must be a list")
        }
        for (number, place) in places.enumerated() {
            func problem(_ field: String, _ message: String) -> GazetteerError {
                GazetteerError(file: file.path, line: 0, message: "places[\(number)].\(field): \(message)")
            }
            guard let address = place["address"]?.stringValue, !PlaceName.key(address).isEmpty else {
                throw problem("address", "must be a non-empty text")
            }
            let aliases = place["aliases"]?.arrayValue?.compactMap(\.stringValue) ?? []
            let answer: Answer
            if let status = place["status"] {
                guard let text = status.stringValue, let value = GeocodeStatus(rawValue: text), value != .ok else {
                    throw problem("status", "must be one of \(GeocodeStatus.allCases.dropFirst().map(\.rawValue).joined(separator: ", "))")
                }
                answer = .status(value, message: place["error_message"]?.stringValue)
            } else {
                guard let lat = place["lat"]?.doubleValue, (-90...90).contains(lat) else { throw problem("lat", "must be a latitude") }
                guard let lng = place["lng"]?.doubleValue, (-180...180).contains(lng) else { throw problem("lng", "must be a longitude") }
                let location = Coordinate(lat: lat, lng: lng).rounded
                let components: [AddressComponent]
                if let list = place["address_components"] {
                    guard let items = list.arrayValue else { throw problem("address_components", "must be a list") }
                    components = try items.enumerated().map { index, item throws(GazetteerError) in
                        guard let long = item["long_name"]?.stringValue, let types = item["types"]?.arrayValue?.compactMap(\.stringValue) else {
                            throw problem("address_components[\(index)]", "needs long_name and types")
                        }
                        return AddressComponent(longName: long, shortName: item["short_name"]?.stringValue ?? long, types: types)
                    }
                } else {
                    components = Self.components(of: address, at: location, gazetteer: gazetteer)
                }
                let types = place["types"]?.arrayValue?.compactMap(\.stringValue) ?? ["street_address"]
                let result = GeocodeResult(
                    types: types, formattedAddress: place["formatted_address"]?.stringValue ?? address, components: components,
                    location: location, locationType: place["location_type"]?.stringValue ?? "ROOFTOP",
                    viewport: .rooftopViewport(around: location), bounds: nil,
                    placeID: PlaceKey.userPlace(Self.shortKey(address)).placeID)
                answer = .result(result)
                results.append(result)
                byKey[Self.shortKey(address)] = result
            }
            for text in [address] + aliases + [place["formatted_address"]?.stringValue].compactMap({ $0 }) {
                byAddress[PlaceName.key(text)] = answer
            }
        }
    }

    func answer(for words: [String]) -> Answer? {
        byAddress.isEmpty ? nil : byAddress[words.joined(separator: " ")]
    }

    func result(for key: PlaceKey) -> GeocodeResult? {
        guard case .userPlace(let short) = key else { return nil }
        return byKey[short]
    }

    /// A short stable key of an address for its place ID: FNV-1a of its comparable form, in hex.
    static func shortKey(_ address: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in PlaceName.key(address).utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return String(hash, radix: 16)
    }

    /// The nearest place within `metres` of `point`, for reverse lookups.
    func nearest(to point: Coordinate, within metres: Double) -> GeocodeResult? {
        // A loop rather than map, filter and min: this runs for every reverse lookup.
        var nearest: (result: GeocodeResult, distance: Double)?
        for result in results where point.mayBeWithin(metres, of: result.location) {
            let distance = result.location.distance(to: point)
            if distance <= metres, distance < nearest?.distance ?? .infinity { nearest = (result, distance) }
        }
        return nearest?.result
    }

    /// Google's street-address components: number and route from the address's first part, then
    /// town, county, state, country and ZIP code of the ZIP code at the place.
    private static func components(of address: String, at location: Coordinate, gazetteer: Gazetteer) -> [AddressComponent] {
        var components: [AddressComponent] = []
        let street = address.split(separator: ",").first.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
        let parts = street.split(separator: " ", maxSplits: 1).map(String.init)
        if parts.count == 2, parts[0].first?.isNumber == true {
            components.append(AddressComponent(longName: parts[0], shortName: parts[0], types: ["street_number"]))
            components.append(AddressComponent(longName: parts[1], shortName: parts[1], types: ["route"]))
        }
        // The ZIP code the address names, else the one at the place.
        let named = PlaceName.words(address).last { gazetteer.postalCodesByZIP[$0] != nil }.flatMap { gazetteer.postalCodesByZIP[$0] }
        if let zip = named ?? gazetteer.postalCodeGrid.nearest(to: location, within: 50_000)?.index {
            let postalCode = gazetteer.postalCodes[zip]
            components.append(AddressComponent(longName: postalCode.city, shortName: postalCode.city, types: ["locality", "political"]))
            gazetteer.forEachCountyStateCountry(county: postalCode.text(.county), state: postalCode.text(.state), country: postalCode.text(.country))
            {
                components.append(AddressComponent($0))
            }
            components.append(AddressComponent(longName: postalCode.zip, shortName: postalCode.zip, types: ["postal_code"]))
        }
        return components
    }
}
