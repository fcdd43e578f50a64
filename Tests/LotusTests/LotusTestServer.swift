import Foundation
import MockCore
import UnderstudyTesting

@testable import Lotus

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if canImport(FoundationXML)
import FoundationXML
#endif

/// Lotus on the shipped stubs/lotus (or a copy with another config.json), behind the router in
/// memory: feeds read as URLSession reads them, and every status and header as the backend gave
/// them (401 challenges, redirects).
struct LotusTestServer {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("stubs/lotus")

    /// The first person of people.json, who owns the `npoore` blog.
    static let nick = (email: "npoore@renovations.example.com", password: "passw0rd")

    let server: BackendTester

    static func start(config: String? = nil) throws -> LotusTestServer {
        var directory = fixtures
        if let config {
            directory = FileManager.default.temporaryDirectory.appendingPathComponent("lotus-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            for file in ["people.json", "blogs.json", "activity.json"] {
                try FileManager.default.createSymbolicLink(
                    at: directory.appendingPathComponent(file), withDestinationURL: fixtures.appendingPathComponent(file))
            }
            try Data(config.utf8).write(to: directory.appendingPathComponent("config.json"))
        }
        return LotusTestServer(server: try BackendTester(backends: [LotusBackend(directory: directory)]))
    }

    static func basic(_ login: String, _ password: String) -> String {
        "Basic " + Data("\(login):\(password)".utf8).base64EncodedString()
    }

    /// GET with URLSession.
    func get(_ path: String, headers: [String: String] = [:]) async throws -> (status: Int, response: HTTPURLResponse, body: Data) {
        let (body, response) = try await server.send("GET", path, headers: headers)
        return (response.statusCode, response, body)
    }

    /// A feed, read with XMLParser.
    func feed(_ path: String, headers: [String: String] = [:]) async throws -> Feed {
        let (status, _, body) = try await get(path, headers: headers)
        guard status == 200 else { throw FeedError.status(status, String(decoding: body, as: UTF8.self)) }
        return try Feed.parse(body)
    }

    /// Any request, with every status and header as the backend gave them.
    func raw(_ method: String, _ path: String, headers: [(String, String)] = [], body: String = "") async -> RawHTTPConnection.Response {
        await server.raw(method, path, headers: headers, body: body)
    }

    /// A write with credentials, as Atom.
    func write(_ method: String, _ path: String, entry: String, as login: (email: String, password: String) = nick) async
        -> RawHTTPConnection.Response
    {
        await raw(
            method, path, headers: [("Authorization", Self.basic(login.email, login.password)), ("Content-Type", "application/atom+xml")],
            body: entry)
    }

    enum FeedError: Error { case status(Int, String) }
}

/// What the tests read of an Atom feed (or entry, or error document).
struct Feed {
    struct Entry {
        var id = ""
        var title = ""
        var authorEmail = ""
        var categories: [(scheme: String?, term: String)] = []
        var links: [String: String] = [:]
        var content = ""
        var updated = ""
    }

    var title = ""
    var generator = ""
    var totalResults: Int?
    var startIndex: Int?
    var itemsPerPage: Int?
    var links: [String: String] = [:]
    var entries: [Entry] = []

    var titles: [String] { entries.map(\.title) }

    static func parse(_ data: Data) throws -> Feed {
        let reader = Reader()
        let parser = XMLParser(data: data)
        parser.shouldProcessNamespaces = false
        parser.delegate = reader
        guard parser.parse() else { throw parser.parserError ?? LotusTestServer.FeedError.status(0, "unparsable") }
        return reader.feed
    }

    private final class Reader: NSObject, XMLParserDelegate {
        var feed = Feed()
        private var path: [String] = []
        private var text = ""
        private var entry: Entry?

        func parser(
            _ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?, attributes: [String: String] = [:]
        ) {
            path.append(name)
            text = ""
            if name == "entry" && !path.dropLast().contains("entry") { entry = Entry() }
            if name == "link", let rel = attributes["rel"], let href = attributes["href"] {
                if path.count == 2 || (entry == nil && path.count == 1) {
                    feed.links[rel] = href
                } else if path.dropLast().last == "entry" {
                    entry?.links[rel] = href
                }
            }
            if name == "category", let term = attributes["term"], path.dropLast().last == "entry" {
                entry?.categories.append((attributes["scheme"], term))
            }
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) { text += string }

        func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
            let parent = path.dropLast().last
            if var current = entry, parent == "entry" {
                switch name {
                case "id": current.id = text
                case "title": current.title = text
                case "content": current.content = text
                case "updated": current.updated = text
                default: break
                }
                entry = current
            } else if name == "email", path.dropLast().last == "author", entry != nil {
                entry?.authorEmail = text
            } else if entry == nil {
                switch name {
                case "title" where path.count == 2: feed.title = text
                case "generator": feed.generator = text
                case "opensearch:totalResults": feed.totalResults = Int(text)
                case "opensearch:startIndex": feed.startIndex = Int(text)
                case "opensearch:itemsPerPage": feed.itemsPerPage = Int(text)
                default: break
                }
            }
            if name == "entry", let finished = entry, !path.dropLast().contains("entry") {
                feed.entries.append(finished)
                entry = nil
            }
            path.removeLast()
            text = ""
        }
    }
}
