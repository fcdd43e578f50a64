import Foundation
import Testing

@testable import Lotus

/// Profiles, Blogs and Search over a socket.
@Suite struct ProfilesBlogsSearchTests {
    static let nick = LotusTestServer.nick

    @Test func profilesByEmailUseridAndKey() async throws {
        let lotus = try LotusTestServer.start()
        let (_, response, body) = try await lotus.get("/profiles/atom/profile.do?email=\(Self.nick.email)")
        let text = String(decoding: body, as: UTF8.self)
        let feed = try Feed.parse(body)
        #expect(feed.title == "profile with email \(Self.nick.email)")
        #expect(feed.generator == "Lotus Connections - Profiles")
        let entry = try #require(feed.entries.first)
        #expect(entry.title == "Nick Poore")
        #expect(entry.id.hasPrefix("tag:profiles.ibm.com,2006:entry"))
        #expect(entry.categories.contains { $0.scheme == "http://www.ibm.com/xmlns/prod/sn/type" && $0.term == "profile" })
        #expect(feed.links["http://www.ibm.com/xmlns/prod/sn/mv/theboard"]?.contains("/profiles/atom/mv/theboard/entries.do?key=") == true)
        #expect(text.contains("<content type=\"xhtml\"><div xmlns=\"http://www.w3.org/1999/xhtml\"><span class=\"vcard\">"))
        #expect(text.contains("<div class=\"title\">") && response.value(forHTTPHeaderField: "ETag") != nil)
        let key = String(entry.id.dropFirst("tag:profiles.ibm.com,2006:entry".count))
        #expect(try await lotus.feed("/profiles/atom/profile.do?key=\(key)").entries.first?.title == "Nick Poore")
        // format=lite leaves out the organization block; output=vcard is a vCard.
        let lite = String(decoding: try await lotus.get("/profiles/atom/profile.do?key=\(key)&format=lite").body, as: UTF8.self)
        #expect(!lite.contains("<div class=\"title\">") && lite.contains("class=\"email\""))
        let vcard = try await lotus.feed("/profiles/atom/profile.do?key=\(key)&output=vcard")
        #expect(vcard.entries[0].content.hasPrefix("BEGIN:VCARD\r\nVERSION:2.1\r\nN:Poore;Nick\r\nFN:Nick Poore"))
        // A comma list of e-mails, a bare entry, errors.
        let two = try await lotus.feed("/profiles/atom/profile.do?email=\(Self.nick.email),bruno.bauer@renovations.example.com")
        #expect(two.titles == ["Nick Poore", "Bruno Bauer"])
        let bare = try await lotus.get("/profiles/atom/profileEntry.do?key=\(key)")
        #expect(bare.response.value(forHTTPHeaderField: "Content-Type") == "application/atom+xml;type=entry;charset=UTF-8")
        #expect(try Feed.parse(bare.body).entries.first?.title == "Nick Poore")
        #expect(await lotus.raw("GET", "/profiles/atom/profile.do").status == 400)
        #expect(await lotus.raw("GET", "/profiles/atom/profile.do?email=nobody@example.com").status == 404)
        #expect(await lotus.raw("GET", "/profiles/atom/profile.do?key=\(key)&format=huge").status == 400)
        let photo = await lotus.raw("GET", "/profiles/photo.do?key=\(key)")
        #expect(photo.status == 200 && photo.header("Content-Type") == "image/png" && photo.body.starts(with: [0x89, 0x50, 0x4E, 0x47]))
    }

