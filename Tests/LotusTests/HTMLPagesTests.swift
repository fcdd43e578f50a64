import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
@testable import Lotus
import Testing

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

        func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?, attributes: [String: String] = [:]) {
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

    @Test func everyLinkOfEveryFeedAnswers() throws {
        let lotus = try LotusTestServer.start()
        defer { lotus.stop() }
        let nick = LotusTestServer.nick.email
        let feeds = ["/news/atom/stories/public?ps=100", "/news/atom/stories/top?ps=100", "/news/atom/stories/statusupdates?ps=100",
                     "/news/atom/stories/saved?userid=\(Self.nickUserid)", "/news/serviceconfigs"]
            + StoryKind.sources.sorted().map { "/news/atom/stories/public?ps=100&source=\($0)" }
            + ["/profiles/atom/profile.do?email=\(nick)", "/profiles/atom/search.do?name=*&ps=100", "/profiles/atom/profileService.do",
               "/profiles/atom/mv/theboard/entries.do?userid=eab8748d-d874-58f0-afa5-9def1f77f326&comments=inline",
               "/profiles/atom/profileTags.do?targetEmail=\(nick)", "/profiles/atom/profile.do?email=\(nick)&output=vcard"]
            + ["/blogs/home/feed/entries/atom?ps=50", "/blogs/home/feed/blogs/atom", "/blogs/npoore/feed/tags/atom"]
            + ["/search/atom/search?query=atom&ps=100", "/search/atom/search?tag=mobile&ps=100"]
        // Every feed, then every document its links lead to, and so on: each must answer 200.
        var queue = feeds, seen = Set(feeds), pages = 0
        while let target = queue.popLast() {
            let response = try lotus.raw("GET", target, headers: [Self.authorization])
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
}
