import Foundation

/// Reads the gazetteer's CSV files into plain arrays; rows that do not parse are reported and
/// skipped.
struct GazetteerLoader {
    var countries: [Gazetteer.Country] = []
    var states: [Gazetteer.State] = []
    var postalCodes: [PostalCodeRow] = []
    var localities: [LocalityRow] = []
    var problems: [GazetteerError] = []

    struct PostalCodeRow {
        let zip: String, city: String, state: String, county: String, country: String
        let location: Coordinate, radius: Double
        let townKey: String
    }

    struct LocalityRow {
        let name: String, country: String
        let regionCode: String, regionName: String
        let regionShortCode: String
        let county: String
        let location: Coordinate, bounds: Box
        let weight: Int
        let radius: Double
        let nameKey: String
    }

    /// For each postal code, the index of its town in `localities` (-1: none).
    var postalCodeTowns: [Int32] {
        let statesByCode = Dictionary(states.enumerated().map { ($1.key, $0) }, uniquingKeysWith: { first, _ in first })
        let townsByRegion = Dictionary(
            localities.indices.map { (localities[$0].country + "|" + localities[$0].regionCode + "|" + localities[$0].nameKey, $0) },
            uniquingKeysWith: { first, _ in first })
        return postalCodes.map { code in
            let region = statesByCode[Gazetteer.regionKey(country: code.country, code: code.state)].map { states[$0].townRegionCode } ?? code.state
            return Int32(townsByRegion[code.country + "|" + region + "|" + code.townKey] ?? -1)
        }
    }

    mutating func load(from directory: URL) {
        countries = rows(directory, "countries.csv", ["iso", "iso3", "name", "lat", "lng", "sw_lat", "sw_lng", "ne_lat", "ne_lng"]) { f, n in
            Gazetteer.Country(
                code: f[0], code3: f[1], name: f[2], location: try coordinate(f[3], f[4], n),
                bounds: Box(southwest: try coordinate(f[5], f[6], n), northeast: try coordinate(f[7], f[8], n)))
        }
        states = rows(directory, "us-states.csv", ["code", "name", "lat", "lng", "sw_lat", "sw_lng", "ne_lat", "ne_lng"]) { f, n in
            Gazetteer.State(
                code: f[0], name: f[1], country: "US", townRegionCode: f[0], otherName: "", location: try coordinate(f[2], f[3], n),
                bounds: Box(southwest: try coordinate(f[4], f[5], n), northeast: try coordinate(f[6], f[7], n)))
        }
        states += rows(
            directory, "regions.csv",
            [
                "country", "code", "admin1_code", "name", "other_name", "lat", "lng",
                "sw_lat", "sw_lng", "ne_lat", "ne_lng",
            ]
        ) { f, n in
            guard f[0].utf8.count == 2, f[0].utf8.allSatisfy({ (0x41...0x5A).contains($0) }), f[0] != "US" else {
                throw n("country '\(f[0])' is not a two-letter ISO code other than US (US states are in us-states.csv)")
            }
            guard !f[1].isEmpty, !f[2].isEmpty, !f[3].isEmpty else { throw n("code, admin1_code and name must not be empty") }
            return Gazetteer.State(
                code: f[1], name: f[3], country: f[0], townRegionCode: f[2], otherName: f[4], location: try coordinate(f[5], f[6], n),
                bounds: Box(southwest: try coordinate(f[7], f[8], n), northeast: try coordinate(f[9], f[10], n)))
        }
        postalCodes = rows(directory, "us-zipcodes.csv", ["zip", "lat", "lng", "city", "state", "county", "radius_m"]) { f, n in
            guard f[0].utf8.count == 5, f[0].utf8.allSatisfy({ (0x30...0x39).contains($0) }) else { throw n("zip '\(f[0])' is not 5 digits") }
            return GazetteerLoader.PostalCodeRow(
                zip: f[0], city: f[3], state: f[4], county: f[5], country: "US", location: try coordinate(f[1], f[2], n),
                radius: try number(f[6], "radius_m", n), townKey: PlaceName.key(f[3]))
        }
        let provinces = Set(states.filter { $0.country == "CA" }.map(\.code))
        postalCodes += rows(directory, "ca-postalcodes.csv", ["code", "lat", "lng", "city", "province", "radius_m"]) { f, n in
            guard CanadianPostalCode(f[0])?.text == f[0] else {
                throw n("code '\(f[0])' is not a Canadian postal code ('A9A 9A9') or forward sortation area ('A9A') in capitals")
            }
            guard provinces.contains(f[4]) else { throw n("province '\(f[4])' is not a Canadian region of regions.csv") }
            return GazetteerLoader.PostalCodeRow(
                zip: f[0], city: f[3], state: f[4], county: "", country: "CA", location: try coordinate(f[1], f[2], n),
                radius: try number(f[5], "radius_m", n), townKey: PlaceName.key(f[3]))
        }
        let cities = rows(directory, "cities.csv", ["id", "name", "country", "admin1_code", "admin1_name", "lat", "lng", "population", "radius_m"]) {
            f, n in
            City(
                name: f[1], country: f[2], regionCode: f[3], regionName: f[4], location: try coordinate(f[5], f[6], n),
                population: Int(try number(f[7], "population", n)), radius: try number(f[8], "radius_m", n))
        }
        localities = mergedLocalities(cities)
    }

    struct City {
        let name: String, country: String, regionCode: String, regionName: String
        let location: Coordinate, population: Int, radius: Double
    }

