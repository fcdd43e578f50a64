import Foundation

/// The real places the geocoder knows, loaded once from `stubs/geocoder/*.csv` (see
/// tools/build-gazetteer.py and docs/geocoder.md) and indexed by name and by position in a
/// `GazetteerImage`, which is read in place (and cached in a file: `GazetteerCache`). Immutable
/// after loading, so every worker loop reads it without a lock.
public final class Gazetteer: Sendable {
    struct Country {
        let code: String, code3: String, name: String
        let location: Coordinate, bounds: Box

        /// The string fields of its record, in order.
        enum Field: Int { case code, code3, name }
    }

    /// A first-level region: a US state, or a province or territory of another country
    /// (`regions.csv`).
    struct State {
        /// The short code addresses use ("CA", "ON").
        let code: String, name: String
        let country: String
        /// The code the region's towns carry in `cities.csv`: the US state code, else the
        /// GeoNames first-level code ("08" for Ontario).
        let townRegionCode: String
        /// Another name the data gives the region (French, for Canada's), or "".
        let otherName: String
        let location: Coordinate, bounds: Box

        /// How `statesByCode` and place IDs know it: the US code alone (as before there were
        /// other countries' regions), else ISO 3166-2 ("CA-ON").
        var key: String { Gazetteer.regionKey(country: country, code: code) }

        /// The string fields of its record, in order.
        enum Field: Int { case code, name, country, townRegionCode, otherName }
    }

    /// A US ZIP code, or a Canadian postal code: a full one ("L6G 1C7") or a forward sortation
    /// area ("L6G"). Read from the image when asked.
    struct PostalCode: Sendable {
        fileprivate let image: GazetteerImage, index: Int

        /// The string fields, in the record's order.
        enum Field: Int {
            case zip, city, state, county, country
            /// The city's name as the gazetteer compares names.
            case townKey
        }

        func text(_ field: Field) -> PlaceText { image.text(.postalCodes, index, field.rawValue) }
        var zip: String { text(.zip).string }
        var city: String { text(.city).string }
        var state: String { text(.state).string }
        var county: String { text(.county).string }
        var country: String { text(.country).string }
        var townKey: String { text(.townKey).string }
        var location: Coordinate { image.coordinate(.postalCodes, index, 6) }
        var radius: Double { image.double(.postalCodes, index, 8) }
    }

    /// A town or city. US ones are merged from the ZIP codes' city names and the world cities.
    /// Read from the image when asked.
    struct Locality: Sendable {
        fileprivate let image: GazetteerImage, index: Int

        /// The string fields, in the record's order.
        enum Field: Int {
            case name, country
            /// The US state code, or the GeoNames first-level code elsewhere.
            case regionCode
            case regionName
            /// The region's short code when `regions.csv` knows it ("ON"), else "".
            case regionShortCode
            case county
            /// The name as the gazetteer compares names (and as place IDs carry it).
            case nameKey
        }

        func text(_ field: Field) -> PlaceText { image.text(.localities, index, field.rawValue) }
        var name: String { text(.name).string }
        var country: String { text(.country).string }
        var regionCode: String { text(.regionCode).string }
        var regionName: String { text(.regionName).string }
        var regionShortCode: String { text(.regionShortCode).string }
        var county: String { text(.county).string }
        var nameKey: String { text(.nameKey).string }
        var location: Coordinate { image.coordinate(.localities, index, 7) }
        var bounds: Box { Box(southwest: image.coordinate(.localities, index, 9), northeast: image.coordinate(.localities, index, 11)) }
        /// For ranking: the population, or for towns known only from ZIP codes a small figure
        /// that grows with their number of ZIP codes.
        var weight: Int { image.integer(.localities, index, 13) }
        var radius: Double { image.double(.localities, index, 14) }
    }

