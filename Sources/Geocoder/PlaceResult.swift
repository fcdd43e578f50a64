import WireFormat

/// A gazetteer place as a geocoding result, written straight from its records (no strings or
/// arrays are made for it): Google's types, the formatted address, the address components in
/// Google's order (postal code, locality, county, state, country) and geometry. Areas are
/// `APPROXIMATE` with bounds; the viewport is the bounds.
struct PlaceResult: Sendable, Equatable {
    enum Kind: Sendable { case postalCode, locality, state, country }

    let gazetteer: Gazetteer
    let kind: Kind
    /// The record's index in its table.
    let index: Int
    /// Set when only part of the query could be placed (e.g. a street in a known ZIP code).
    var partialMatch = false

    static func == (left: PlaceResult, right: PlaceResult) -> Bool {
        left.gazetteer === right.gazetteer && left.kind == right.kind && left.index == right.index && left.partialMatch == right.partialMatch
    }
}

/// One entry of a place's `address_components`, read from the records.
struct PlaceComponent: AddressComponentFields {
    let longName: PlaceText, shortName: PlaceText
    let types: [StaticString]
}

/// Google's types of the gazetteer's places and their components.
enum PlaceTypes {
    static let postalCode: [StaticString] = ["postal_code"]
    /// A Canadian forward sortation area ("L6G"): a postal code prefix, as Google types one.
    static let postalCodePrefix: [StaticString] = ["postal_code_prefix", "postal_code"]
    static let locality: [StaticString] = ["locality", "political"]
    static let county: [StaticString] = ["administrative_area_level_2", "political"]
    static let region: [StaticString] = ["administrative_area_level_1", "political"]
    static let country: [StaticString] = ["country", "political"]
}

extension Gazetteer {
    func result(postalCode index: Int, partialMatch: Bool = false) -> PlaceResult {
        PlaceResult(gazetteer: self, kind: .postalCode, index: index, partialMatch: partialMatch)
    }

    func result(locality index: Int, partialMatch: Bool = false) -> PlaceResult {
        PlaceResult(gazetteer: self, kind: .locality, index: index, partialMatch: partialMatch)
    }

    func result(state index: Int, partialMatch: Bool = false) -> PlaceResult {
        PlaceResult(gazetteer: self, kind: .state, index: index, partialMatch: partialMatch)
    }

    func result(country index: Int, partialMatch: Bool = false) -> PlaceResult {
        PlaceResult(gazetteer: self, kind: .country, index: index, partialMatch: partialMatch)
    }

    /// The place a place ID names, if it is still in the gazetteer.
    func result(for key: PlaceKey) -> PlaceResult? {
        switch key {
        case .postalCode(let zip): return postalCodesByZIP[zip].map { result(postalCode: $0) }
        case .state(let code): return statesByCode[code].map { result(state: $0) }
        case .country(let code): return countriesByCode[code].map { result(country: $0) }
        case .locality(let country, let region, let name):
            let index = localitiesByName[name]?.first { localities[$0].country == country && localities[$0].regionCode == region }
            return index.map { result(locality: $0) }
        case .userPlace: return nil
        }
    }

    /// County (when known), state (or province) and country components of a place.
    func forEachCountyStateCountry(county: PlaceText, state code: PlaceText, country: PlaceText, _ body: (PlaceComponent) -> Void) {
        if !county.isEmpty { body(PlaceComponent(longName: county, shortName: county, types: PlaceTypes.county)) }
        let region = regionIndex(country: country, code: code)
        body(PlaceComponent(longName: region.map { text(state: $0, .name) } ?? code, shortName: code, types: PlaceTypes.region))
        body(countryComponent(country))
    }

    func countryComponent(_ code: PlaceText) -> PlaceComponent {
        PlaceComponent(longName: countryName(code), shortName: code, types: PlaceTypes.country)
    }

