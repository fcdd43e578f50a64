/// Entries keyed by a byte prefix, found by walking a key: every entry whose prefix the key starts
/// with. A trie in flat arrays (built once per mapping set, read on every request); each node's
/// entries are a range of a list the owner keeps, so that lists of several indexes can be merged
/// without copying.
struct PrefixIndex: Sendable {
    /// Node `n`'s edges are `edgeStart[n]..<edgeStart[n + 1]` of `edgeBytes` and `edgeTargets`.
    private let edgeStart: [Int]
    private let edgeBytes: [UInt8]
    private let edgeTargets: [Int]
    /// Node `n`'s entries, a range of the owner's list.
    private let entries: [Range<Int>]
    /// Every entry, a range of the owner's list.
    let all: Range<Int>
    /// The most non-empty entry ranges one walk can meet.
    let deepestEntryCount: Int

    /// Indexes `keyed` (each value under its prefix), appending each node's values, ascending, to `list`.
    init(_ keyed: [(prefix: String, value: Int)], appendingTo list: inout [Int]) {
        var children: [[UInt8: Int]] = [[:]]
        var values: [[Int]] = [[]]
        for (prefix, value) in keyed {
            var node = 0
            for byte in prefix.utf8 {
                if let child = children[node][byte] {
                    node = child
                } else {
                    children.append([:])
                    values.append([])
                    children[node][byte] = children.count - 1
                    node = children.count - 1
                }
            }
            values[node].append(value)
        }
        let allStart = list.count
        list += keyed.map(\.value).sorted()
        all = allStart..<list.count

        var edgeStart: [Int] = []
        var edgeBytes: [UInt8] = []
        var edgeTargets: [Int] = []
        var entries: [Range<Int>] = []
        for node in children.indices {
            edgeStart.append(edgeBytes.count)
            for (byte, child) in children[node].sorted(by: { $0.key < $1.key }) {
                edgeBytes.append(byte)
                edgeTargets.append(child)
            }
            let start = list.count
            list += values[node].sorted()
            entries.append(start..<list.count)
        }
        edgeStart.append(edgeBytes.count)
        self.edgeStart = edgeStart
        self.edgeBytes = edgeBytes
        self.edgeTargets = edgeTargets
        self.entries = entries

        // Children always come after their parent: one pass in order counts the deepest walk.
        var met = [Int](repeating: 0, count: children.count)
        met[0] = entries[0].isEmpty ? 0 : 1
        for node in children.indices {
            for edge in edgeStart[node]..<edgeStart[node + 1] {
                let child = edgeTargets[edge]
                met[child] = met[node] + (entries[child].isEmpty ? 0 : 1)
            }
        }
        deepestEntryCount = met.max() ?? 0
    }

    var isEmpty: Bool { all.isEmpty }

    /// Calls `body` with the entry range of every prefix of `key` that has entries, shortest first.
    @inline(__always)
    func forEachEntryRange(along key: UnsafeBufferPointer<UInt8>.SubSequence, _ body: (Range<Int>) -> Void) {
        guard !isEmpty else { return }
        var node = 0
        if !entries[0].isEmpty { body(entries[0]) }
        for byte in key {
            guard let child = child(of: node, byte) else { return }
            node = child
            if !entries[node].isEmpty { body(entries[node]) }
        }
    }

    @inline(__always)
    private func child(of node: Int, _ byte: UInt8) -> Int? {
        for edge in edgeStart[node]..<edgeStart[node + 1] where edgeBytes[edge] == byte {
            return edgeTargets[edge]
        }
        return nil
    }
}