    /// The records of one section, by index.
    struct Records<Record>: RandomAccessCollection, Sendable {
        fileprivate let image: GazetteerImage
        fileprivate let make: @Sendable (GazetteerImage, Int) -> Record
        let startIndex = 0
        let endIndex: Int
        subscript(index: Int) -> Record { make(image, index) }
    }

    /// Keys to indices: a ZIP code to its record.
    struct KeyIndex: Sendable {
        fileprivate let image: GazetteerImage, table: GazetteerImage.Section
        subscript(key: String) -> Int? { image.lookup(table, key).map { Int(truncatingIfNeeded: $0) } }
    }

    /// Keys to lists of indices: a town name to every town of that name, in the gazetteer's order.
    struct KeyLists: Sendable {
        fileprivate let image: GazetteerImage, table: GazetteerImage.Section, lists: GazetteerImage.Section
        subscript(key: String) -> IndexList? {
            image.lookup(table, key).map { word in
                let range = image.range(word, in: lists)
                return IndexList(image: image, lists: lists, start: range.lowerBound, endIndex: range.count)
            }
        }
    }

    struct IndexList: RandomAccessCollection, Sendable {
        fileprivate let image: GazetteerImage, lists: GazetteerImage.Section, start: Int
        let startIndex = 0
        let endIndex: Int
        subscript(position: Int) -> Int { image.index(lists, start + position) }
    }

    private let image: GazetteerImage
    let countries: [Country]
    let countriesByName: [String: Int]
    /// By the upper-case codes results carry, so building a result lowercases nothing.
    let countriesByCode: [String: Int]
    let states: [State]
    let statesByName: [String: Int]
    let statesByCode: [String: Int]
    /// `countriesByCode` and `statesByCode` by bytes, for the results written from the records.
    private let countryCodes: CodeIndex, regionKeys: CodeIndex
    let postalCodes: Records<PostalCode>
    let postalCodesByZIP: KeyIndex
    let localities: Records<Locality>
    let localitiesByName: KeyLists
    let postalCodeGrid: SpatialGrid
    let localityGrid: SpatialGrid

    /// Problems met while loading (bad rows are skipped), for the log and `understudy check`.
    public let problems: [GazetteerError]

    public var counts: (postalCodes: Int, localities: Int, states: Int, countries: Int) {
        (postalCodes.count, localities.count, states.count, countries.count)
    }

    /// Reads what of the CSV files `directory` has (a missing file is an empty table) and indexes
    /// it in memory.
    public convenience init(directory: URL) {
        var loader = GazetteerLoader()
        loader.load(from: directory)
        self.init(image: GazetteerImage(copying: GazetteerImageWriter.image(of: loader, checksum: 0)))
    }

