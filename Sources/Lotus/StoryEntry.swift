import WireFormat

/// A story's `<entry>` in the News feeds, prepared once: the bytes every answer shares, escaped,
/// with gaps for what depends on the request — the sentence of its language (in the title and,
/// as HTML, in the content) and the base URL of links. A feed of 30 entries then copies byte runs
/// instead of translating, building and escaping some 1,400 elements and their strings. A class:
/// a feed takes 30 of them from the directory's table, each one reference rather than eight arrays.
final class StoryEntry: Sendable {
    /// Everything inside `<entry>` but the gaps: `<id>…<title type="html">` ⟨title⟩
    /// `</title><category…/>…<link href="` ⟨base⟩ `/…"…/><updated>…<content type="html">`
    /// ⟨content⟩ `</content>…` (the author follows); then the story's own values (one buffer, as
    /// every fixture story has one: memory counts).
    private let bytes: [UInt8]
    private let titleAt: Int, baseAt: Int, contentAt: Int, runsEnd: Int
    /// The object and the target: as XML text in the title, as HTML as XML text in the content.
    private let title: (object: Range<Int>, target: Range<Int>)
    private let content: (object: Range<Int>, target: Range<Int>)
    /// Who the sentence names first; nil when the story's actor is no one of the directory.
    private let actor: Actor?
    /// The story's sentence in each language, in `LotusLabels.supported`'s order.
    private let sentences: [SentenceTemplate]

    /// A person as entries name them, prepared once and shared by their stories: the name as XML
    /// text (the title), the end of their vcard as XML text (the content: it follows
    /// `Atom.vcardStart` and the base URL) and the `<author>` element.
    struct Actor: Sendable {
        let name: [UInt8]
        let vcardEnd: [UInt8]
        let author: [UInt8]

        init(_ person: Person?) {
            name = Array(TextEscaper.xmlText.escaped(person?.name ?? "").utf8)
            vcardEnd = person.map { Array(TextEscaper.xmlText.escaped(Atom.vcardEnd($0)).utf8) } ?? []
            var writer = XMLWriter(capacity: 512)
            Atom.person(&writer, "author", person)
            author = writer.bytes
        }
    }

    /// The request's base URL, escaped once per answer for the two places it goes.
    struct Base {
        let attribute: [UInt8]
        let text: [UInt8]

        init(_ base: String) {
            attribute = Array(TextEscaper.xmlAttribute.escaped(base).utf8)
            text = Array(TextEscaper.xmlText.escaped(base).utf8)
        }
    }

    /// `actor`: the story's actor as entries name them; `target`: what the sentence names as its
    /// target (the blog, or the owner of the board).
    init(_ story: Story, actor: Actor?, target: String, sentences: [SentenceTemplate]) {
        self.actor = actor
        self.sentences = sentences
        var writer = XMLWriter(capacity: 2048)
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
        runsEnd = writer.count

        func value(_ text: String) -> Range<Int> {
            let start = writer.count
            writer.raw(TextEscaper.xmlText.escaped(text))
            return start..<writer.count
        }
        title = (value(story.object), value(target))
        content = (value(XMLWriter.escaped(story.object)), value(XMLWriter.escaped(target)))
        bytes = writer.bytes
    }

    /// The entry's contents (without `<entry>` and `</entry>`) for a request with this base URL,
    /// in the language at `language` of `LotusLabels.supported`.
    func write(to writer: inout XMLWriter, base: Base, language: Int) {
        let sentence = sentences[language]
        bytes.withUnsafeBufferPointer { bytes in
            func run(_ range: Range<Int>) -> UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(rebasing: bytes[range]) }
            writer.raw(run(0..<titleAt))
            sentence.write(to: &writer) { slot, writer in
                switch slot {
                case .actor: if let actor { writer.raw(actor.name) }
                case .object: writer.raw(run(title.object))
                case .target: writer.raw(run(title.target))
                }
            }
            writer.raw(run(titleAt..<baseAt))
            writer.raw(base.attribute)
            writer.raw(run(baseAt..<contentAt))
            sentence.write(to: &writer) { slot, writer in
                switch slot {
                case .actor:
                    guard let actor else { return }
                    writer.raw(Self.vcardStart)
                    writer.raw(base.text)
                    writer.raw(actor.vcardEnd)
                case .object: writer.raw(run(content.object))
                case .target: writer.raw(run(content.target))
                }
            }
            writer.raw(run(contentAt..<runsEnd))
        }
        writer.raw((actor ?? Self.nobody).author)
    }

    private static let vcardStart = Array(TextEscaper.xmlText.escaped(Atom.vcardStart).utf8)
    /// The author of a story whose actor is no one of the directory: empty fields.
    private static let nobody = Actor(nil)
}