    /// The name of the country with ISO code `code`, or the code when the gazetteer lacks it.
    func countryName(_ code: PlaceText) -> PlaceText {
        guard let index = countryIndex(code) ?? countriesByName[PlaceName.key(code.string)] else { return code }
        return text(country: index, .name)
    }
}

extension PlaceResult: GeocodeResultFields {
    private static let unitedStates = PlaceText("US")

    var types: [StaticString] {
        switch kind {
        case .postalCode:
            let place = gazetteer.postalCodes[index]
            let isSortationArea = place.text(.country) == PlaceText("CA") && place.text(.zip).bytes.count == 3
            return isSortationArea ? PlaceTypes.postalCodePrefix : PlaceTypes.postalCode
        case .locality: return PlaceTypes.locality
        case .state: return PlaceTypes.region
        case .country: return PlaceTypes.country
        }
    }

    var formattedAddress: PlaceAddress {
        switch kind {
        case .postalCode:
            let place = gazetteer.postalCodes[index]
            let country = place.text(.country)
            return PlaceAddress(
                name: townName, region: place.text(.state), postalCode: place.text(.zip),
                country: country == Self.unitedStates ? PlaceText("USA") : gazetteer.countryName(country))
        case .locality:
            let place = gazetteer.localities[index]
            let country = place.text(.country)
            if country == Self.unitedStates {
                return PlaceAddress(name: place.text(.name), region: place.text(.regionCode), country: PlaceText("USA"))
            }
            // A region with a short code is written with it, as Google writes "Toronto, ON, Canada".
            let short = place.text(.regionShortCode)
            return PlaceAddress(name: place.text(.name), region: short.isEmpty ? nil : short, country: gazetteer.countryName(country))
        case .state:
            let country = gazetteer.text(state: index, .country)
            return PlaceAddress(
                name: gazetteer.text(state: index, .name),
                country: country == Self.unitedStates ? PlaceText("USA") : gazetteer.countryName(country))
        case .country:
            return PlaceAddress(name: gazetteer.text(country: index, .name))
        }
    }

    /// The town's own spelling ("St. Louis", where the ZIP list says "Saint Louis").
    private var townName: PlaceText {
        guard let town = gazetteer.town(ofPostalCode: index) else { return gazetteer.postalCodes[index].text(.city) }
        return gazetteer.localities[town].text(.name)
    }

    var hasComponents: Bool { true }

    func forEachComponent(_ body: (PlaceComponent) -> Void) {
        switch kind {
        case .postalCode:
            let place = gazetteer.postalCodes[index]
            let town = townName
            body(PlaceComponent(longName: place.text(.zip), shortName: place.text(.zip), types: types))
            body(PlaceComponent(longName: town, shortName: town, types: PlaceTypes.locality))
            gazetteer.forEachCountyStateCountry(county: place.text(.county), state: place.text(.state), country: place.text(.country), body)
        case .locality:
            let place = gazetteer.localities[index]
            let name = place.text(.name)
            let country = place.text(.country)
            body(PlaceComponent(longName: name, shortName: name, types: PlaceTypes.locality))
            if country == Self.unitedStates {
                return gazetteer.forEachCountyStateCountry(county: place.text(.county), state: place.text(.regionCode), country: country, body)
            }
            let region = place.text(.regionName)
            let short = place.text(.regionShortCode)
            if !region.isEmpty && region != name {
                body(PlaceComponent(longName: region, shortName: short.isEmpty ? region : short, types: PlaceTypes.region))
            }
            body(gazetteer.countryComponent(country))
        case .state:
            gazetteer.forEachCountyStateCountry(
                county: PlaceText(""), state: gazetteer.text(state: index, .code),
                country: gazetteer.text(state: index, .country), body)
        case .country:
            body(gazetteer.countryComponent(gazetteer.text(country: index, .code)))
        }
    }

    var location: Coordinate {
        switch kind {
        case .postalCode: gazetteer.postalCodes[index].location.rounded
        case .locality: gazetteer.localities[index].location.rounded
        case .state: gazetteer.states[index].location.rounded
        case .country: gazetteer.countries[index].location.rounded
        }
    }