    init(image: GazetteerImage) {
        self.image = image
        countries = (0..<image.count(.countries)).map { index in
            func text(_ field: Country.Field) -> String { image.string(.countries, index, field.rawValue) }
            return Country(
                code: text(.code), code3: text(.code3), name: text(.name), location: image.coordinate(.countries, index, 3),
                bounds: Box(southwest: image.coordinate(.countries, index, 5), northeast: image.coordinate(.countries, index, 7)))
        }
        states = (0..<image.count(.states)).map { index in
            func text(_ field: State.Field) -> String { image.string(.states, index, field.rawValue) }
            return State(
                code: text(.code), name: text(.name), country: text(.country), townRegionCode: text(.townRegionCode),
                otherName: text(.otherName), location: image.coordinate(.states, index, 5),
                bounds: Box(southwest: image.coordinate(.states, index, 7), northeast: image.coordinate(.states, index, 9)))
        }
        problems = (0..<image.count(.problems)).map { index in
            GazetteerError(
                file: image.string(.problems, index, 0), line: image.integer(.problems, index, 1), message: image.string(.problems, index, 2))
        }
        postalCodes = Records(image: image, make: { PostalCode(image: $0, index: $1) }, endIndex: image.count(.postalCodes))
        localities = Records(image: image, make: { Locality(image: $0, index: $1) }, endIndex: image.count(.localities))
        postalCodesByZIP = KeyIndex(image: image, table: .postalCodesByZIP)
        localitiesByName = KeyLists(image: image, table: .localitiesByName, lists: .localityLists)
        postalCodeGrid = SpatialGrid(image: image, points: .postalGridPoints, cells: .postalGridCells, indices: .postalGridIndices)
        localityGrid = SpatialGrid(image: image, points: .localityGridPoints, cells: .localityGridCells, indices: .localityGridIndices)
        var countriesByName: [String: Int] = [:]
        for (index, country) in countries.enumerated() {
            for name in [country.code, country.code3, country.name] { countriesByName.insertIfAbsent(PlaceName.key(name), index) }
        }
        // What people type for the countries whose GeoNames names they rarely use.
        for (alias, code) in [
            ("usa", "US"), ("united states of america", "US"), ("america", "US"), ("uk", "GB"),
            ("great britain", "GB"), ("england", "GB"), ("britain", "GB"),
        ] {
            if let index = countries.firstIndex(where: { $0.code == code }) { countriesByName.insertIfAbsent(alias, index) }
        }
        self.countriesByName = countriesByName
        var statesByName: [String: Int] = [:]
        // US states first: a name two countries' regions share stays the US state's.
        for (index, state) in states.enumerated() {
            for name in [state.code, state.name, state.otherName] where !name.isEmpty {
                statesByName.insertIfAbsent(PlaceName.key(name), index)
            }
        }
        self.statesByName = statesByName
        countriesByCode = Dictionary(countries.enumerated().map { ($1.code, $0) }, uniquingKeysWith: { first, _ in first })
        statesByCode = Dictionary(states.enumerated().map { ($1.key, $0) }, uniquingKeysWith: { first, _ in first })
        countryCodes = CodeIndex(countries.map(\.code))
        regionKeys = CodeIndex(states.map(\.key))
    }

    /// A string field of country number `index`, in place.
    func text(country index: Int, _ field: Country.Field) -> PlaceText { image.text(.countries, index, field.rawValue) }

    /// A string field of region number `index`, in place.
    func text(state index: Int, _ field: State.Field) -> PlaceText { image.text(.states, index, field.rawValue) }

    /// `countriesByCode[code]`, without making a string of a short code.
    func countryIndex(_ code: PlaceText) -> Int? {
        var key = CodeIndex.Key()
        key.append(code)
        switch countryCodes.lookup(key) {
        case .found(let index): return index
        case .absent: return nil
        case .tooLong: return countriesByCode[code.string]
        }
    }

    /// `statesByCode[Gazetteer.regionKey(country:code:)]`, without making strings of short codes.
    func regionIndex(country: PlaceText, code: PlaceText) -> Int? {
        var key = CodeIndex.Key()
        if country != PlaceText("US") {
            key.append(country)
            key.append(PlaceText("-"))
        }
        key.append(code)
        switch regionKeys.lookup(key) {
        case .found(let index): return index
        case .absent: return nil
        case .tooLong: return statesByCode[Gazetteer.regionKey(country: country.string, code: code.string)]
        }
    }

    /// By ISO code or name, in any case.
    func country(_ name: String) -> Country? {
        countriesByCode[name].map { countries[$0] } ?? countriesByName[PlaceName.key(name)].map { countries[$0] }
    }

    /// By postal code ("CA") or name, in any case.
    func state(_ name: String) -> State? {
        statesByCode[name].map { states[$0] } ?? statesByName[PlaceName.key(name)].map { states[$0] }
    }

    /// A region's key in `statesByCode`: "CA" for California, "CA-ON" for Ontario.
    static func regionKey(country: String, code: String) -> String {
        country == "US" ? code : country + "-" + code
    }

    /// The town of ZIP code number `index`.
    func town(ofPostalCode index: Int) -> Int? {
        let town = image.index(.postalCodeTowns, index)
        return town < 0 ? nil : town
    }
}
