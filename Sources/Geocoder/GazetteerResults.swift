/// Google's result for each kind of gazetteer place: types, the formatted address, the address
/// components in Google's order (postal code, locality, county, state, country) and geometry.
/// Areas are `APPROXIMATE` with bounds; the viewport is the bounds.
extension Gazetteer {
    func result(postalCode index: Int, partialMatch: Bool = false) -> GeocodeResult {
        let place = postalCodes[index]
        // The town's own spelling ("St. Louis", where the ZIP list says "Saint Louis").
        let city = town(ofPostalCode: index).map { localities[$0].name } ?? place.city
        // A Canadian forward sortation area ("L6G") is a postal code prefix, as Google types one.
        let types = place.country == "CA" && place.zip.utf8.count == 3 ? ["postal_code_prefix", "postal_code"] : ["postal_code"]
        var components = [AddressComponent(longName: place.zip, shortName: place.zip, types: types),
                          AddressComponent(longName: city, shortName: city, types: ["locality", "political"])]
        components += countyStateCountry(county: place.county, state: place.state, country: place.country)
        let bounds = Box(around: place.location, metres: place.radius)
        let country = place.country == "US" ? "USA" : self.country(place.country)?.name ?? place.country
        return GeocodeResult(types: types, formattedAddress: "\(city), \(place.state) \(place.zip), \(country)",
                             components: components, location: place.location.rounded, locationType: "APPROXIMATE",
                             viewport: bounds, bounds: bounds, partialMatch: partialMatch, placeID: PlaceKey.postalCode(place.zip).placeID)
    }

    func result(locality index: Int, partialMatch: Bool = false) -> GeocodeResult {
        let place = localities[index]
        var components = [AddressComponent(longName: place.name, shortName: place.name, types: ["locality", "political"])]
        let formatted: String
        if place.country == "US" {
            components += countyStateCountry(county: place.county, state: place.regionCode)
            formatted = "\(place.name), \(place.regionCode), USA"
        } else {
            if !place.regionName.isEmpty && place.regionName != place.name {
                let short = place.regionShortCode.isEmpty ? place.regionName : place.regionShortCode
                components.append(AddressComponent(longName: place.regionName, shortName: short,
                                                   types: ["administrative_area_level_1", "political"]))
            }
            let country = self.country(place.country)?.name ?? place.country
            components.append(countryComponent(place.country))
            // A region with a short code is written with it, as Google writes "Toronto, ON, Canada".
            formatted = place.regionShortCode.isEmpty ? "\(place.name), \(country)" : "\(place.name), \(place.regionShortCode), \(country)"
        }
        let key = PlaceKey.locality(country: place.country, region: place.regionCode, name: place.nameKey)
        return GeocodeResult(types: ["locality", "political"], formattedAddress: formatted, components: components,
                             location: place.location.rounded, locationType: "APPROXIMATE", viewport: place.bounds.rounded,
                             bounds: place.bounds.rounded, partialMatch: partialMatch, placeID: key.placeID)
    }

    func result(state index: Int, partialMatch: Bool = false) -> GeocodeResult {
        let place = states[index]
        let country = place.country == "US" ? "USA" : self.country(place.country)?.name ?? place.country
        return GeocodeResult(types: ["administrative_area_level_1", "political"], formattedAddress: "\(place.name), \(country)",
                             components: countyStateCountry(county: "", state: place.code, country: place.country), location: place.location.rounded,
                             locationType: "APPROXIMATE", viewport: place.bounds.rounded, bounds: place.bounds.rounded,
                             partialMatch: partialMatch, placeID: PlaceKey.state(place.key).placeID)
    }

    func result(country index: Int, partialMatch: Bool = false) -> GeocodeResult {
        let place = countries[index]
        return GeocodeResult(types: ["country", "political"], formattedAddress: place.name, components: [countryComponent(place.code)],
                             location: place.location.rounded, locationType: "APPROXIMATE", viewport: place.bounds.rounded,
                             bounds: place.bounds.rounded, partialMatch: partialMatch, placeID: PlaceKey.country(place.code).placeID)
    }

    /// The place a place ID names, if it is still in the gazetteer.
    func result(for key: PlaceKey) -> GeocodeResult? {
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
    func countyStateCountry(county: String, state code: String, country: String = "US") -> [AddressComponent] {
        var components: [AddressComponent] = []
        if !county.isEmpty {
            components.append(AddressComponent(longName: county, shortName: county, types: ["administrative_area_level_2", "political"]))
        }
        let region = statesByCode[Gazetteer.regionKey(country: country, code: code)].map { states[$0] }
        components.append(AddressComponent(longName: region?.name ?? code, shortName: code,
                                           types: ["administrative_area_level_1", "political"]))
        components.append(countryComponent(country))
        return components
    }

    func countryComponent(_ code: String) -> AddressComponent {
        AddressComponent(longName: country(code)?.name ?? code, shortName: code, types: ["country", "political"])
    }
}

extension Box {
    var rounded: Box { Box(southwest: southwest.rounded, northeast: northeast.rounded) }
}
