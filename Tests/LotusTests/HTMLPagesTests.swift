import Foundation
import Testing

@testable import Lotus

#if canImport(FoundationXML)
import FoundationXML
#endif

/// The pages behind the feeds' links: every link a feed emits answers, and the pages show what
/// a detail view needs, escaped, in the request's language.
@Suite struct HTMLPagesTests {
    static let authorization = ("Authorization", LotusTestServer.basic(LotusTestServer.nick.email, LotusTestServer.nick.password))
    static let nickUserid = "f11866a8-fe4f-5f19-abf2-c589ef5fb7ef"
    static let nickKey = "7d568133-ff9a-5021-b1b9-2b7d2d4cad90"

    /// Every `href` (and `xml:base`) of a document, and the links inside its escaped HTML.
    final class LinkCollector: NSObject, XMLParserDelegate {
        var links: Set<String> = []
        private var text = ""

        func parser(
            _ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?, attributes: [String: String] = [:]
        ) {
            for attribute in ["href", "xml:base"] { if let link = attributes[attribute] { links.insert(link) } }
            text = ""
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) { text += string }

        func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
            var rest = Substring(text)
            while let start = rest.range(of: "href=\"") {
                rest = rest[start.upperBound...]
                guard let end = rest.firstIndex(of: "\"") else { break }
                links.insert(String(rest[..<end]).replacingOccurrences(of: "&amp;", with: "&"))
                rest = rest[end...]
            }
            text = ""
        }
    }

    @Test func everyLinkOfEveryFeedAnswers() async throws {
        let lotus = try LotusTestServer.start()
        let nick = LotusTestServer.nick.email
        let feeds =
            [
                "/news/atom/stories/public?ps=100", "/news/atom/stories/top?ps=100", "/news/atom/stories/statusupdates?ps=100",
                "/news/atom/stories/saved?userid=\(Self.nickUserid)", "/news/serviceconfigs",
            ]
            + StoryKind.sources.sorted().map { "/news/atom/stories/public?ps=100&source=\($0)" }
            + [
                "/profiles/atom/profile.do?email=\(nick)", "/profiles/atom/search.do?name=*&ps=100", "/profiles/atom/profileService.do",
                "/profiles/atom/mv/theboard/entries.do?userid=eab8748d-d874-58f0-afa5-9def1f77f326&comments=inline",
                "/profiles/atom/profileTags.do?targetEmail=\(nick)", "/profiles/atom/profile.do?email=\(nick)&output=vcard",
            ]
            + ["/blogs/home/feed/entries/atom?ps=50", "/blogs/home/feed/blogs/atom", "/blogs/npoore/feed/tags/atom"]
            + ["/search/atom/search?query=atom&ps=100", "/search/atom/search?tag=mobile&ps=100"]
        // Every feed, then every document its links lead to, and so on: each must answer 200.
        var queue = feeds
        var seen = Set(feeds)
        var pages = 0
        while let target = queue.popLast() {
            let response = await lotus.raw("GET", target, headers: [Self.authorization])
            #expect(response.status == 200, "\(target)")
            let type = response.header("Content-Type") ?? ""
            if type.hasPrefix("text/html") { pages += 1 }
            guard type.contains("xml") else { continue }
            let collector = LinkCollector()
            let parser = XMLParser(data: Data(response.bodyText.utf8))
            parser.delegate = collector
            #expect(parser.parse(), "\(target)")
            for link in collector.links where link.hasPrefix("http://") {
                let url = try #require(URLComponents(string: link))
                let next = url.percentEncodedPath + (url.percentEncodedQuery.map { "?" + $0 } ?? "")
                if seen.insert(next).inserted { queue.append(next) }
            }
        }
        #expect(seen.contains { $0.hasPrefix("/profiles/vcard/profile.do?key=") } && seen.contains { $0.hasPrefix("/activities/html/item?id=") })
        #expect(seen.contains { $0.hasPrefix("/profiles/atom/mv/theboard/comments.do?entryid=") })
        #expect(seen.contains { $0.contains("/feed/entrycomments/") } && seen.contains { $0.contains("/entry/") })
        #expect(pages > 300, "\(seen.count) links, \(pages) pages")
    }

    /// A blog entry's page (its `alternate` link) shows the entry and its comments; a comment
    /// posted in a scope shows there at once, not in another scope, and reset takes it away.
    @Test func anEntryPageShowsItsCommentsPerScope() async throws {
        let lotus = try LotusTestServer.start()
        let feed = await lotus.raw("GET", "/blogs/npoore/feed/entries/atom?ps=1&sortBy=commented")
        let entry = try Feed.parse(Data(feed.bodyText.utf8)).entries[0]
        let alternate = try #require(entry.links["alternate"].flatMap(URLComponents.init(string:)))
        let page = alternate.path
        #expect(page.hasPrefix("/blogs/npoore/entry/"))
        let html = await lotus.raw("GET", page)
        #expect(html.status == 200 && html.header("Content-Type") == "text/html;charset=UTF-8")
        #expect(html.header("ETag") != nil && html.header("Content-Language") == "en-US")
        #expect(html.bodyText.contains("<h1>\(XMLWriter.escaped(entry.title))</h1>") && html.bodyText.contains("class=\"comment\" id=\"comment-"))
        // The entry's HTML shows as markup: nothing from a fixture or a client is markup on the page.
        #expect(html.bodyText.contains("&lt;p&gt;") && !html.bodyText.contains("<p>Notes"))

        let scope = ("X-Understudy-Scope", "reader")
        let comment = #"<entry xmlns="http://www.w3.org/2005/Atom"><content type="html">&lt;script&gt;alert(1)&lt;/script&gt; Nice</content></entry>"#
        let posted = await lotus.raw(
            "POST", page.replacingOccurrences(of: "/entry/", with: "/api/entrycomments/"),
            headers: [Self.authorization, scope, ("Content-Type", "application/atom+xml")], body: comment)
        #expect(posted.status == 201)
        let scoped = await lotus.raw("GET", page, headers: [scope]).bodyText
        #expect(scoped.contains("&lt;script&gt;alert(1)&lt;/script&gt; Nice") && !scoped.contains("<script>"))
        #expect(!(await lotus.raw("GET", page).bodyText.contains("alert(1)")))
        #expect(await lotus.raw("POST", "/__admin/reset", headers: [scope]).status == 200)
        #expect(!(await lotus.raw("GET", page, headers: [scope]).bodyText.contains("alert(1)")))
    }

    @Test func profileBlogAndItemPagesInTheRequestsLanguage() async throws {
        let lotus = try LotusTestServer.start()
        for query in ["key=\(Self.nickKey)", "userid=\(Self.nickUserid)", "email=\(LotusTestServer.nick.email)"] {
            let profile = await lotus.raw("GET", "/profiles/html/profileView.do?\(query)")
            #expect(profile.status == 200 && profile.bodyText.contains("<h1 class=\"fn\">Nick Poore</h1>"))
            #expect(profile.bodyText.contains("/profiles/vcard/profile.do?key=\(Self.nickKey)") && profile.bodyText.contains("/blogs/npoore\""))
        }
        let french = await lotus.raw("GET", "/profiles/html/profileView.do?key=\(Self.nickKey)&lang=fr_FR")
        #expect(
            french.header("Content-Language") == "fr-FR" && french.bodyText.contains("<html lang=\"fr\">")
                && french.bodyText.contains("<h2>Réseau</h2>"))
        let blog = await lotus.raw("GET", "/blogs/npoore", headers: [("Accept-Language", "fr")])
        #expect(blog.status == 200 && blog.bodyText.contains("<h2>Entrées</h2>") && blog.bodyText.contains("par <a class=\"fn url\""))
        let vcard = await lotus.raw("GET", "/profiles/vcard/profile.do?key=\(Self.nickKey)")
        #expect(vcard.header("Content-Type") == "text/directory;charset=UTF-8" && vcard.bodyText.hasPrefix("BEGIN:VCARD\r\nVERSION:2.1\r\n"))
        #expect(vcard.bodyText.hasSuffix("END:VCARD\r\n"))
        let story = try Feed.parse(Data(await lotus.raw("GET", "/news/atom/stories/public?source=files&ps=1").bodyText.utf8)).entries[0]
        let link = try #require(story.links["alternate"].flatMap(URLComponents.init(string:)))
        let item = await lotus.raw("GET", link.percentEncodedPath + "?" + (link.percentEncodedQuery ?? ""))
        #expect(item.status == 200 && item.bodyText.contains("<h1>"))
        // Unknown people, blogs, entries and items are 404 pages (and an entry under another blog).
        let npooreEntry = try await firstEntryID(lotus, "npoore")
        for missing in [
            "/profiles/html/profileView.do?key=nobody", "/profiles/html/profileView.do", "/profiles/vcard/profile.do?key=nobody",
            "/blogs/nosuchblog", "/blogs/npoore/entry/nosuchentry", "/blogs/mobile-lab/entry/\(npooreEntry)",
            "/files/html/item?id=nothing", "/wikis/html/item",
        ] {
            let response = await lotus.raw("GET", missing, headers: [("Accept-Language", "fr")])
            #expect(response.status == 404, "\(missing)")
            #expect(
                response.header("Content-Type") == "text/html;charset=UTF-8" && response.bodyText.contains("<h1>Page introuvable</h1>"), "\(missing)")
        }
    }

    private func firstEntryID(_ lotus: LotusTestServer, _ handle: String) async throws -> String {
        let feed = try Feed.parse(Data(await lotus.raw("GET", "/blogs/\(handle)/feed/entries/atom?ps=1").bodyText.utf8))
        return String(feed.entries[0].id.dropFirst("urn:lsid:ibm.com:blogs:entry-".count))
    }
}