    var locationType: StaticString { "APPROXIMATE" }

    /// The place's area: its bounds, and its viewport.
    private var area: Box {
        switch kind {
        case .postalCode:
            let place = gazetteer.postalCodes[index]
            return Box(around: place.location, metres: place.radius)
        case .locality: return gazetteer.localities[index].bounds.rounded
        case .state: return gazetteer.states[index].bounds.rounded
        case .country: return gazetteer.countries[index].bounds.rounded
        }
    }

    var geometry: (viewport: Box, bounds: Box?) {
        let area = area
        return (area, area)
    }

    var placeID: PlaceResultID { PlaceResultID(place: self) }
}

/// A place's formatted address, as Google writes each kind: "Sunnyvale, CA 94086, USA",
/// "Toronto, ON, Canada", "Ontario, Canada", "Canada".
struct PlaceAddress: ResultText {
    let name: PlaceText
    var region: PlaceText?
    /// Written after the region, with a space.
    var postalCode: PlaceText?
    var country: PlaceText?

    func write(to out: inout ByteWriter) { write(escapedBy: nil, to: &out) }

    func write(escapedBy escaper: TextEscaper, to out: inout ByteWriter) { write(escapedBy: Optional(escaper), to: &out) }

    // Escaping the parts one by one escapes the whole: the separators need none.
    private func write(escapedBy escaper: TextEscaper?, to out: inout ByteWriter) {
        Self.write(name, escapedBy: escaper, to: &out)
        if let region {
            out.write(", ")
            Self.write(region, escapedBy: escaper, to: &out)
        }
        if let postalCode {
            out.write(" ")
            Self.write(postalCode, escapedBy: escaper, to: &out)
        }
        if let country {
            out.write(", ")
            Self.write(country, escapedBy: escaper, to: &out)
        }
    }

    private static func write(_ text: PlaceText, escapedBy escaper: TextEscaper?, to out: inout ByteWriter) {
        if let escaper { text.write(escapedBy: escaper, to: &out) } else { text.write(to: &out) }
    }
}

/// A place's ID (`PlaceKey`), written from its record's fields.
struct PlaceResultID: ResultText {
    let place: PlaceResult

    func write(to out: inout ByteWriter) {
        let gazetteer = place.gazetteer
        var id: PlaceIDWriter
        switch place.kind {
        case .postalCode:
            id = PlaceIDWriter(tag: "Z", to: &out)
            id.field(gazetteer.postalCodes[place.index].text(.zip), to: &out)
        case .locality:
            let town = gazetteer.localities[place.index]
            id = PlaceIDWriter(tag: "L", to: &out)
            id.field(town.text(.country), to: &out)
            id.field(town.text(.regionCode), to: &out)
            id.field(town.text(.nameKey), to: &out)
        case .state:
            // The state's key: "CA", or "CA-ON" outside the US (`Gazetteer.regionKey`).
            let country = gazetteer.text(state: place.index, .country)
            id = PlaceIDWriter(tag: "S", to: &out)
            if country == PlaceText("US") {
                id.field(gazetteer.text(state: place.index, .code), to: &out)
            } else {
                id.field(country, to: &out)
                id.bytes(PlaceText("-"), to: &out)
                id.bytes(gazetteer.text(state: place.index, .code), to: &out)
            }
        case .country:
            id = PlaceIDWriter(tag: "C", to: &out)
            id.field(gazetteer.text(country: place.index, .code), to: &out)
        }
        id.finish(to: &out)
    }

    /// Base64url needs no escaping in either format.
    func write(escapedBy escaper: TextEscaper, to out: inout ByteWriter) { write(to: &out) }
}

extension AddressComponent {
    init(_ component: PlaceComponent) {
        self.init(longName: component.longName.string, shortName: component.shortName.string, types: component.types.map(\.description))
    }
}

extension Box {
    var rounded: Box { Box(southwest: southwest.rounded, northeast: northeast.rounded) }
}
