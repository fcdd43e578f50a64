import Foundation

// Module Geocoder: an emulation of Google's geocoding web service (`/maps/api/geocode/xml|json`)
// over a gazetteer of real places (US ZIP codes, the world's cities, US states, countries) and
// the user's own exact places. See docs/geocoder.md.

/// A point on the globe, in degrees.
public struct Coordinate: Sendable, Equatable {
    public var lat: Double
    public var lng: Double

    public init(lat: Double, lng: Double) {
        self.lat = lat
        self.lng = lng
    }

    /// Great-circle distance in metres (haversine).
    public func distance(to other: Coordinate) -> Double {
        let radians = Double.pi / 180
        let dLat = (other.lat - lat) * radians
        let dLng = (other.lng - lng) * radians
        let a = sin(dLat / 2) * sin(dLat / 2) + cos(lat * radians) * cos(other.lat * radians) * sin(dLng / 2) * sin(dLng / 2)
        return Self.earthRadius * 2 * atan2(a.squareRoot(), (1 - a).squareRoot())
    }

    private static let earthRadius = 6_371_000.0

    /// Whether `other` may be within `metres`, judged by the latitudes alone (the
    /// distance is at least the arc between them, less a margin for rounding): a search skips
    /// the trigonometry of points that are too far north or south.
    func mayBeWithin(_ metres: Double, of other: Coordinate) -> Bool {
        Self.earthRadius * abs(other.lat - lat) * (Double.pi / 180) * (1 - 1e-9) <= metres
    }

    /// The same point with both degrees rounded to 7 decimals, the precision Google answers in.
    var rounded: Coordinate {
        Coordinate(lat: (lat * 1e7).rounded() / 1e7, lng: (lng * 1e7).rounded() / 1e7)
    }
}

/// A rectangle given by its south-west and north-east corners.
public struct Box: Sendable, Equatable {
    public var southwest: Coordinate
    public var northeast: Coordinate

    public init(southwest: Coordinate, northeast: Coordinate) {
        self.southwest = southwest
        self.northeast = northeast
    }

    /// The box reaching `metres` from `centre` north, south, east and west.
    public init(around centre: Coordinate, metres: Double) {
        let dLat = metres / 111_320
        let dLng = metres / (111_320 * max(cos(centre.lat * Double.pi / 180), 0.01))
        southwest = Coordinate(lat: max(centre.lat - dLat, -90), lng: max(centre.lng - dLng, -180)).rounded
        northeast = Coordinate(lat: min(centre.lat + dLat, 90), lng: min(centre.lng + dLng, 180)).rounded
    }

    /// Google's viewport of an exact address: 0.0013489802915° each way, unrounded (hence the
    /// tell-tale `…802915` / `…197085` endings of real responses).
    static func rooftopViewport(around centre: Coordinate) -> Box {
        let half = 0.0013489802915
        return Box(
            southwest: Coordinate(lat: centre.lat - half, lng: centre.lng - half),
            northeast: Coordinate(lat: centre.lat + half, lng: centre.lng + half))
    }

    public func contains(_ point: Coordinate) -> Bool {
        (southwest.lat...northeast.lat).contains(point.lat) && (southwest.lng...northeast.lng).contains(point.lng)
    }

    /// The smallest box holding both.
    func union(_ other: Box) -> Box {
        Box(
            southwest: Coordinate(lat: min(southwest.lat, other.southwest.lat), lng: min(southwest.lng, other.southwest.lng)),
            northeast: Coordinate(lat: max(northeast.lat, other.northeast.lat), lng: max(northeast.lng, other.northeast.lng)))
    }
}

/// One entry of a result's `address_components`.
public struct AddressComponent: Sendable, Equatable {
    public var longName: String
    public var shortName: String
    public var types: [String]

    public init(longName: String, shortName: String, types: [String]) {
        self.longName = longName
        self.shortName = shortName
        self.types = types
    }
}

/// One geocoding result made as values, with Google's fields: a user's place (the gazetteer's
/// places are `PlaceResult`s, written from their records). The writers lay it out as XML or JSON.
public struct GeocodeResult: Sendable, Equatable {
    public var types: [String]
    public var formattedAddress: String
    public var components: [AddressComponent]
    public var location: Coordinate
    /// `ROOFTOP`, `RANGE_INTERPOLATED`, `GEOMETRIC_CENTER` or `APPROXIMATE`.
    public var locationType: String
    public var viewport: Box
    /// Areas (postal codes, towns, states, countries) have bounds; exact addresses do not.
    public var bounds: Box?
    /// Set when only part of the query could be placed (e.g. a street in a known ZIP code).
    public var partialMatch = false
    public var placeID: String
}

/// The statuses of Google's envelope. Every one is sent with HTTP 200.
public enum GeocodeStatus: String, Sendable, CaseIterable {
    case ok = "OK"
    case zeroResults = "ZERO_RESULTS"
    case overDailyLimit = "OVER_DAILY_LIMIT"
    case overQueryLimit = "OVER_QUERY_LIMIT"
    case requestDenied = "REQUEST_DENIED"
    case invalidRequest = "INVALID_REQUEST"
    case unknownError = "UNKNOWN_ERROR"
}

/// What the service answers: a status, the results, and for most failures Google's message.
public struct GeocodeAnswer: Sendable, Equatable {
    public var status: GeocodeStatus
    /// Results made as values (the user's places), listed first.
    public var results: [GeocodeResult]
    /// The gazetteer's places, listed after `results`.
    var places: [PlaceResult] = []
    public var errorMessage: String?

    public init(status: GeocodeStatus, results: [GeocodeResult] = [], errorMessage: String? = nil) {
        self.status = status
        self.results = results
        self.errorMessage = errorMessage
    }

    /// `OK` with results, `ZERO_RESULTS` without.
    static func found(_ results: [GeocodeResult] = [], places: [PlaceResult] = []) -> GeocodeAnswer {
        var answer = GeocodeAnswer(status: results.isEmpty && places.isEmpty ? .zeroResults : .ok, results: results)
        answer.places = places
        return answer
    }

    /// How many results the answer lists.
    var count: Int { results.count + places.count }

    static func invalid(_ message: String) -> GeocodeAnswer {
        GeocodeAnswer(status: .invalidRequest, errorMessage: message)
    }
}