    @Test func profileSearchWithWildcardsAndPaging() async throws {
        let lotus = try LotusTestServer.start()
        #expect(try await lotus.feed("/profiles/atom/search.do?name=Nick").titles == ["Nick Poore"])
        #expect(try await lotus.feed("/profiles/atom/search.do?name=poore").titles == ["Nick Poore"])
        let star = try await lotus.feed("/profiles/atom/search.do?name=Ma*")
        #expect(star.titles.allSatisfy { $0.split(separator: " ").contains { $0.hasPrefix("Ma") } } && !star.titles.isEmpty)
        let one = try await lotus.feed("/profiles/atom/search.do?name=%25ugo")
        #expect(one.titles.contains("Hugo Haas"))
        let raleigh = try await lotus.feed("/profiles/atom/search.do?city=Raleigh&ps=2")
        #expect(raleigh.title == "profiles where city=Raleigh")
        #expect(raleigh.entries.count == 2 && (raleigh.totalResults ?? 0) > 2)
        #expect(raleigh.links["next"]?.contains("city=Raleigh&page=2&ps=2") == true)
        let tagged = try await lotus.feed("/profiles/atom/search.do?profileTags=mobile&ps=100")
        #expect(!tagged.entries.isEmpty)
        let free = try await lotus.feed("/profiles/atom/search.do?search=architect")
        #expect(!free.entries.isEmpty)
        let none = try await lotus.feed("/profiles/atom/search.do?name=Nobody")
        #expect(none.totalResults == 0 && none.entries.isEmpty)
        #expect(await lotus.raw("GET", "/profiles/atom/search.do").status == 400)
    }

    @Test func theBoardStatusAndServiceDocument() async throws {
        let lotus = try LotusTestServer.start()
        let board = try await lotus.feed("/profiles/atom/mv/theboard/entries.do?email=\(Self.nick.email)")
        #expect(board.entries.first?.categories.contains { $0.term == "status" } == true)
        // A message on Bruno's board: 201, Location, and the new entry; it is on the board and in the feed.
        let message =
            "<entry xmlns=\"http://www.w3.org/2005/Atom\"><category scheme=\"http://www.ibm.com/xmlns/prod/sn/type\" term=\"entry\"/>"
            + "<category scheme=\"http://www.ibm.com/xmlns/prod/sn/message-type\" term=\"simpleEntry\"/><content type=\"text\">Great talk!</content></entry>"
        let posted = await lotus.write("POST", "/profiles/atom/mv/theboard/entries.do?email=bruno.bauer@renovations.example.com", entry: message)
        #expect(posted.status == 201)
        let location = try #require(posted.header("Location"))
        #expect(location.contains("/profiles/atom/mv/theboard/entry.do?entryid="))
        #expect(try Feed.parse(Data(posted.body)).entries.first?.content == "Great talk!")
        let fetched = try await lotus.feed(String(location.dropFirst("http://127.0.0.1:\(lotus.server.port)".count)))
        #expect(fetched.entries.first?.content == "Great talk!")
        let bruno = try await lotus.feed("/profiles/atom/mv/theboard/entries.do?email=bruno.bauer@renovations.example.com")
        #expect(bruno.entries.contains { $0.content == "Great talk!" })
        #expect(try await lotus.feed("/news/atom/stories/public?ps=1").titles == ["Nick Poore posted a message to Bruno Bauer's board."])
        // A comment on it, shown inline or as entries.
        let id = String(location.split(separator: "=").last!)
        let comment = await lotus.write(
            "POST", "/profiles/atom/mv/theboard/comments.do?entryid=\(id)",
            entry: "<entry xmlns=\"http://www.w3.org/2005/Atom\"><content type=\"text\">Thanks!</content></entry>")
        #expect(comment.status == 201)
        let all = try await lotus.feed("/profiles/atom/mv/theboard/entries.do?email=bruno.bauer@renovations.example.com&comments=all")
        #expect(all.entries.contains { $0.content == "Thanks!" && $0.categories.contains { $0.term == "comment" } })
        #expect(await lotus.raw("GET", "/profiles/atom/mv/theboard/entries.do?email=\(Self.nick.email)&comments=some").status == 400)
        // A message needs the entry category.
        let bad = await lotus.write(
            "POST", "/profiles/atom/mv/theboard/entries.do?email=bruno.bauer@renovations.example.com",
            entry: "<entry xmlns=\"http://www.w3.org/2005/Atom\"><content>x</content></entry>")
        #expect(bad.status == 400)
        // The service document of the signed-in person.
        let service = await lotus.raw(
            "GET", "/profiles/atom/profileService.do", headers: [("Authorization", LotusTestServer.basic(Self.nick.email, Self.nick.password))])
        #expect(service.status == 200 && service.header("Content-Type") == "application/atomsvc+xml; charset=UTF-8")
        #expect(service.bodyText.contains("<service xmlns=\"http://www.w3.org/2007/app\"") && service.bodyText.contains("Nick Poore"))
        #expect(await lotus.raw("GET", "/profiles/atom/profileService.do").status == 401)
        let tags = await lotus.raw("GET", "/profiles/atom/profileTags.do?targetEmail=\(Self.nick.email)")
        #expect(tags.header("Content-Type") == "application/atomcat+xml; charset=UTF-8" && tags.bodyText.contains("snx:frequency=\"1\""))
    }

