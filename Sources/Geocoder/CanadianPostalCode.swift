/// A Canadian postal code in Canada Post's form — capitals and one space ("L6G 1C7") — or its
/// forward sortation area alone ("L6G"), read from what people type: "l6g1c7", "L6G 1C7".
struct CanadianPostalCode: Equatable {
    let text: String

    var isSortationArea: Bool { text.utf8.count == 3 }

    /// The forward sortation area: the first three characters.
    var sortationArea: String { String(text.prefix(3)) }

    /// "L6G 1C7", "l6g1c7" or "L6G"; nil for anything else.
    init?(_ text: String) {
        let compact = Array(text.utf8.filter { $0 != UInt8(ascii: " ") })
        guard compact.count == 6 || compact.count == 3, Self.matches(compact) else { return nil }
        let upper = compact.map { (0x61...0x7A).contains($0) ? $0 - 32 : $0 }
        self.text =
            compact.count == 3
            ? String(decoding: upper, as: UTF8.self)
            : String(decoding: upper[0..<3], as: UTF8.self) + " " + String(decoding: upper[3...], as: UTF8.self)
    }

    /// The last postal code among an address's words (see `PlaceName`): one word ("l6g1c7"), two
    /// ("l6g", "1c7"), or a sortation area alone when `isKnownArea` says it is one — three
    /// characters alone are too easily something else.
    static func last(in words: [String], isKnownArea: (String) -> Bool) -> (code: CanadianPostalCode, words: Range<Int>)? {
        for index in words.indices.reversed() {
            let word = words[index]
            if word.utf8.count == 6, let code = CanadianPostalCode(word) { return (code, index..<index + 1) }
            if word.utf8.count == 3, index + 1 < words.count, words[index + 1].utf8.count == 3,
                let code = CanadianPostalCode(word + words[index + 1])
            {
                return (code, index..<index + 2)
            }
            if word.utf8.count == 3, let code = CanadianPostalCode(word), isKnownArea(code.text) { return (code, index..<index + 1) }
        }
        return nil
    }

    /// Letter, digit, letter (, digit, letter, digit).
    private static func matches(_ bytes: [UInt8]) -> Bool {
        bytes.indices.allSatisfy { index in
            let byte = bytes[index] | 0x20
            return index % 2 == 0 ? (0x61...0x7A).contains(byte) : (0x30...0x39).contains(bytes[index])
        }
    }
}
