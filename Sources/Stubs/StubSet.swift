import HTTPServer
import MockCore

/// An immutable set of mappings in match order, indexed so that a request meets only the mappings
/// that can match it: those of its exact path (`url`, `urlPath`), the patterns and templates whose
/// literal prefix its path or target starts with, and those the index cannot place. A class: a
/// request takes the current set by one reference.
final class StubSet: Sendable {
    let ordered: [StubMapping]
    /// `ordered`, each behind a reference: what requests visit. A candidate read from an array of
    /// structs is loaded and retained whole across the calls that match and answer it (~800
    /// instructions a request); from a class's `let`, it is borrowed in place.
    private let candidates: [Candidate]
    /// Positions in `ordered`, in runs that each index below names; each run ascending.
    private let positions: [Int]
    private let byPath: [String: Range<Int>]
    /// `byPath` as a `PathTable` (a byte hash, a third of a Dictionary's), when every path is ASCII;
    /// an ASCII request path is then looked up in it: String equality is byte equality there.
    private let asciiPaths: PathTable<Range<Int>>?
    private let unindexed: Range<Int>
    /// `urlPathPattern`s by the literal prefix of the path they match.
    private let pathPatterns: PrefixIndex
    /// `urlPathTemplate`s by their literal segments.
    private let templates: PrefixIndex
    /// `urlPattern`s by the literal prefix of the target (path and query) they match.
    private let targetPatterns: PrefixIndex
    /// The most runs one request can meet.
    private let maximumRuns: Int
    private var hasPatterns: Bool { !(pathPatterns.isEmpty && templates.isEmpty && targetPatterns.isEmpty) }

    /// `mappings` in the order they were added (later ones win among equal priorities).
    init(mappings: [StubMapping]) {
        ordered = mappings.enumerated()
            .sorted { a, b in a.element.priority != b.element.priority ? a.element.priority < b.element.priority : a.offset > b.offset }
            .map(\.element)
        candidates = ordered.map(Candidate.init)
        var exact: [String: [Int]] = [:]
        var unindexed: [Int] = []
        var pathPatterns: [(prefix: String, value: Int)] = []
        var templates = pathPatterns
        var targetPatterns = pathPatterns
        for (position, mapping) in ordered.enumerated() {
            switch mapping.request.indexKey {
            case .path(let path): exact[path, default: []].append(position)
            case .pathPrefix(let prefix): pathPatterns.append((prefix, position))
            case .templatePrefix(let prefix): templates.append((prefix, position))
            case .targetPrefix(let prefix): targetPatterns.append((prefix, position))
            case .none: unindexed.append(position)
            }
        }
        var positions: [Int] = []
        func run(_ list: [Int]) -> Range<Int> {
            positions += list
            return positions.count - list.count..<positions.count
        }
        byPath = exact.mapValues(run)
        asciiPaths = byPath.keys.allSatisfy { $0.utf8.allSatisfy { $0 < 0x80 } } ? PathTable(byPath) : nil
        self.unindexed = run(unindexed)
        self.pathPatterns = PrefixIndex(pathPatterns, appendingTo: &positions)
        self.templates = PrefixIndex(templates, appendingTo: &positions)
        self.targetPatterns = PrefixIndex(targetPatterns, appendingTo: &positions)
        self.positions = positions
        maximumRuns = 2 + self.pathPatterns.deepestEntryCount + max(self.templates.deepestEntryCount, 1) + self.targetPatterns.deepestEntryCount
    }

    /// Calls `visit` with the mappings that can match `request`, in match order, until it returns
    /// false. Inlined, as before the index: called with a closure, the mapping and the request
    /// are copied (3,000 instructions a request).
    @inline(__always)
    func forEachCandidate(for request: Request, _ visit: (Candidate) -> Bool) {
        let path = request.rawPath
        let exact =
            if let asciiPaths, path.utf8.withContiguousStorageIfAvailable({ $0.allSatisfy { $0 < 0x80 } }) == true {
                asciiPaths[path] ?? 0..<0
            } else {
                byPath[path] ?? 0..<0
            }
        guard hasPatterns else { return visitInOrder(exact, unindexed, visit) }
        var runs: [Range<Int>] = []
        runs.reserveCapacity(maximumRuns)
        runs.append(exact)
        runs.append(unindexed)
        var target = request.target
        target.withUTF8 { target in
            let path = target[..<(target.firstIndex(of: UInt8(ascii: "?")) ?? target.endIndex)]
            pathPatterns.forEachEntryRange(along: path) { runs.append($0) }
            targetPatterns.forEachEntryRange(along: target[...]) { runs.append($0) }
            // A template splits and compares paths as Swift strings, where some non-ASCII text
            // equals ASCII text: such paths try every template.
            if path.allSatisfy({ $0 < 0x80 }) {
                templates.forEachEntryRange(along: path) { runs.append($0) }
            } else {
                runs.append(templates.all)
            }
        }
        // Merge the runs by position: match order.
        while true {
            var nearest = -1
            var nearestPosition = Int.max
            for run in runs.indices where !runs[run].isEmpty {
                let position = positions[runs[run].lowerBound]
                if position < nearestPosition {
                    nearest = run
                    nearestPosition = position
                }
            }
            guard nearest >= 0 else { return }
            runs[nearest] = runs[nearest].dropFirst()
            if !visit(candidates[nearestPosition]) { return }
        }
    }

    /// Two runs merged, without the allocation the general case makes: sets without patterns.
    @inline(__always)
    private func visitInOrder(_ exact: Range<Int>, _ unindexed: Range<Int>, _ visit: (Candidate) -> Bool) {
        var i = exact.lowerBound
        var j = unindexed.lowerBound
        while i < exact.upperBound || j < unindexed.upperBound {
            let next: Int
            if j == unindexed.upperBound || (i < exact.upperBound && positions[i] < positions[j]) {
                next = positions[i]
                i += 1
            } else {
                next = positions[j]
                j += 1
            }
            if !visit(candidates[next]) { return }
        }
    }
}

/// One mapping of a `StubSet`, as requests meet it. Passed by its reference: a `StubMapping`
/// passed or held in a local is copied (a memcpy of a few hundred bytes and a retain per field).
final class Candidate: Sendable {
    let mapping: StubMapping
    /// The response, when it goes out as it is (most do): see `ResponseDefinition.plain`.
    let plainResponse: Response?

    init(_ mapping: StubMapping) {
        self.mapping = mapping
        plainResponse = mapping.response.plain
    }

    func matches(_ request: Request) -> Bool { mapping.request.evaluate(request).matched }
}