    @Test func blogEntriesFeedsCountPagesFromZero() async throws {
        let lotus = try LotusTestServer.start()
        let (_, response, body) = try await lotus.get("/blogs/home/feed/entries/atom")
        #expect(response.value(forHTTPHeaderField: "Content-Type") == "application/atom+xml; charset=utf-8")
        let text = String(decoding: body, as: UTF8.self)
        #expect(text.contains("\n <id>urn:lsid:ibm.com:blogs:entries</id>"))
        let home = try Feed.parse(body)
        #expect(home.startIndex == 0 && home.entries.count == 20 && (home.totalResults ?? 0) > 250)
        #expect(home.entries[0].id.hasPrefix("urn:lsid:ibm.com:blogs:entry-"))
        #expect(home.links["next"]?.hasSuffix("page=1&ps=20") == true)
        let big = try await lotus.feed("/blogs/home/feed/entries/atom?ps=80")
        #expect(big.itemsPerPage == 50)
        let second = try await lotus.feed("/blogs/home/feed/entries/atom?page=1")
        #expect(second.startIndex == 20 && Set(second.entries.map(\.id)).isDisjoint(with: home.entries.map(\.id)))
        // One blog, its author, search, tags, since, sorting.
        let npoore = try await lotus.feed("/blogs/npoore/feed/entries/atom?ps=50")
        #expect(npoore.title == "Nick's Notes" && npoore.entries.allSatisfy { $0.authorEmail == Self.nick.email })
        let search = try await lotus.feed("/blogs/home/feed/entries/atom?search=iphone&ps=50")
        #expect(
            !search.entries.isEmpty
                && search.entries.allSatisfy {
                    $0.title.lowercased().contains("iphone") || $0.content.lowercased().contains("iphone")
                        || $0.categories.contains { $0.term == "iphone" }
                })
        let tagged = try await lotus.feed("/blogs/home/feed/entries/atom?tags=atom&ps=50")
        #expect(!tagged.entries.isEmpty && tagged.entries.allSatisfy { $0.categories.contains { $0.term == "atom" } })
        let byTitle = try await lotus.feed("/blogs/npoore/feed/entries/atom?sortBy=title&ps=50")
        #expect(byTitle.titles == byTitle.titles.sorted())
        let since = try await lotus.feed("/blogs/home/feed/entries/atom?since=2010-10-05T00:00:00.000Z&ps=50")
        #expect(since.entries.allSatisfy { $0.updated > "2010-10-05" })
        #expect(await lotus.raw("GET", "/blogs/home/feed/entries/atom?sortBy=size").status == 400)
        #expect(await lotus.raw("GET", "/blogs/nosuchblog/feed/entries/atom").status == 404)
        // An entry, its comments, the tag document.
        let entryID = String(npoore.entries[0].id.dropFirst("urn:lsid:ibm.com:blogs:entry-".count))
        #expect(try await lotus.feed("/blogs/npoore/feed/entry/atom?entryid=\(entryID)").entries.first?.id == npoore.entries[0].id)
        let commented = try #require(npoore.entries.first { entry in (entry.links["replies"] ?? "").isEmpty == false })
        let commentsPath = String(commented.links["replies"]!.dropFirst("http://127.0.0.1:\(lotus.server.port)".count))
        _ = try await lotus.feed(commentsPath)
        let tags = await lotus.raw("GET", "/blogs/npoore/feed/tags/atom")
        #expect(tags.header("Content-Type") == "application/atomcat+xml; charset=utf-8")
        #expect(tags.bodyText.hasPrefix("<?xml version='1.0'?>\n<categories xml:lang=\"en-US\" fixed=\"no\" xmlns=\"http://www.w3.org/2007/app\">"))
        // A person's blog: a redirect.
        let redirect = await lotus.raw("GET", "/blogs/roller-ui/feed/\(Self.nick.email)")
        #expect(redirect.status == 302 && redirect.header("Location")?.hasSuffix("/blogs/npoore/feed/entries/atom") == true)
    }

    @Test func postingBlogEntriesAndComments() async throws {
        let lotus = try LotusTestServer.start()
        let entry = """
            <entry xmlns="http://www.w3.org/2005/Atom"><title type="text">Offline first</title>
            <content type="html">&lt;p&gt;Cache the feed.&lt;/p&gt;</content><category term="mobile"/><category term="cache"/></entry>
            """
        let posted = await lotus.write("POST", "/blogs/npoore/api/entries", entry: entry)
        #expect(posted.status == 201)
        #expect(posted.header("Location")?.contains("/blogs/npoore/api/entries/") == true)
        let newest = try await lotus.feed("/blogs/npoore/feed/entries/atom?ps=1")
        #expect(newest.entries.first?.title == "Offline first" && newest.entries.first?.content == "<p>Cache the feed.</p>")
        #expect(newest.entries.first?.categories.map(\.term).contains("cache") == true)
        #expect(
            try await lotus.feed("/news/atom/stories/public?source=blogs&ps=1").titles
                == ["Nick Poore created a blog entry named Offline first in the Nick's Notes blog."])
        // Only the owner posts to a blog; anyone signed in comments.
        #expect(await lotus.write("POST", "/blogs/mobile-lab/api/entries", entry: entry).status == 403)
        #expect(await lotus.raw("POST", "/blogs/npoore/api/entries", body: entry).status == 401)
        let id = String(newest.entries[0].id.dropFirst("urn:lsid:ibm.com:blogs:entry-".count))
        let comment = await lotus.write(
            "POST", "/blogs/npoore/api/entrycomments/\(id)",
            entry: "<entry xmlns=\"http://www.w3.org/2005/Atom\"><content type=\"html\">Nice</content></entry>",
            as: (email: "bruno.bauer@renovations.example.com", password: "brunopass"))
        #expect(comment.status == 201)
        let comments = try await lotus.feed("/blogs/npoore/feed/entrycomments/\(id)/atom")
        #expect(comments.entries.map(\.content) == ["Nice"])
        _ = try await lotus.server.send("POST", "/__admin/reset")
        #expect(try await lotus.feed("/blogs/npoore/feed/entries/atom?ps=1").entries.first?.title != "Offline first")
    }

    @Test func searchAcrossFeatures() async throws {
        let lotus = try LotusTestServer.start()
        let results = try await lotus.feed("/search/atom/search?query=iphone")
        #expect(!results.entries.isEmpty)
        #expect(results.entries.allSatisfy { entry in entry.categories.contains { $0.term == "search" } })
        let (_, _, body) = try await lotus.get("/search/atom/search?query=iphone")
        #expect(
            String(decoding: body, as: UTF8.self).contains(
                "<relevance:score xmlns:relevance=\"http://a9.com/-/opensearch/extensions/relevance/1.0/\">0."))
        let profiles = try await lotus.feed("/search/atom/search?query=nick&scope=profiles")
        #expect(profiles.titles == ["Nick Poore"])
        let tagged = try await lotus.feed("/search/atom/search?tag=mobile&scope=blogs&pageSize=5")
        #expect(tagged.entries.count == 5 && tagged.entries.allSatisfy { $0.categories.contains { $0.term == "mobile" } })
        let person = try await lotus.feed("/search/atom/search?email=\(Self.nick.email)&scope=blogs&ps=100")
        #expect(!person.entries.isEmpty && person.entries.allSatisfy { $0.authorEmail == Self.nick.email })
        #expect(await lotus.raw("GET", "/search/atom/search").status == 400)
        #expect(await lotus.raw("GET", "/search/atom/search?query=x&scope=email").status == 400)
        #expect(await lotus.raw("GET", "/search/atom/mysearch?query=iphone").status == 401)
        let configs = try await lotus.feed("/developerworks/mydeveloperworks/news/serviceconfigs")
        #expect(configs.titles == ["blogs", "news", "profiles", "search"])
    }
}
