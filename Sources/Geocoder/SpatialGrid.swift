import Foundation

/// Points bucketed in cells of a fixed size in degrees, for "the nearest point to here" without
/// scanning them all: the search looks at rings of cells around the query and stops once no
/// unvisited cell can hold anything nearer. (Longitudes do not wrap at ±180°.)
struct SpatialGrid: Sendable {
    private let points: [Coordinate]
    private let cells: [Int: [Int32]]
    private let cellDegrees: Double

    init(_ points: [Coordinate], cellDegrees: Double = 0.2) {
        self.points = points
        self.cellDegrees = cellDegrees
        var cells: [Int: [Int32]] = [:]
        for (index, point) in points.enumerated() {
            cells[Self.key(point, cellDegrees), default: []].append(Int32(index))
        }
        self.cells = cells
    }

    /// The index of the point nearest to `target` no farther than `limit` metres, with its
    /// distance, among the points `accept` takes.
    func nearest(to target: Coordinate, within limit: Double,
                 where accept: (Int) -> Bool = { _ in true }) -> (index: Int, distance: Double)? {
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
                    for index in cells[Self.key(row: row, column: column)] ?? [] where accept(Int(index)) {
                        let distance = target.distance(to: points[Int(index)])
                        if distance <= limit, distance < best?.distance ?? .infinity { best = (Int(index), distance) }
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
                for index in cells[Self.key(row: row, column: column)] ?? [] {
                    let distance = target.distance(to: points[Int(index)])
                    if distance <= limit { found.append((Int(index), distance)) }
                }
            }
        }
        return found
    }

    private static func cell(_ point: Coordinate, _ cellDegrees: Double) -> (row: Int, column: Int) {
        (Int((point.lat / cellDegrees).rounded(.down)), Int((point.lng / cellDegrees).rounded(.down)))
    }

    private static func key(_ point: Coordinate, _ cellDegrees: Double) -> Int {
        let (row, column) = cell(point, cellDegrees)
        return key(row: row, column: column)
    }

    private static func key(row: Int, column: Int) -> Int { row * 100_000 + column }
}
