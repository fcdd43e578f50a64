/// Lays out what `GazetteerLoader` read from the CSV files as a `GazetteerImage`, indexes
/// included: ZIP codes and town names in hash tables, positions in two spatial grids.
struct GazetteerImageWriter {
    typealias Section = GazetteerImage.Section

    private var sections = [[UInt8]](repeating: [], count: Section.allCases.count)
    private var interned: [String: UInt64] = [:]

    /// The image of `loader`'s tables, stamped with the CSV files' `checksum`.
    static func image(of loader: GazetteerLoader, checksum: UInt64) -> [UInt8] {
        var writer = GazetteerImageWriter()
        writer.add(loader)
        return writer.bytes(checksum: checksum)
    }

    /// An image holding only a grid of `points` (as the postal codes' grid), for testing the grid.
    static func image(ofGrid points: [Coordinate], cellDegrees: Double) -> [UInt8] {
        var writer = GazetteerImageWriter()
        writer.addGrid(points, cellDegrees: cellDegrees, .postalGridPoints, .postalGridCells, .postalGridIndices)
        return writer.bytes(checksum: 0)
    }

    private mutating func add(_ loader: GazetteerLoader) {
        for country in loader.countries {
            record(.countries, strings: [country.code, country.code3, country.name], numbers: [country.location, country.bounds])
        }
        for state in loader.states {
            record(
                .states, strings: [state.code, state.name, state.country, state.townRegionCode, state.otherName],
                numbers: [state.location, state.bounds])
        }
        for code in loader.postalCodes {
            record(
                .postalCodes, strings: [code.zip, code.city, code.state, code.county, code.country, code.townKey],
                numbers: [code.location], code.radius.bitPattern)
        }
        for town in loader.localities {
            record(
                .localities, strings: [town.name, town.country, town.regionCode, town.regionName, town.regionShortCode, town.county, town.nameKey],
                numbers: [town.location, town.bounds], UInt64(bitPattern: Int64(town.weight)), town.radius.bitPattern)
        }
        for problem in loader.problems {
            append(.problems, string(problem.file))
            append(.problems, UInt64(bitPattern: Int64(problem.line)))
            append(.problems, string(problem.message))
        }
        for town in loader.postalCodeTowns { append32(.postalCodeTowns, town) }
        addTable(.postalCodesByZIP, loader.postalCodes.indices.map { (loader.postalCodes[$0].zip, [$0]) })
        var lists: [String: [Int]] = [:]
        var names: [String] = []
        for (index, town) in loader.localities.enumerated() {
            if lists[town.nameKey] == nil { names.append(town.nameKey) }
            lists[town.nameKey, default: []].append(index)
        }
        addTable(.localitiesByName, names.map { ($0, lists[$0] ?? []) }, lists: .localityLists)
        addGrid(loader.postalCodes.map(\.location), cellDegrees: SpatialGrid.cellDegrees, .postalGridPoints, .postalGridCells, .postalGridIndices)
        addGrid(
            loader.localities.map(\.location), cellDegrees: SpatialGrid.cellDegrees, .localityGridPoints, .localityGridCells, .localityGridIndices)
    }

    private mutating func record(_ section: Section, strings: [String], numbers: [any ImageNumbers], _ words: UInt64...) {
        for text in strings { append(section, string(text)) }
        for value in numbers { for word in value.words { append(section, word) } }
        for word in words { append(section, word) }
    }

    /// A hash table from each key to its value (a lone index), or with `lists`, to the range of
    /// its indices in that list section. The first entry given for a key wins.
    private mutating func addTable(_ section: Section, _ entries: [(key: String, indices: [Int])], lists: Section? = nil) {
        var slots = 8
        while slots < entries.count * 2 { slots *= 2 }
        var table = [(key: UInt64, value: UInt64)](repeating: (.max, 0), count: slots)
        for (key, indices) in entries {
            var slot = Int(truncatingIfNeeded: GazetteerImage.hash(key)) & (slots - 1)
            var taken = false
            while table[slot].key != .max {
                if table[slot].key == string(key) {
                    taken = true
                    break
                }
                slot = (slot + 1) & (slots - 1)
            }
            guard !taken, let first = indices.first else { continue }
            var value = UInt64(first)
            if let lists {
                value = UInt64(sections[lists.rawValue].count / 4) | UInt64(indices.count) << 32
                for index in indices { append32(lists, Int32(index)) }
            }
            table[slot] = (string(key), value)
        }
        for slot in table {
            append(section, slot.key)
            append(section, slot.value)
        }
    }

    private mutating func addGrid(
        _ points: [Coordinate], cellDegrees: Double, _ pointSection: Section, _ cellSection: Section, _ indexSection: Section
    ) {
        for point in points {
            append(pointSection, point.lat.bitPattern)
            append(pointSection, point.lng.bitPattern)
        }
        var cells: [Int: [Int32]] = [:]
        for (index, point) in points.enumerated() {
            cells[SpatialGrid.key(point, cellDegrees), default: []].append(Int32(index))
        }
        for key in cells.keys.sorted() {
            let indices = cells[key] ?? []
            append(cellSection, UInt64(bitPattern: Int64(key)))
            append(cellSection, UInt64(sections[indexSection.rawValue].count / 4) | UInt64(indices.count) << 32)
            for index in indices { append32(indexSection, index) }
        }
    }

    /// The string's word: its bytes are stored once however often it appears.
    private mutating func string(_ text: String) -> UInt64 {
        if let word = interned[text] { return word }
        let offset = UInt64(sections[Section.strings.rawValue].count)
        sections[Section.strings.rawValue].append(contentsOf: text.utf8)
        let word = offset | UInt64(text.utf8.count) << 32
        interned[text] = word
        return word
    }

    private mutating func append(_ section: Section, _ word: UInt64) {
        withUnsafeBytes(of: word) { sections[section.rawValue].append(contentsOf: $0) }
    }

    private mutating func append32(_ section: Section, _ value: Int32) {
        withUnsafeBytes(of: value) { sections[section.rawValue].append(contentsOf: $0) }
    }

    private func bytes(checksum: UInt64) -> [UInt8] {
        var header: [UInt64] = [GazetteerImage.magic, GazetteerImage.version, checksum, 0]
        var body: [UInt8] = []
        var offset = GazetteerImage.headerWords * 8
        for section in Section.allCases {
            let bytes = sections[section.rawValue]
            header += [UInt64(offset), UInt64(bytes.count / section.stride)]
            body += bytes
            let padding = (8 - bytes.count % 8) % 8
            body += [UInt8](repeating: 0, count: padding)
            offset += bytes.count + padding
        }
        header[3] = UInt64(offset)
        var image: [UInt8] = []
        image.reserveCapacity(offset)
        for word in header { withUnsafeBytes(of: word) { image.append(contentsOf: $0) } }
        return image + body
    }
}

/// Values stored as words of doubles in an image record.
private protocol ImageNumbers { var words: [UInt64] { get } }

extension Coordinate: ImageNumbers {
    fileprivate var words: [UInt64] { [lat.bitPattern, lng.bitPattern] }
}

extension Box: ImageNumbers {
    fileprivate var words: [UInt64] { southwest.words + northeast.words }
}
