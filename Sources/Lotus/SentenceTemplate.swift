import WireFormat

/// A story's sentence in one language, cut where its values go, with the words between them
/// already escaped as XML text: a feed fills in each story's values instead of translating and
/// escaping the whole sentence for every entry of every answer. Written by `LotusLabels` as
/// interpolated strings: `"\(.actor) bookmarked \(.object)."`.
struct SentenceTemplate: Sendable, ExpressibleByStringInterpolation {
    /// What a sentence names.
    enum Slot: Sendable {
        case actor, object, target
    }

    /// Each slot with the (escaped) words before it, in order.
    private var parts: [(words: [UInt8], slot: Slot)] = []
    /// The words after the last slot, escaped.
    private var ending: [UInt8] = []

    init(stringLiteral value: String) {
        ending = Self.escaped(value)
    }

    init(stringInterpolation: StringInterpolation) {
        parts = stringInterpolation.parts
        ending = Self.escaped(stringInterpolation.words)
    }

    struct StringInterpolation: StringInterpolationProtocol {
        fileprivate var parts: [(words: [UInt8], slot: Slot)] = []
        fileprivate var words = ""

        init(literalCapacity: Int, interpolationCount: Int) {}

        mutating func appendLiteral(_ literal: String) { words += literal }

        /// Words that are part of the sentence (a verb from the fixtures), not a value.
        mutating func appendInterpolation(_ text: String) { words += text }

        mutating func appendInterpolation(_ slot: Slot) {
            parts.append((SentenceTemplate.escaped(words), slot))
            words = ""
        }
    }

    /// Writes the sentence, `value` writing what goes in each slot.
    func write(to writer: inout XMLWriter, _ value: (Slot, inout XMLWriter) -> Void) {
        for part in parts {
            writer.raw(part.words)
            value(part.slot, &writer)
        }
        writer.raw(ending)
    }

    private static func escaped(_ words: String) -> [UInt8] {
        Array(TextEscaper.xmlText.escaped(words).utf8)
    }
}
