import Foundation

/// Foundation's text search and trimming, answered without Foundation in the usual case. Each
/// call cost a thousand instructions or more (several per page) although the answer is nearly
/// always the trivial one; that answer is found from the UTF-8 bytes, and only the rest goes to
/// Foundation, so every answer stays Foundation's.
extension StringProtocol {
    /// `contains(other)`. Foundation compares canonically equivalent text as equal, but ASCII
    /// text has no other form (except `K`, `;` and `` ` ``: the Kelvin sign, the Greek question
    /// mark and the Greek varia), so where its bytes do not occur Foundation cannot find it either.
    func containsText(_ other: String) -> Bool {
        guard other.utf8.allSatisfy({ $0 < 0x80 && !"K;`".utf8.contains($0) }) else { return contains(other) }
        return utf8.containsBytes(of: other) && contains(other)
    }

    /// `trimmingCharacters(in: .whitespaces)`: text that neither starts nor ends with a space,
    /// a tab or a byte outside ASCII (where other spaces are) is already trimmed.
    func trimmingWhitespace() -> String {
        let bytes = utf8
        guard let first = bytes.first, Self.mayBeWhitespace(first) || Self.mayBeWhitespace(bytes[bytes.index(bytes.endIndex, offsetBy: -1)]) else {
            return String(self)
        }
        return trimmingCharacters(in: .whitespaces)
    }

    private static func mayBeWhitespace(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") || byte >= 0x80
    }
}

extension Collection<UInt8> {
    /// Whether `text`'s UTF-8 bytes occur in a row.
    fileprivate func containsBytes(of text: String) -> Bool {
        let needle = Array(text.utf8)
        guard let head = needle.first else { return true }
        var start = startIndex
        while let found = self[start...].firstIndex(of: head) {
            if self[found...].starts(with: needle) { return true }
            start = index(after: found)
        }
        return false
    }
}
