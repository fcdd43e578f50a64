import Foundation
import HTTPServer
import Testing

@testable import Lotus

/// The News story service over a socket: the public feed and every parameter, paging edges,
/// authentication, saved stories, conditional GET and writes that show at once.
@Suite struct NewsTests {
    @Test func thePublicFeedIsAtomAsConnectionsWritesIt() async throws {
        let lotus = try LotusTestServer.start()
        let (status, response, body) = try await lotus.get("/news/atom/stories/public")
        #expect(status == 200)
        #expect(response.value(forHTTPHeaderField: "Content-Type") == "application/atom+xml;charset=UTF-8")
        let text = String(decoding: body, as: UTF8.self)
        #expect(text.hasPrefix("<?xml version=\"1.0\" encoding=\"UTF-8\"?><feed xmlns=\"http://www.w3.org/2005/Atom\""))
        #expect(
            text.contains("xmlns:snx=\"http://www.ibm.com/xmlns/prod/sn\"")
                && text.contains("xmlns:opensearch=\"http://a9.com/-/spec/opensearch/1.1/\""))
        #expect(
            text.contains("<generator version=\"2.5\" uri=\"http://www.ibm.com/xmlns/prod/sn\">Lotus Connections - News Story service</generator>"))
        let feed = try Feed.parse(body)
        #expect(feed.title == "Public updates")
        #expect(feed.entries.count == 20)
        #expect(feed.startIndex == 1 && feed.itemsPerPage == 20)
        let total = try #require(feed.totalResults)
        #expect(total > 700)
        #expect(feed.entries.allSatisfy { $0.id.hasPrefix("urn:lsid:ibm.com:news:story-") })
        // Newest first.
        #expect(feed.entries.map(\.updated) == feed.entries.map(\.updated).sorted(by: >))
        // Links with the query escaped as XML (&amp; in the document, & once parsed).
        #expect(feed.links["next"]?.hasSuffix("/news/atom/stories/public?page=2&ps=20") == true)
        #expect(feed.links["previous"] == nil)
        #expect(text.contains("page=2&amp;ps=20"))
        // Authors carry snx:userid and snx:userState; HTML content is escaped.
        #expect(text.contains("<snx:userState>active</snx:userState>"))
        #expect(text.contains("<content type=\"html\">&lt;span class=\"vcard\"&gt;"))
    }

    @Test func pagingAndItsEdges() async throws {
        let lotus = try LotusTestServer.start()
        let blogs = try await lotus.feed("/news/atom/stories/public?source=blogs&ps=30")
        #expect(blogs.entries.count == 30)
        #expect(blogs.entries.allSatisfy { entry in entry.categories.contains { $0.term == "blogs" } })
        let total = try #require(blogs.totalResults)
        // ps is at most 100.
        let big = try await lotus.feed("/news/atom/stories/public?source=blogs&ps=101")
        #expect(big.itemsPerPage == 100 && big.entries.count == 100)
        // The last page holds the rest; past the end there is nothing, with the same total.
        let lastPage = (total + 29) / 30
        let last = try await lotus.feed("/news/atom/stories/public?source=blogs&ps=30&page=\(lastPage)")
        #expect(last.entries.count == total - (lastPage - 1) * 30)
        #expect(last.links["next"] == nil && last.links["previous"] != nil)
        #expect(last.links["last"] == last.links["self"])
        let past = try await lotus.feed("/news/atom/stories/public?source=blogs&ps=30&page=\(lastPage + 5)")
        #expect(past.entries.isEmpty && past.totalResults == total && past.startIndex == (lastPage + 4) * 30 + 1)
        // Pages do not overlap.
        let second = try await lotus.feed("/news/atom/stories/public?source=blogs&ps=30&page=2")
        #expect(Set(second.entries.map(\.id)).isDisjoint(with: blogs.entries.map(\.id)))
        // Values that are not numbers are errors, as Connections' error document.
        let bad = await lotus.raw("GET", "/news/atom/stories/public?page=two")
        #expect(bad.status == 400)
        #expect(bad.header("Content-Type") == "text/xml;charset=UTF-8")
        #expect(bad.bodyText.contains("<error xmlns=\"http://www.ibm.com/xmlns/prod/sn\">") && bad.bodyText.contains("<code>400</code>"))
        #expect(await lotus.raw("GET", "/news/atom/stories/public?source=mail").status == 400)
    }

    @Test func filtersByPersonSourceContainerAndDate() async throws {
        let lotus = try LotusTestServer.start()
        let all = try await lotus.feed("/news/atom/stories/public?ps=100")
        let byEmail = try await lotus.feed("/news/atom/stories/public?email=\(LotusTestServer.nick.email)&ps=100")
        #expect(!byEmail.entries.isEmpty && byEmail.entries.allSatisfy { $0.authorEmail == LotusTestServer.nick.email })
        #expect(byEmail.title == "Updates from Nick Poore")
        // userid wins over email.
        let someone = try #require(all.entries.first { $0.authorEmail != LotusTestServer.nick.email })
        let people = try JSONDecoder().decode(
            [String: [Person]].self, from: Data(contentsOf: LotusTestServer.fixtures.appendingPathComponent("people.json")))
        let userid = try #require(people["people"]?.first { $0.email == someone.authorEmail }?.userid)
        let byUserid = try await lotus.feed("/news/atom/stories/public?email=\(LotusTestServer.nick.email)&userid=\(userid)")
        #expect(byUserid.entries.allSatisfy { $0.authorEmail == someone.authorEmail })
        #expect(await lotus.raw("GET", "/news/atom/stories/public?email=nobody@example.com").status == 404)
        // Every source has stories.
        for source in ["activities", "blogs", "bookmarks", "communities", "files", "profiles", "wikis"] {
            let feed = try await lotus.feed("/news/atom/stories/public?source=\(source)&ps=5")
            #expect(feed.entries.count == 5, "\(source)")
            #expect(feed.entries.allSatisfy { $0.categories.contains { $0.term == source } }, "\(source)")
        }
        // since / before (RFC 3339), and container with its source.
        let since = try await lotus.feed("/news/atom/stories/public?since=2010-10-10T00:00:00Z&ps=100")
        #expect(since.entries.allSatisfy { $0.updated > "2010-10-10T00:00:00" })
        let before = try await lotus.feed("/news/atom/stories/public?before=2010-09-05T00:00:00.000Z&ps=100")
        #expect(!before.entries.isEmpty && before.entries.allSatisfy { $0.updated < "2010-09-05T00:00:00" })
        #expect(await lotus.raw("GET", "/news/atom/stories/public?since=yesterday").status == 400)
        let blogFeed = try await lotus.feed("/blogs/home/feed/blogs/atom")
        #expect(blogFeed.entries.count == 7)
        let npoore = try #require(blogFeed.entries.first { $0.title == "Nick's Notes" })
        let blogID = npoore.id.replacingOccurrences(of: "urn:lsid:ibm.com:blogs:blog-", with: "")
        let inBlog = try await lotus.feed("/news/atom/stories/public?source=blogs&container=\(blogID)&ps=100")
        #expect(!inBlog.entries.isEmpty && inBlog.entries.allSatisfy { $0.title.contains("Nick's Notes") })
        // Without its source, container is ignored.
        let ignored = try await lotus.feed("/news/atom/stories/public?container=\(blogID)")
        #expect(ignored.totalResults == all.totalResults)
    }

    @Test func labelsAreTranslatedAndUserContentIsNot() async throws {
        let lotus = try LotusTestServer.start()
        let english = try await lotus.feed("/news/atom/stories/public?source=blogs&ps=1")
        for lang in ["fr_FR", "fr-fr"] {
            let (_, response, body) = try await lotus.get("/news/atom/stories/public?source=blogs&ps=1&lang=\(lang)")
            let french = try Feed.parse(body)
            #expect(french.title == "Mises à jour publiques")
            #expect(response.value(forHTTPHeaderField: "Content-Language") == "fr-FR")
            #expect(french.entries[0].id == english.entries[0].id)
            #expect(french.entries[0].title != english.entries[0].title)
            #expect(french.entries[0].title.contains(" a commenté ") || french.entries[0].title.contains(" a créé "))
        }
        let german = try await lotus.feed("/news/atom/stories/public?ps=1", headers: ["Accept-Language": "de-DE,de;q=0.9"])
        #expect(german.title == "Öffentliche Aktualisierungen")
        let unknown = try await lotus.feed("/news/atom/stories/public?ps=1&lang=tlh")
        #expect(unknown.title == "Public updates")
    }

    @Test func privateFeedsChallengeForBasicCredentials() async throws {
        let lotus = try LotusTestServer.start()
        let challenge = await lotus.raw("GET", "/news/atom/stories/statusupdates")
        #expect(challenge.status == 401)
        #expect(challenge.header("WWW-Authenticate") == "Basic realm=\"Lotus Connections\"")
        #expect(challenge.bodyText.contains("<code>401</code>"))
        let wrong = await lotus.raw(
            "GET", "/news/atom/stories/statusupdates", headers: [("Authorization", LotusTestServer.basic(LotusTestServer.nick.email, "nope"))])
        #expect(wrong.status == 401)
        let authorization = ["Authorization": LotusTestServer.basic(LotusTestServer.nick.email, LotusTestServer.nick.password)]
        let statuses = try await lotus.feed("/news/atom/stories/statusupdates?ps=100", headers: authorization)
        #expect(!statuses.entries.isEmpty && statuses.entries.allSatisfy { $0.title.hasSuffix("updated their status.") })
        #expect(try await lotus.feed("/news/atom/stories/top", headers: authorization).entries.count == 20)
        // 2.5 can redirect to HTTPS before challenging.
        let redirecting = try LotusTestServer.start(config: #"{"httpsRedirect": true}"#)
        let redirect = await redirecting.raw("GET", "/news/atom/stories/top")
        #expect(redirect.status == 302)
        #expect(redirect.header("Location") == "https://127.0.0.1:\(redirecting.server.port)/news/atom/stories/top")
    }

    /// "My updates" holds what the signed-in person's network (listed on either side) and the
    /// people they follow did, their own updates and messages on their board — nobody else's.
    @Test func topStoriesFollowTheNetworkAndTheFollowed() async throws {
        let lotus = try LotusTestServer.start()
        let nick = ["Authorization": LotusTestServer.basic(LotusTestServer.nick.email, LotusTestServer.nick.password)]
        // Nick lists Bruno and Chen; Mei and Nikolai list Nick; he follows Dalia and Hana.
        let circle: Set = ["Nick Poore", "Bruno Bauer", "Chen Castillo", "Mei Mori", "Nikolai Novak", "Dalia Dubois", "Hana Hoshino"]
        let top = try await lotus.feed("/news/atom/stories/top?ps=100", headers: nick)
        let everyone = try await lotus.feed("/news/atom/stories/public?ps=100")
        #expect(try #require(top.totalResults) < (try #require(everyone.totalResults)))
        let actors = Set(top.entries.map { entry in circle.first { entry.title.hasPrefix($0 + " ") } ?? entry.title })
        #expect(actors.isSubset(of: circle.union(top.entries.filter { $0.title.contains("Nick Poore's board") }.map(\.title))))
        #expect(actors.contains("Dalia Dubois") && actors.contains("Mei Mori") && actors.contains("Nick Poore"))
        // Someone else's "My updates" is theirs.
        let bruno = ["Authorization": LotusTestServer.basic("bruno.bauer@renovations.example.com", "brunopass")]
        #expect(try await lotus.feed("/news/atom/stories/top?ps=100", headers: bruno).entries.map(\.id) != top.entries.map(\.id))
        // A status Nick posts is at the top of his own updates.
        let put = await lotus.write(
            "PUT", "/profiles/atom/mv/theboard/entry/status.do?email=\(LotusTestServer.nick.email)",
            entry: #"<entry xmlns="http://www.w3.org/2005/Atom"><content type="text">Following along</content></entry>"#)
        #expect(put.status == 200)
        #expect(try await lotus.feed("/news/atom/stories/top?ps=1", headers: nick).entries.first?.content.contains("Nick Poore") == true)
    }

    /// Status updates are those of the network and the people followed, as the API
    /// documentation describes the feed; `source` narrows or widens it.
    @Test func statusUpdatesOfTheNetworkAndTheFollowed() async throws {
        let lotus = try LotusTestServer.start()
        let nick = ["Authorization": LotusTestServer.basic(LotusTestServer.nick.email, LotusTestServer.nick.password)]
        func names(_ query: String) async throws -> Set<String> {
            Set(
                try await lotus.feed("/news/atom/stories/statusupdates?ps=100" + query, headers: nick).titles.map {
                    $0.replacingOccurrences(of: " updated their status.", with: "")
                })
        }
        #expect(try await names("") == ["Bruno Bauer", "Chen Castillo", "Mei Mori", "Nikolai Novak", "Dalia Dubois", "Hana Hoshino"])
        #expect(try await names("&source=network") == ["Bruno Bauer", "Chen Castillo", "Mei Mori", "Nikolai Novak"])
        #expect(try await names("&source=following") == ["Dalia Dubois", "Hana Hoshino"])
        #expect(try await names("&source=all").count == 40)
        let organization = try await names("&source=organization")
        #expect(organization.count == 6 && !organization.contains("Nick Poore"))
        #expect(
            await lotus.raw("GET", "/news/atom/stories/statusupdates?source=blogs", headers: [("Authorization", nick["Authorization"]!)]).status
                == 400)
    }

    @Test func savingAStory() async throws {
        let lotus = try LotusTestServer.start()
        let story = try await lotus.feed("/news/atom/stories/public?ps=1").entries[0]
        let authorization = ["Authorization": LotusTestServer.basic(LotusTestServer.nick.email, LotusTestServer.nick.password)]
        // 2.5 needs userid on this feed.
        #expect(await lotus.raw("GET", "/news/atom/stories/saved", headers: [("Authorization", authorization["Authorization"]!)]).status == 400)
        let saved = await lotus.write(
            "POST", "/news/atom/stories/saved", entry: "<entry xmlns=\"http://www.w3.org/2005/Atom\"><id>\(story.id)</id></entry>")
        #expect(saved.status == 201)
        let location = try #require(saved.header("Location"))
        let path = String(location.dropFirst("http://127.0.0.1:\(lotus.server.port)".count))
        let list = try await lotus.feed(path, headers: authorization)
        #expect(list.entries.map(\.id) == [story.id])
        // Someone else's saved stories are not for Nick.
        let other = path.replacingOccurrences(of: "userid=", with: "userid=x")
        #expect(await lotus.raw("GET", other, headers: [("Authorization", authorization["Authorization"]!)]).status == 403)
    }

    @Test func conditionalGetAnswers304UntilTheFeedChanges() async throws {
        let lotus = try LotusTestServer.start()
        let first = await lotus.raw("GET", "/news/atom/stories/public?source=profiles")
        let etag = try #require(first.header("ETag"))
        let modified = try #require(first.header("Last-Modified"))
        #expect(modified.hasSuffix(" GMT"))
        #expect(await lotus.raw("GET", "/news/atom/stories/public?source=profiles", headers: [("If-None-Match", etag)]).status == 304)
        let notModified = await lotus.raw("GET", "/news/atom/stories/public?source=profiles", headers: [("If-Modified-Since", modified)])
        #expect(notModified.status == 304 && notModified.body.isEmpty && notModified.header("ETag") == etag)
        #expect(await lotus.raw("GET", "/news/atom/stories/public?source=profiles", headers: [("If-None-Match", "\"other\"")]).status == 200)
        // A status update is a new story: the feed changed.
        let update = "<entry xmlns=\"http://www.w3.org/2005/Atom\"><content type=\"text\">Testing conditional GET</content></entry>"
        #expect(
            await lotus.write("PUT", "/profiles/atom/mv/theboard/entry/status.do?email=\(LotusTestServer.nick.email)", entry: update).status == 200)
        let changed = await lotus.raw("GET", "/news/atom/stories/public?source=profiles", headers: [("If-None-Match", etag)])
        #expect(changed.status == 200 && changed.header("ETag") != etag)
        #expect(await lotus.raw("GET", "/news/atom/stories/public?source=profiles", headers: [("If-Modified-Since", modified)]).status == 200)
    }

    @Test func aStatusUpdateIsAStoryAtOnceAndResetUndoesIt() async throws {
        let lotus = try LotusTestServer.start(config: #"{"now": "2011-01-01T12:00:00Z"}"#)
        let update =
            "<entry xmlns=\"http://www.w3.org/2005/Atom\"><category scheme=\"http://www.ibm.com/xmlns/prod/sn/type\" term=\"entry\"/>"
            + "<category scheme=\"http://www.ibm.com/xmlns/prod/sn/message-type\" term=\"status\"/><content type=\"text\">Shipping &amp; testing</content></entry>"
        let put = await lotus.write("PUT", "/profiles/atom/mv/theboard/entry/status.do?email=\(LotusTestServer.nick.email)", entry: update)
        #expect(put.status == 200 && put.body.isEmpty)
        let newest = try await lotus.feed("/news/atom/stories/public?ps=1").entries[0]
        #expect(newest.title == "Nick Poore updated their status.")
        #expect(newest.updated == "2011-01-01T12:00:00.000Z")
        let status = try await lotus.feed("/profiles/atom/mv/theboard/entry/status.do?email=\(LotusTestServer.nick.email)")
        #expect(status.entries.first?.content == "Shipping & testing")
        _ = try await lotus.server.send("POST", "/__admin/reset")
        #expect(try await lotus.feed("/news/atom/stories/public?ps=1").entries[0].title != "Nick Poore updated their status.")
        // Someone else's status cannot be set.
        let other = await lotus.write("PUT", "/profiles/atom/mv/theboard/entry/status.do?email=bruno.bauer@renovations.example.com", entry: update)
        #expect(other.status == 403)
        #expect(await lotus.raw("PUT", "/profiles/atom/mv/theboard/entry/status.do?email=\(LotusTestServer.nick.email)", body: update).status == 401)
        #expect(
            await lotus.write("PUT", "/profiles/atom/mv/theboard/entry/status.do?email=\(LotusTestServer.nick.email)", entry: "not xml").status == 400
        )
    }

    /// A feature's stories are indexed at load; what clients post joins them until a reset.
    @Test func postedStoriesJoinTheirFeatureUntilReset() async throws {
        let lotus = try LotusTestServer.start(config: #"{"now": "2011-01-01T12:00:00Z", "responseCache": 0}"#)
        let profiles = try await lotus.feed("/news/atom/stories/public?source=profiles&ps=1")
        let blogs = try await lotus.feed("/news/atom/stories/public?source=blogs&ps=1")
        let update = "<entry xmlns=\"http://www.w3.org/2005/Atom\"><content type=\"text\">Shipping</content></entry>"
        #expect(
            await lotus.write("PUT", "/profiles/atom/mv/theboard/entry/status.do?email=\(LotusTestServer.nick.email)", entry: update).status == 200)
        let after = try await lotus.feed("/news/atom/stories/public?source=profiles&ps=1&lang=de")
        #expect(after.entries.first?.title == "Nick Poore hat den Status aktualisiert.")
        #expect(after.totalResults == profiles.totalResults.map { $0 + 1 })
        let blogsAfter = try await lotus.feed("/news/atom/stories/public?source=blogs&ps=1")
        #expect(blogsAfter.totalResults == blogs.totalResults && blogsAfter.entries.map(\.id) == blogs.entries.map(\.id))
        _ = try await lotus.server.send("POST", "/__admin/reset")
        let reset = try await lotus.feed("/news/atom/stories/public?source=profiles&ps=1")
        #expect(reset.totalResults == profiles.totalResults && reset.entries.map(\.id) == profiles.entries.map(\.id))
    }

    /// Bodies that crashed FoundationXML's parser, or asked it to read a file: each is a 400 and the
    /// server keeps answering.
    @Test func hostileEntriesAreRefusedAndTheServerStaysUp() async throws {
        let lotus = try LotusTestServer.start()
        let path = "/profiles/atom/mv/theboard/entry/status.do?email=\(LotusTestServer.nick.email)"
        let secret = FileManager.default.temporaryDirectory.appendingPathComponent("lotus-xxe-\(UUID().uuidString)")
        try "TOP-SECRET".write(to: secret, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: secret) }
        let bodies: [[UInt8]] = [
            Array("<entry a".utf8) + [0xFF] + Array("=\"1\"/>".utf8),
            Array("<entry xmlns=\"http://www.w3.org/2005/Atom\"><content>".utf8) + [0xC3, 0x28] + Array("</content></entry>".utf8),
            Array(
                #"<!DOCTYPE entry [<!ENTITY x SYSTEM "file://\#(secret.path)">]><entry xmlns="http://www.w3.org/2005/Atom"><content>&x;</content></entry>"#
                    .utf8),
            Array(("<entry " + (0..<40_000).map { "a\($0)='1'" }.joined(separator: " ") + "/>").utf8),
        ]
        for body in bodies {
            var headers = HTTPHeaders()
            headers.add("Authorization", LotusTestServer.basic(LotusTestServer.nick.email, LotusTestServer.nick.password))
            headers.add("Content-Type", "application/atom+xml")
            let answer = await lotus.server.send(Request(method: .put, target: path, headers: headers, body: body))
            #expect(answer.status == 400)
            #expect(!String(decoding: answer.body.bytes, as: UTF8.self).contains("TOP-SECRET"))
        }
        let good = "<entry xmlns=\"http://www.w3.org/2005/Atom\"><content type=\"text\">still here</content></entry>"
        #expect(await lotus.write("PUT", path, entry: good).status == 200)
    }
}
