import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if canImport(FoundationXML)
import FoundationXML
#endif
import Lotus
import MockCore
import Testing
import UnderstudyTesting

/// Seed 004: the developerWorks sample app loads `…/mydeveloperworks/news/atom/stories/public
/// ?source=blogs&ps=30` and an XMLParser delegate (AtomParser) keeps the titles of `<entry>`
/// elements only — not the feed's own title — for a table of 30 rows. Then a status update,
/// posted as the My developerWorks app does, shows in the same feed.
@Suite struct LotusSampleAppTests {
    static let stubs = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("stubs/lotus")

    /// The seed's AtomParser, as its listings 6–8 write it.
    final class AtomParser: NSObject, XMLParserDelegate {
        var items: [String] = []
        private var foundEntry = false, foundTitle = false
        private var title = ""

        func parser(_ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName: String?,
                    attributes: [String: String] = [:]) {
            if elementName == "entry" { foundEntry = true }
            if elementName == "title" {
                foundTitle = true
                title = ""
            }
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) {
            if foundTitle && foundEntry { title += string }
        }

        func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName: String?) {
            if elementName == "title" && foundEntry {
                foundTitle = false
                items.append(title)
            }
            if elementName == "entry" { foundEntry = false }
        }
    }

    func titles(_ server: TestServer) async throws -> [String] {
        let url = server.url("/developerworks/mydeveloperworks/news/atom/stories/public?source=blogs&ps=30")
        let (data, response) = try await server.session.data(for: URLRequest(url: url))
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        let parser = XMLParser(data: data)
        let atom = AtomParser()
        parser.delegate = atom
        #expect(parser.parse())
        return atom.items
    }

    @Test func thirtyBlogTitlesThenAPostedStatusUpdate() async throws {
        let server = try TestServer.start(backends: [LotusBackend(directory: Self.stubs)])
        defer { server.stop() }
        let items = try await titles(server)
        #expect(items.count == 30)
        #expect(!items.contains("Public updates"))
        #expect(items.allSatisfy { $0.contains(" blog entry ") })

        // Post a status update (PUT to the status link of the user's profile), then read the
        // public feed again: it is the newest story.
        var request = URLRequest(url: server.url("/developerworks/mydeveloperworks/profiles/atom/mv/theboard/entry/status.do?email=npoore@renovations.example.com"))
        request.httpMethod = "PUT"
        request.setValue("Basic " + Data("npoore@renovations.example.com:passw0rd".utf8).base64EncodedString(), forHTTPHeaderField: "Authorization")
        request.setValue("application/atom+xml", forHTTPHeaderField: "Content-Type")
        request.httpBody = Data("""
            <entry xmlns="http://www.w3.org/2005/Atom"><category scheme="http://www.ibm.com/xmlns/prod/sn/type" term="entry"/>\
            <category scheme="http://www.ibm.com/xmlns/prod/sn/message-type" term="status"/><content type="text">Reading feeds on my iPhone</content></entry>
            """.utf8)
        let (_, response) = try await server.session.data(for: request)
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        let (data, _) = try await server.session.data(for: URLRequest(url: server.url("/developerworks/mydeveloperworks/news/atom/stories/public?source=profiles&ps=1")))
        let parser = XMLParser(data: data)
        let atom = AtomParser()
        parser.delegate = atom
        #expect(parser.parse())
        #expect(atom.items == ["Nick Poore updated their status."])
        #expect(String(decoding: data, as: UTF8.self).contains("Reading feeds on my iPhone"))
    }
}
