/// Short codes to record indices — a country's ISO code ("US"), a region's key ("CA", "CA-ON") —
/// looked up by their bytes: results look codes up as they are written, without making a string
/// and hashing it. A code of up to 7 bytes is packed in an integer with its length (`Key`); the
/// packed codes are sorted and searched by halves. Longer codes are not kept: `lookup` says so,
/// and the caller asks its string-keyed table.
struct CodeIndex: Sendable {
    private let keys: [UInt64]
    private let indices: [Int]

    /// `codes` by index; the first index of a code wins.
    init(_ codes: [String]) {
        var first: [UInt64: Int] = [:]
        for (index, code) in codes.enumerated() {
            var key = Key()
            var code = code
            code.withUTF8 { key.append(PlaceText(UnsafeRawBufferPointer($0))) }
            if let packed = key.packed, first[packed] == nil { first[packed] = index }
        }
        let sorted = first.sorted { $0.key < $1.key }
        keys = sorted.map(\.key)
        indices = sorted.map(\.value)
    }

    /// A code's bytes, appended in parts: the bytes in the high 7 bytes, the length in the lowest.
    struct Key {
        private var bits: UInt64 = 0, length = 0

        mutating func append(_ text: PlaceText) {
            for byte in text.bytes {
                if length < 7 { bits |= UInt64(byte) << (56 - 8 * UInt64(length)) }
                length += 1
            }
        }

        /// Nil beyond 7 bytes.
        var packed: UInt64? { length <= 7 ? bits | UInt64(length) : nil }
    }

    enum Lookup: Equatable {
        case found(Int)
        case absent
        case tooLong
    }

    func lookup(_ key: Key) -> Lookup {
        guard let packed = key.packed else { return .tooLong }
        var low = 0
        var high = keys.count
        while low < high {
            let middle = (low + high) / 2
            if keys[middle] == packed { return .found(indices[middle]) }
            if keys[middle] < packed { low = middle + 1 } else { high = middle }
        }
        return .absent
    }
}
