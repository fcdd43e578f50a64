import Foundation
import HTTPServer

/// A geocoding request's parameters, checked as Google checks them: exactly one of `address` /
/// `components`, `latlng` and `place_id`; well-formed `bounds`, `components` and filters.
/// `sensor`, `language`, `key`, `client`, `channel` and `signature` are read elsewhere or ignored.
enum GeocodeRequest: Equatable {
    case forward(ForwardLookup.Query)
    case reverse(Coordinate, resultTypes: Set<String>?, locationTypes: Set<String>?)
    case placeID(String)

    /// The request, or the `INVALID_REQUEST` answer explaining what is wrong.
    static func parse(_ request: Request) -> Result<GeocodeRequest, GeocodeInvalid> {
        func value(_ name: String) -> String? {
            request.query(name).flatMap { isBlank($0) ? nil : $0 }
        }
        let address = value("address")
        let components = value("components")
        let latlng = value("latlng")
        let placeID = value("place_id")
        let given = [address != nil || components != nil, latlng != nil, placeID != nil].filter { $0 }.count
        guard given > 0 else {
            return .failure(GeocodeInvalid("Invalid request. Missing the 'address', 'components', 'latlng' or 'place_id' parameter."))
        }
        guard given == 1 else {
            return .failure(GeocodeInvalid("Invalid request. Only one of 'address' or 'components', 'latlng' and 'place_id' may be given."))
        }
        if let placeID { return .success(.placeID(placeID)) }
        if let latlng {
            guard let point = coordinate(latlng) else { return .failure(GeocodeInvalid("Invalid request. Invalid 'latlng' parameter.")) }
            let resultTypes = value("result_type").map(filterValues)
            let locationTypes = value("location_type").map(filterValues)
            if let resultTypes, !resultTypes.isSubset(of: addressTypes) {
                return .failure(GeocodeInvalid("Invalid request. Invalid 'result_type' parameter."))
            }
            if let locationTypes, !locationTypes.isSubset(of: GeocodeRequest.locationTypes) {
                return .failure(GeocodeInvalid("Invalid request. Invalid 'location_type' parameter."))
            }
            return .success(.reverse(point, resultTypes: resultTypes, locationTypes: locationTypes))
        }
        var query = ForwardLookup.Query(words: PlaceName.words(address ?? ""), regionBias: value("region"))
        if let components {
            var tail: [String] = []
            for pair in components.split(separator: "|") {
                guard let colon = pair.firstIndex(of: ":") else {
                    return .failure(GeocodeInvalid("Invalid request. Invalid 'components' parameter."))
                }
                let name = pair[..<colon].trimmingCharacters(in: .whitespaces).lowercased()
                let text = String(pair[pair.index(after: colon)...])
                switch name {
                case "country": query.country = text
                case "route": query.hasRoute = true
                case "locality", "administrative_area", "postal_code": tail += PlaceName.words(text)
                default: return .failure(GeocodeInvalid("Invalid request. Invalid 'components' parameter."))
                }
            }
            // Town, then region, then ZIP code: the order an address names them in.
            query.words += tail
        }
        if let bounds = value("bounds") {
            let corners = bounds.split(separator: "|").map { coordinate(String($0)) }
            guard corners.count == 2, let southwest = corners[0], let northeast = corners[1] else {
                return .failure(GeocodeInvalid("Invalid request. Invalid 'bounds' parameter."))
            }
            query.boundsBias = Box(southwest: southwest, northeast: northeast)
        }
        return .success(.forward(query))
    }

    /// Whether `text` is empty or only whitespace. Most values start with a visible ASCII
    /// character, which settles it without reading `Character`s.
    private static func isBlank(_ text: String) -> Bool {
        if let first = text.utf8.first, first > 0x20, first < 0x7F { return false }
        return text.allSatisfy(\.isWhitespace)
    }

    /// `lat,lng` in range, spaces allowed around either.
    private static func coordinate(_ text: String) -> Coordinate? {
        // Split, trimmed and read on the bytes: Characters cost more than the rest of the parse.
        var text = text
        let parts = text.withUTF8 { bytes -> (Double?, Double?)? in
            guard let comma = bytes.firstIndex(of: UInt8(ascii: ",")), !bytes[(comma + 1)...].contains(UInt8(ascii: ",")) else { return nil }
            return (decimal(trimmed(bytes[..<comma])), decimal(trimmed(bytes[(comma + 1)...])))
        }
        guard case (let lat?, let lng?)? = parts, (-90...90).contains(lat), (-180...180).contains(lng) else { return nil }
        return Coordinate(lat: lat, lng: lng)
    }

    /// Without the spaces around it. (Taken off as bytes: a space followed by a combining mark
    /// is a `Character` of its own, but what is left then is no number either way.)
    private static func trimmed(_ bytes: Slice<UnsafeBufferPointer<UInt8>>) -> Slice<UnsafeBufferPointer<UInt8>> {
        let start = bytes.firstIndex { $0 != UInt8(ascii: " ") } ?? bytes.endIndex
        let end = bytes[start...].lastIndex { $0 != UInt8(ascii: " ") }.map { $0 + 1 } ?? start
        return bytes[start..<end]
    }

    /// `Double(text)` of UTF-8 `bytes`, without the general conversion for a plain decimal
    /// ("-122.0238"): its digits, at most 15, are an exact integer and 10^decimals an exact
    /// power, so one division rounds as the conversion does (Clinger's fast path). Anything else
    /// goes to `Double(_:)`.
    static func decimal(_ bytes: Slice<UnsafeBufferPointer<UInt8>>) -> Double? {
        let negative = bytes.first == UInt8(ascii: "-")
        var digits: UInt64 = 0
        var count = 0
        var decimals = 0
        var afterPoint = false
        for byte in negative ? bytes.dropFirst() : bytes {
            if byte == UInt8(ascii: "."), !afterPoint, count > 0 {
                afterPoint = true
                continue
            }
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte), count < 15 else { return Double(String(decoding: bytes, as: UTF8.self)) }
            digits = digits * 10 + UInt64(byte - UInt8(ascii: "0"))
            count += 1
            if afterPoint { decimals += 1 }
        }
        guard count > 0, !afterPoint || decimals > 0 else { return Double(String(decoding: bytes, as: UTF8.self)) }
        let value = Double(digits) / powersOfTen[decimals]
        return negative ? -value : value
    }

    /// 10⁰ to 10¹⁵, each exact (made by multiplying exact values).
    private static let powersOfTen: [Double] = (0...15).map { exponent in (0..<exponent).reduce(1.0) { power, _ in power * 10 } }

    private static func filterValues(_ text: String) -> Set<String> {
        Set(text.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) })
    }

    /// The values `result_type` accepts: Google's address types.
    static let addressTypes: Set<String> = [
        "street_address", "route", "intersection", "political", "country", "administrative_area_level_1",
        "administrative_area_level_2", "administrative_area_level_3", "administrative_area_level_4",
        "administrative_area_level_5", "colloquial_area", "locality", "sublocality", "neighborhood", "premise",
        "subpremise", "plus_code", "postal_code", "natural_feature", "airport", "park", "point_of_interest",
    ]

    static let locationTypes: Set<String> = ["ROOFTOP", "RANGE_INTERPOLATED", "GEOMETRIC_CENTER", "APPROXIMATE"]
}

/// Why a request is `INVALID_REQUEST`, in Google's words.
struct GeocodeInvalid: Error, Equatable {
    let message: String
    init(_ message: String) { self.message = message }
}
