import Foundation

/// The comparable form of a place name or an address: lower-case ASCII words, accents folded
/// ("São Paulo" → "sao paulo"), punctuation dropped, the usual abbreviations unified ("Saint",
/// "St." → "st"), so "ST. LOUIS,  mo" and "Saint Louis MO" read alike.
enum PlaceName {
    static func words(_ text: String) -> [String] {
        let folded =
            text.utf8.allSatisfy({ $0 < 0x80 })
            ? text : text.folding(options: [.diacriticInsensitive, .caseInsensitive, .widthInsensitive], locale: nil)
        var words: [String] = []
        var word: [UInt8] = []
        func endWord() {
            guard !word.isEmpty else { return }
            let text = String(decoding: word, as: UTF8.self)
            words.append(abbreviations[text] ?? text)
            word.removeAll(keepingCapacity: true)
        }
        for byte in folded.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"): word.append(byte)
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): word.append(byte + 32)
            // "O'Fallon" is one word; a letter that did not fold to ASCII is kept as it is.
            case UInt8(ascii: "'"): continue
            case 0x80...: word.append(byte)
            default: endWord()
            }
        }
        endWord()
        return words
    }

    static func key(_ text: String) -> String {
        words(text).joined(separator: " ")
    }

    private static let abbreviations = [
        "saint": "st", "sainte": "ste", "mount": "mt", "fort": "ft",
    ]
}
