import Foundation

/// Points bucketed in cells of a fixed size in degrees, for "the nearest point to here" without
/// scanning them all: the search looks at rings of cells around the query and stops once no
/// unvisited cell can hold anything nearer. (Longitudes do not wrap at ±180°.) The points and
/// cells are sections of a `GazetteerImage`: cells sorted by key, found by binary search.
struct SpatialGrid: Sendable {
    static let cellDegrees = 0.2

    private let image: GazetteerImage
    private let pointSection: GazetteerImage.Section, cellSection: GazetteerImage.Section, indexSection: GazetteerImage.Section
    private let cellDegrees: Double

    init(
        image: GazetteerImage, points: GazetteerImage.Section, cells: GazetteerImage.Section, indices: GazetteerImage.Section,
        cellDegrees: Double = SpatialGrid.cellDegrees
    ) {
        self.image = image
        pointSection = points
        cellSection = cells
        indexSection = indices
        self.cellDegrees = cellDegrees
    }

    /// A grid of `points` alone.
    init(_ points: [Coordinate], cellDegrees: Double = SpatialGrid.cellDegrees) {
        self.init(
            image: GazetteerImage(copying: GazetteerImageWriter.image(ofGrid: points, cellDegrees: cellDegrees)), points: .postalGridPoints,
            cells: .postalGridCells, indices: .postalGridIndices, cellDegrees: cellDegrees)
    }

    private func point(_ index: Int) -> Coordinate {
        Coordinate(lat: image.double(pointSection, index, 0), lng: image.double(pointSection, index, 1))
    }

    /// The indices of the points in cell `key`, as a range of the index section.
    private func cell(_ key: Int) -> Range<Int> {
        var low = 0
        var high = image.count(cellSection)
        while low < high {
            let middle = (low + high) / 2
            let found = image.integer(cellSection, middle, 0)
            if found == key {
                return image.range(image.word(cellSection, middle, 1), in: indexSection)
            }
            if found < key { low = middle + 1 } else { high = middle }
        }
        return 0..<0
    }

    /// The index of the point nearest to `target` no farther than `limit` metres, with its
    /// distance, among the points `accept` takes.
    func nearest(
        to target: Coordinate, within limit: Double,
        where accept: (Int) -> Bool = { _ in true }
    ) -> (index: Int, distance: Double)? {
        let (row0, column0) = Self.cell(target, cellDegrees)
        let cellMetres = cellDegrees * 111_320
        var best: (index: Int, distance: Double)?
        var ring = 0
        while true {
            // Everything outside rings 0…ring is at least `ring` cells away in one direction; east
            // and west cells shrink towards the poles, hence the cosine at the ring's far edge.
            let farLat = min(abs(target.lat) + Double(ring + 1) * cellDegrees, 89.9)
            let reach = Double(ring) * cellMetres * cos(farLat * Double.pi / 180)
            if reach > limit || (best.map { $0.distance <= reach } ?? false) || ring > 2_000 { break }
            for row in (row0 - ring)...(row0 + ring) {
                let onEdge = row == row0 - ring || row == row0 + ring
                for column in stride(from: column0 - ring, through: column0 + ring, by: onEdge ? 1 : max(2 * ring, 1)) {
                    for position in cell(Self.key(row: row, column: column)) {
                        let index = image.index(indexSection, position)
                        guard accept(index) else { continue }
                        let point = point(index)
                        guard target.mayBeWithin(min(limit, best?.distance ?? .infinity), of: point) else { continue }
                        let distance = target.distance(to: point)
                        if distance <= limit, distance < best?.distance ?? .infinity { best = (index, distance) }
                    }
                }
            }
            ring += 1
        }
        return best
    }

    /// Every point within `limit` metres of `target`, with its distance, in no particular order.
    func points(near target: Coordinate, within limit: Double) -> [(index: Int, distance: Double)] {
        let (row0, column0) = Self.cell(target, cellDegrees)
        let rows = Int((limit / (cellDegrees * 111_320)).rounded(.up))
        let farLat = min(abs(target.lat) + Double(rows + 1) * cellDegrees, 89.9)
        let columns = min(Int((limit / (cellDegrees * 111_320 * cos(farLat * Double.pi / 180))).rounded(.up)), Int(360 / cellDegrees))
        var found: [(index: Int, distance: Double)] = []
        for row in (row0 - rows)...(row0 + rows) {
            for column in (column0 - columns)...(column0 + columns) {
                for position in cell(Self.key(row: row, column: column)) {
                    let index = image.index(indexSection, position)
                    let point = point(index)
                    guard target.mayBeWithin(limit, of: point) else { continue }
                    let distance = target.distance(to: point)
                    if distance <= limit { found.append((index, distance)) }
                }
            }
        }
        return found
    }

    private static func cell(_ point: Coordinate, _ cellDegrees: Double) -> (row: Int, column: Int) {
        (Int((point.lat / cellDegrees).rounded(.down)), Int((point.lng / cellDegrees).rounded(.down)))
    }

    static func key(_ point: Coordinate, _ cellDegrees: Double) -> Int {
        let (row, column) = cell(point, cellDegrees)
        return key(row: row, column: column)
    }

    private static func key(row: Int, column: Int) -> Int { row * 100_000 + column }
}
