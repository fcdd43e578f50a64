import DeviceProxy
import Foundation
import HTTPServer
import Lotus
import MockCore
import Testing
import UnderstudyTesting

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if canImport(FoundationXML)
import FoundationXML
#endif

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

        func parser(
            _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName: String?,
            attributes: [String: String] = [:]
        ) {
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

    /// The rows the seed's parser makes of a feed (by default the seed's own News URL).
    func titles(_ server: TestServer, _ path: String = "/developerworks/mydeveloperworks/news/atom/stories/public?source=blogs&ps=30")
        async throws -> [String]
    {
        let url = server.url(path)
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
        var request = URLRequest(
            url: server.url("/developerworks/mydeveloperworks/profiles/atom/mv/theboard/entry/status.do?email=npoore@renovations.example.com"))
        request.httpMethod = "PUT"
        request.setValue("Basic " + Data("npoore@renovations.example.com:passw0rd".utf8).base64EncodedString(), forHTTPHeaderField: "Authorization")
        request.setValue("application/atom+xml", forHTTPHeaderField: "Content-Type")
        request.httpBody = Data(
            """
            <entry xmlns="http://www.w3.org/2005/Atom"><category scheme="http://www.ibm.com/xmlns/prod/sn/type" term="entry"/>\
            <category scheme="http://www.ibm.com/xmlns/prod/sn/message-type" term="status"/><content type="text">Reading feeds on my iPhone</content></entry>
            """.utf8)
        let (_, response) = try await server.session.data(for: request)
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        let (data, _) = try await server.session.data(
            for: URLRequest(url: server.url("/developerworks/mydeveloperworks/news/atom/stories/public?source=profiles&ps=1")))
        let parser = XMLParser(data: data)
        let atom = AtomParser()
        parser.delegate = atom
        #expect(parser.parse())
        #expect(atom.items == ["Nick Poore updated their status."])
        #expect(String(decoding: data, as: UTF8.self).contains("Reading feeds on my iPhone"))
    }

    /// The Blogs entries feed carries each entry's blog as `<source>` with its own `<title>`
    /// (as IBM's recorded Blogs feeds do), and the seed's parser keeps every `<title>` inside an
    /// `<entry>`: pointed at a Blogs feed instead of News, it gets two rows per entry — the
    /// entry's title, then its blog's. The seed's own News URL is not affected (above).
    @Test func theSeedsParserOverABlogsFeedAlsoKeepsEachSourceTitle() async throws {
        let server = try TestServer.start(backends: [LotusBackend(directory: Self.stubs)])
        defer { server.stop() }
        let items = try await titles(server, "/developerworks/mydeveloperworks/blogs/npoore/feed/entries/atom?ps=5")
        #expect(items.count == 10)
        let blogTitles = stride(from: 1, to: items.count, by: 2).map { items[$0] }
        #expect(Set(blogTitles) == ["Nick's Notes"])
        #expect(!stride(from: 0, to: items.count, by: 2).map { items[$0] }.contains("Nick's Notes"))
    }
}

/// Seed 004 unchanged: its real URL (`https://www.ibm.com/…`) through Understudy as the device's
/// proxy — CONNECT, TLS ended with a certificate from the local CA — fetched by curl (URLSession on
/// Linux cannot be told to trust another CA) and read by the app's own AtomParser.
@Suite struct LotusSampleAppThroughTheProxyTests {
    @Test func theRealURLThroughTheProxyGivesTheSameThirtyTitles() async throws {
        let root = try makeTemporaryDirectory(["hosts.json": #"{"www.ibm.com": {"/developerworks/mydeveloperworks": "lotus"}}"#])
        defer { try? FileManager.default.removeItem(at: root) }
        let authority = try LocalCA.loadOrCreate(directory: root.appendingPathComponent("ca"))
        let deviceMode = DeviceMode(hostsFile: root.appendingPathComponent("hosts.json"), backends: ["lotus"])
        let server = try TestServer.start(backends: [LotusBackend(directory: LotusSampleAppTests.stubs)], deviceMode: deviceMode)
        defer { server.stop() }
        var tls = ServerConfiguration()
        tls.port = 0
        tls.threads = 1
        tls.tls = TLSServerSettings(authority: authority)
        let tunnels = try HTTPServer.start(configuration: tls, handler: try #require(server.router))
        defer {
            tunnels.shutdown()
            tunnels.wait()
        }
        deviceMode.intercept(onPort: tunnels.address.port)
        let caFile = root.appendingPathComponent("ca.pem")
        try Data(authority.certificatePEM.utf8).write(to: caFile)

        let curl = ChildProcess()
        curl.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        curl.arguments = [
            "curl", "--silent", "--show-error", "--fail", "--max-time", "60", "--proxy", "http://127.0.0.1:\(server.port)", "--cacert", caFile.path,
            "https://www.ibm.com/developerworks/mydeveloperworks/news/atom/stories/public?source=blogs&ps=30",
        ]
        let output = childPipe()
        let errors = childPipe()
        curl.standardOutput = output
        curl.standardError = errors
        try ProcessEnvironment.run(curl)
        let data = output.fileHandleForReading.readToEndOfStream()
        curl.waitUntilExit(within: childProcessPatience)
        #expect(curl.terminationStatus == 0, "\(String(decoding: errors.fileHandleForReading.readToEndOfStream(), as: UTF8.self))")

        let parser = XMLParser(data: data)
        let atom = LotusSampleAppTests.AtomParser()
        parser.delegate = atom
        #expect(parser.parse())
        #expect(atom.items.count == 30 && atom.items.allSatisfy { $0.contains(" blog entry ") })
        // The journal has it as the device sent it.
        let entry = try #require(server.router?.journal.entries.last)
        #expect(entry.request.tunnelHost == "www.ibm.com" && entry.request.isSecure && entry.backend == "lotus")
    }
}
