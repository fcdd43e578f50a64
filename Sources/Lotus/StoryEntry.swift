import WireFormat

/// A story's `<entry>` in the News feeds, prepared once: the bytes every answer shares, escaped,
/// with gaps for what depends on the request — the sentence of its language (in the title and,
/// as HTML, in the content) and the base URL of links. A feed of 30 entries then copies byte runs
/// instead of translating, building and escaping some 1,400 elements and their strings. A class:
/// a feed takes 30 of them from the directory's table, each one reference rather than eight arrays.
final class StoryEntry: Sendable {
    /// Everything inside `<entry>`, without the gaps: `<id>…<title type="html">` ⟨title⟩
    /// `</title><category…/>…<link href="` ⟨base⟩ `/…"…/><updated>…<content type="html">`
    /// ⟨content⟩ `</content>…<author>…</author>`.
    private let bytes: [UInt8]
    private let titleAt: Int, baseAt: Int, contentAt: Int
    /// The story's sentence in each language, in `LotusLabels.supported`'s order.
    private let sentences: [SentenceTemplate]
    /// The title's values: the actor's name, the object and the target, as XML text.
    private let title: (actor: [UInt8], object: [UInt8], target: [UInt8])
    /// The content's values, HTML as XML text: the end of the actor's vcard (nil without an
    /// actor; it starts with `Atom.vcardStart` and the base), the object and the target.
    private let content: (vcardEnd: [UInt8]?, object: [UInt8], target: [UInt8])

    /// The request's base URL, escaped once per answer for the two places it goes.
    struct Base {
        let attribute: [UInt8]
        let text: [UInt8]

        init(_ base: String) {
            attribute = Array(TextEscaper.xmlAttribute.escaped(base).utf8)
            text = Array(TextEscaper.xmlText.escaped(base).utf8)
        }
    }

    /// `actor` is the story's actor's profile; `target` what the sentence names as its target (the
    /// blog, or the owner of the board).
    init(_ story: Story, actor: Person?, target: String, sentences: [SentenceTemplate]) {
        let text = TextEscaper.xmlText
        self.sentences = sentences
        title = (Array(text.escaped(actor?.name ?? "").utf8), Array(text.escaped(story.object).utf8), Array(text.escaped(target).utf8))
        content = (actor.map { Array(text.escaped(Atom.vcardEnd($0)).utf8) },
                   Array(text.escaped(XMLWriter.escaped(story.object)).utf8), Array(text.escaped(XMLWriter.escaped(target)).utf8))

        var writer = XMLWriter(capacity: 1024)
        writer.element("id", text: "urn:lsid:ibm.com:news:story-\(story.id)")
        writer.open("title", ["type": "html"])
        titleAt = writer.count
        writer.close("title")
        // The source and type as categories (their scheme URIs are unverified), tags as plain categories.
        writer.element("category", ["scheme": Atom.typeScheme, "term": "news"])
        writer.element("category", ["scheme": "http://www.ibm.com/xmlns/prod/sn/source", "term": story.source])
        for tag in story.tags { writer.element("category", ["term": tag]) }
        // The link's href (its first attribute) is the base and the story's link.
        writer.raw("<link href=\"" as StaticString)
        baseAt = writer.count
        writer.raw(XMLWriter.escaped(story.link))
        writer.raw("\" rel=\"alternate\" type=\"text/html\"/>" as StaticString)
        writer.element("updated", text: story.updated.text)
        writer.open("content", ["type": "html"])
        contentAt = writer.count
        writer.close("content")
        if !story.summary.isEmpty { writer.element("summary", ["type": "html"], text: story.summary) }
        Atom.person(&writer, "author", actor)
        bytes = writer.bytes
    }

    /// The entry's contents (without `<entry>` and `</entry>`) for a request with this base URL,
    /// in the language at `language` of `LotusLabels.supported`.
    func write(to writer: inout XMLWriter, base: Base, language: Int) {
        let sentence = sentences[language]
        bytes.withUnsafeBufferPointer { bytes in
            writer.raw(UnsafeBufferPointer(rebasing: bytes[..<titleAt]))
            sentence.write(to: &writer) { slot, writer in
                switch slot {
                case .actor: writer.raw(title.actor)
                case .object: writer.raw(title.object)
                case .target: writer.raw(title.target)
                }
            }
            writer.raw(UnsafeBufferPointer(rebasing: bytes[titleAt..<baseAt]))
            writer.raw(base.attribute)
            writer.raw(UnsafeBufferPointer(rebasing: bytes[baseAt..<contentAt]))
            sentence.write(to: &writer) { slot, writer in
                switch slot {
                case .actor:
                    guard let vcardEnd = content.vcardEnd else { return }
                    writer.raw(Self.vcardStart)
                    writer.raw(base.text)
                    writer.raw(vcardEnd)
                case .object: writer.raw(content.object)
                case .target: writer.raw(content.target)
                }
            }
            writer.raw(UnsafeBufferPointer(rebasing: bytes[contentAt...]))
        }
    }

    private static let vcardStart = Array(TextEscaper.xmlText.escaped(Atom.vcardStart).utf8)
}