    /// Towns from the ZIP codes' city names (position: the world city of that name in that state
    /// when there is one, else the middle of their ZIP codes), then the other world cities.
    private func mergedLocalities(_ cities: [City]) -> [GazetteerLoader.LocalityRow] {
        struct Town { var zips: [GazetteerLoader.PostalCodeRow] = [] }
        var towns: [String: Town] = [:]
        var order: [String] = []
        for postalCode in postalCodes where postalCode.country == "US" {
            let key = postalCode.state + "|" + postalCode.townKey
            if towns[key] == nil { order.append(key) }
            towns[key, default: Town()].zips.append(postalCode)
        }
        var citiesByKey: [String: Int] = [:]
        for (index, city) in cities.enumerated() where city.country == "US" {
            citiesByKey.insertIfAbsent(city.regionCode + "|" + PlaceName.key(city.name), index)
        }
        // GeoNames' "New York City" is the ZIP codes' "New York".
        for (index, city) in cities.enumerated() where city.country == "US" && city.name.hasSuffix(" City") {
            citiesByKey.insertIfAbsent(city.regionCode + "|" + PlaceName.key(String(city.name.dropLast(5))), index)
        }
        let stateNames = Dictionary(states.filter { $0.country == "US" }.map { ($0.code, $0.name) }, uniquingKeysWith: { first, _ in first })
        // Other countries' regions, by the code their towns carry.
        let regions = Dictionary(
            states.filter { $0.country != "US" }.map { ($0.country + "|" + $0.townRegionCode, $0) },
            uniquingKeysWith: { first, _ in first })
        var merged: [GazetteerLoader.LocalityRow] = []
        var usedCities = Set<Int>()
        for key in order {
            let zips = towns[key]!.zips
            let bounds = zips.map { Box(around: $0.location, metres: $0.radius) }.reduce(Box(around: zips[0].location, metres: zips[0].radius)) {
                $0.union($1)
            }
            let centre = Coordinate(
                lat: zips.map(\.location.lat).reduce(0, +) / Double(zips.count),
                lng: zips.map(\.location.lng).reduce(0, +) / Double(zips.count)
            ).rounded
            let counties = Dictionary(grouping: zips.map(\.county).filter { !$0.isEmpty }, by: { $0 })
            let county = counties.max { a, b in a.value.count != b.value.count ? a.value.count < b.value.count : a.key > b.key }?.key ?? ""
            let city = citiesByKey[key].map { cities[$0] }
            if let index = citiesByKey[key] { usedCities.insert(index) }
            let state = zips[0].state
            let name = city.map { PlaceName.key($0.name) == zips[0].townKey ? $0.name : zips[0].city } ?? zips[0].city
            merged.append(
                GazetteerLoader.LocalityRow(
                    name: name, country: "US", regionCode: state, regionName: stateNames[state] ?? state, regionShortCode: state, county: county,
                    location: city?.location ?? centre, bounds: bounds, weight: city?.population ?? 1_000 * zips.count,
                    radius: max(city?.radius ?? 0, centre.distance(to: bounds.northeast)), nameKey: zips[0].townKey))
        }
        for (index, city) in cities.enumerated() where !usedCities.contains(index) {
            let region = city.country == "US" ? nil : regions[city.country + "|" + city.regionCode]
            let regionName = city.country == "US" ? stateNames[city.regionCode] ?? city.regionName : region?.name ?? city.regionName
            let shortCode = city.country == "US" ? city.regionCode : region?.code ?? ""
            merged.append(
                GazetteerLoader.LocalityRow(
                    name: city.name, country: city.country, regionCode: city.regionCode, regionName: regionName, regionShortCode: shortCode,
                    county: "",
                    location: city.location, bounds: Box(around: city.location, metres: city.radius), weight: city.population,
                    radius: city.radius, nameKey: PlaceName.key(city.name)))
        }
        return merged
    }

    /// The rows of `name` in `directory` made into values by `make`, which gets the fields in the
    /// order of `columns` and a function that makes an error for the row.
    private mutating func rows<Value>(
        _ directory: URL, _ name: String, _ columns: [String],
        _ make: ([String], (String) -> GazetteerError) throws -> Value
    ) -> [Value] {
        let url = directory.appendingPathComponent(name)
        guard FileManager.default.fileExists(atPath: url.path) else { return [] }
        do {
            let table = try CSVTable(contentsOf: url)
            let indices = try columns.map(table.column)
            var values: [Value] = []
            values.reserveCapacity(table.rows.count)
            for row in table.rows {
                let error = { (message: String) in GazetteerError(file: table.file, line: row.line, message: message) }
                do {
                    guard let last = indices.max(), last < row.fields.count else {
                        throw error("\(row.fields.count) fields, expected \(table.columns.count)")
                    }
                    values.append(try make(indices.map { row.fields[$0] }, error))
                } catch let problem as GazetteerError {
                    problems.append(problem)
                }
            }
            return values
        } catch let problem as GazetteerError {
            problems.append(problem)
        } catch {
            problems.append(GazetteerError(file: url.path, line: 0, message: "\(error)"))
        }
        return []
    }
}

private func number(_ text: String, _ column: String, _ error: (String) -> GazetteerError) throws -> Double {
    guard let value = Double(text), value.isFinite else { throw error("\(column) '\(text)' is not a number") }
    return value
}

private func coordinate(_ lat: String, _ lng: String, _ error: (String) -> GazetteerError) throws -> Coordinate {
    let point = Coordinate(lat: try number(lat, "lat", error), lng: try number(lng, "lng", error))
    guard (-90...90).contains(point.lat), (-180...180).contains(point.lng) else { throw error("lat,lng \(lat),\(lng) is off the globe") }
    return point
}

extension Dictionary {
    /// The first value given for a key stays.
    mutating func insertIfAbsent(_ key: Key, _ value: Value) {
        if self[key] == nil { self[key] = value }
    }
}
