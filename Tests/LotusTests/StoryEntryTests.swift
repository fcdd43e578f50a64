import Testing

@testable import Lotus

/// A story's entry prepared once and filled per request: the sentence of the request's language,
/// its values escaped once in the title and twice in the HTML content, the base URL in links.
@Suite struct StoryEntryTests {
    static let fixtures = LotusFixtures(
        people: [Person(userid: "u1", key: "k1", name: #"Ann <"O'Hara"> & Co"#, email: "a@x", password: "p")],
        stories: [
            ActivityStory(
                id: "s1", source: "bookmarks", container: "c1", actor: "u1", verb: "bookmarked", object: "R&D <plans>",
                published: "2010-10-08T09:00:00.000Z", tags: ["t&1"]),
            ActivityStory(
                id: "s2", source: "files", container: "c2", actor: "nobody", verb: "liked", object: "x\"y",
                published: "2010-10-07T09:00:00.000Z", summary: "a < b"),
        ])

    static func written(_ story: Story, in directory: LotusDirectory, base: String, lang: String) -> String {
        var writer = XMLWriter()
        directory.entry(for: story).write(to: &writer, base: StoryEntry.Base(base), language: LotusLabels(lang: lang, acceptLanguage: nil).index)
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    @Test func theSentenceOfTheLanguageWithItsValuesEscapedOnceInTheTitleAndTwiceInTheContent() async throws {
        let directory = LotusDirectory(Self.fixtures)
        let story = try #require(directory.stories.first { $0.id == "s1" })
        let french = Self.written(story, in: directory, base: "http://h&x:1", lang: "fr")
        let start = [
            "<id>urn:lsid:ibm.com:news:story-s1</id>",
            #"<title type="html">Ann &lt;"O'Hara"&gt; &amp; Co a créé un signet pour R&amp;D &lt;plans&gt;.</title>"#,
            #"<category scheme="http://www.ibm.com/xmlns/prod/sn/type" term="news"/>"#,
            #"<category scheme="http://www.ibm.com/xmlns/prod/sn/source" term="bookmarks"/><category term="t&amp;1"/>"#,
            #"<link href="http://h&amp;x:1/bookmarks/html/item?id=s1" rel="alternate" type="text/html"/>"#,
            "<updated>2010-10-08T09:00:00.000Z</updated>",
        ].joined()
        let content = [
            #"<content type="html">&lt;span class="vcard"&gt;&lt;a class="fn url" href="http://h&amp;x:1/profiles/html/profileView.do?userid=u1"&gt;"#,
            #"Ann &amp;lt;&amp;quot;O'Hara&amp;quot;&amp;gt; &amp;amp; Co&lt;/a&gt;"#,
            #"&lt;span class="x-lconn-userid" style="display : none"&gt;u1&lt;/span&gt;&lt;/span&gt;"#,
            " a créé un signet pour R&amp;amp;D &amp;lt;plans&amp;gt;.</content>",
        ].joined()
        let author = [
            #"<author><name>Ann &lt;"O'Hara"&gt; &amp; Co</name><email>a@x</email>"#,
            "<snx:userid>u1</snx:userid><snx:userState>active</snx:userState></author>",
        ].joined()
        #expect(french == start + content + author)
        // The same entry for another request: another language and base.
        let german = Self.written(story, in: directory, base: "http://other", lang: "de")
        #expect(german.contains(#"<title type="html">Ann &lt;"O'Hara"&gt; &amp; Co hat ein Lesezeichen für R&amp;D &lt;plans&gt; gesetzt.</title>"#))
        #expect(
            german.contains(#"<link href="http://other/bookmarks/html/item?id=s1""#)
                && german.contains(#"href="http://other/profiles/html/profileView.do?userid=u1""#))
    }

    @Test func aVerbOfTheFixturesIsPartOfTheSentenceAndAnUnknownActorIsLeftOut() async throws {
        let directory = LotusDirectory(Self.fixtures)
        let story = try #require(directory.stories.first { $0.id == "s2" })
        let entry = Self.written(story, in: directory, base: "http://h", lang: "es")
        #expect(entry.contains(#"<title type="html"> liked x"y.</title>"#))
        #expect(entry.contains(#"<content type="html"> liked x&amp;quot;y.</content><summary type="html">a &lt; b</summary>"#))
        #expect(entry.hasSuffix("<author><name></name><email></email><snx:userid></snx:userid><snx:userState>active</snx:userState></author>"))
    }

    @Test func aPostedStoryIsWrittenAsTheFixturesOnesAre() async throws {
        let directory = LotusDirectory(Self.fixtures)
        let fixture = try #require(directory.stories.first { $0.id == "s1" })
        // A story the directory did not prepare (as a client's post is) comes out the same.
        let posted = Story(
            id: fixture.id, source: fixture.source, container: fixture.container, actor: fixture.actor, kind: fixture.kind,
            object: fixture.object, target: fixture.target, link: fixture.link, summary: fixture.summary, tags: fixture.tags,
            updated: fixture.updated)
        for lang in LotusLabels.supported {
            #expect(
                Self.written(posted, in: directory, base: "http://h", lang: lang)
                    == Self.written(fixture, in: directory, base: "http://h", lang: lang))
        }
    }
}
