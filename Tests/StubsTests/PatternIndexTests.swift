import Foundation
import HTTPServer
import JSON
import MockCore
import Testing
import UnderstudyTesting

@testable import Stubs

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `urlPattern`, `urlPathPattern` and `urlPathTemplate` mappings are indexed by their literal
/// prefix: the index may only leave out mappings that cannot match.
@Suite struct PatternIndexTests {
    @Test(arguments: [
        ("/api/users/[0-9]+", "/api/users/"),
        ("^/api/users/.*", "/api/users/"),
        ("/api/items?", "/api/item"),
        ("/api/items*", "/api/item"),
        ("/api/items+", "/api/item"),
        ("/api/item{2}", "/api/ite"),
        ("/a\\.b\\?c=.*", "/a.b?c="),
        ("/a\\.*", "/a"),
        ("/a\\d+", "/a"),
        ("/users/(a|b)/x", "/users/"),
        ("/users/a|/admin", ""),
        ("/users/a)|(/admin", ""),
        ("(?i)/users/.*", ""),
        ("/users/(?i)abc", ""),
        ("/users/(?i:a)bc", ""),
        ("/users/(?x) a", ""),
        ("/users/(?#(|)x", ""),
        ("\\Q/a|b\\E.*", ""),
        ("/a[)|(]b", "/a"),
        ("/a[[:alpha:]]b", "/a"),
        ("/a[]|]b", ""),
        ("/a\\p{L}+", "/a"),
        ("/a(?=/b)/b", "/a"),
        ("/a(?<name>[0-9]+)", "/a"),
        ("/caf\u{E9}/.*", "/caf\u{E9}/"),
        ("/e\u{301}?", "/e"),
        (".*", ""),
        ("[/]api", ""),
        ("", ""),
    ])
    func regexLiteralPrefixes(source: String, prefix: String) {
        #expect(ContentPattern.Regex.literalPrefix(of: source) == prefix)
    }

    @Test func templateLiteralPrefixes() throws {
        func prefix(_ source: String) throws -> String { try PathTemplate(source, field: "t").literalPrefix }
        #expect(try prefix("/users/{id}/orders") == "/users/")
        #expect(try prefix("/{id}/orders") == "/")
        #expect(try prefix("/a/b") == "/a/b")
        #expect(try prefix("/a/b/") == "/a/b/")
        #expect(try prefix("/a/\u{212A}/{id}") == "/a/", "Swift compares segments by canonical equivalence")
    }

    /// ASCII paths are matched as bytes: the same answers as splitting and comparing strings.
    @Test func templatesMatchASCIIPathsAsStringsDo() throws {
        func reference(_ template: PathTemplate, _ path: String) -> [String]? {
            let parts = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
            guard parts.count == template.segments.count else { return nil }
            var values: [String] = []
            for (part, segment) in zip(parts, template.segments) {
                switch segment {
                case .literal(let text): guard part == text else { return nil }
                case .variable:
                    guard !part.isEmpty else { return nil }
                    values.append(String(part).removingPercentEncoding ?? String(part))
                }
            }
            return values
        }
        let templates = try ["/a/{id}", "/a/{id}/b", "/{x}", "/", "/a/", "/a//{id}", "/{x}/{y}"].map { try PathTemplate($0, field: "t") }
        let paths = [
            "/a/1", "/a/1/b", "/a/1/c", "/a/", "/a", "/", "", "a/1", "x/a/1", "/a//1", "/a/%41%2F", "/a/%zz", "/a/1/", "//", "/x/y", "/a/b%20c/b",
            "/a/caf\u{E9}", "/a/\u{212A}/b",
        ]
        for template in templates {
            for path in paths {
                #expect(template.match(path).map { $0.map(\.value) } == reference(template, path), "\(template.source) \(path)")
                #expect(template.fits(path) == (reference(template, path) != nil), "\(template.source) \(path)")
            }
        }
    }

    /// The mapping set of the comparison: literal and pattern mappings of every kind, several
    /// priorities, overlapping prefixes, anchors, flags, alternations, templates with variables
    /// first, and urlPatterns on the query string.
    static let corpus: [String] = [
        #"{"request": {"urlPath": "/api/users/1"}}"#,
        #"{"request": {"url": "/api/users/1?full=yes"}}"#,
        #"{"priority": 3, "request": {"urlPathPattern": "/api/users/[0-9]+"}}"#,
        #"{"request": {"urlPathPattern": "/api/users/.*"}}"#,
        #"{"request": {"urlPathPattern": "/api/.*"}}"#,
        #"{"request": {"urlPathPattern": "^/api/users?/[a-z]+"}}"#,
        #"{"request": {"urlPathPattern": "(?i)/API/Orders/[0-9]+"}}"#,
        #"{"priority": 2, "request": {"urlPathPattern": "/api/orders/1|/api/users/2"}}"#,
        #"{"request": {"urlPathPattern": "/api/(orders|users)/3"}}"#,
        #"{"request": {"urlPathPattern": "/api/orders/4)|(/api/users/4"}}"#,
        #"{"request": {"urlPathPattern": "/api/orders\\.json"}}"#,
        #"{"priority": 1, "request": {"method": "POST", "urlPathPattern": "/api/users/[0-9]+"}}"#,
        #"{"request": {"urlPattern": "/api/users\\?page=[0-9]+"}}"#,
        #"{"request": {"urlPattern": "/api/users/1\\?full=.*"}}"#,
        #"{"request": {"urlPattern": "/api/users/1"}}"#,
        #"{"request": {"urlPattern": ".*\\?debug=1"}}"#,
        #"{"request": {"urlPattern": "/search\\?q=(?i)Shoes"}}"#,
        #"{"request": {"urlPathTemplate": "/api/users/{id}"}}"#,
        #"{"priority": 4, "request": {"urlPathTemplate": "/api/users/{id}/orders/{order}"}}"#,
        #"{"request": {"urlPathTemplate": "/{tenant}/users/{id}"}}"#,
        #"{"request": {"urlPathTemplate": "/api/users/{id}", "pathParameters": {"id": {"matches": "[0-9]+"}}}}"#,
        #"{"request": {"urlPathTemplate": "/caf\u00e9/{id}"}}"#,
        #"{"request": {"urlPathTemplate": "/\u212a/{id}"}}"#,
        #"{"request": {"urlPathPattern": "/caf\u00e9/.*"}}"#,
        #"{"request": {"method": "DELETE"}}"#,
        #"{"request": {"urlPath": "/api/orders/1"}}"#,
        #"{"priority": 6, "request": {"urlPathPattern": "/.*"}}"#,
    ]

    static let targets = [
        "/api/users/1", "/api/users/1?full=yes", "/api/users/1?full=no", "/api/users/2", "/api/users/3", "/api/users/4",
        "/api/user/abc", "/api/users/abc", "/api/Users/1", "/API/ORDERS/12", "/api/orders/12", "/api/orders/1",
        "/api/orders/3", "/api/orders/4", "/api/orders.json", "/api/ordersxjson", "/api/users?page=2", "/api/users?page=x",
        "/anything?debug=1", "/search?q=shoes", "/search?q=SHOES", "/api/users/7/orders/9", "/acme/users/5",
        "/caf\u{E9}/1", "/cafe\u{301}/1", "/K/1", "/\u{212A}/1", "/", "/other", "/api", "/api/users/", "/api/users/1/",
    ]

    /// Every mapping that matches, in the order the engine tries them, with and without the index.
    @Test func theIndexLeavesOutOnlyMappingsThatCannotMatch() throws {
        let directory = StubDirectory(root: URL(fileURLWithPath: "/nonexistent"), globalTemplating: false)
        let mappings = try Self.corpus.map { try StubMapping.parse(try JSONValue.parse($0), in: directory) }
        // Several insertion orders: among equal priorities the newest wins.
        for order in [mappings, mappings.reversed(), mappings.enumerated().sorted { ($0.offset * 7) % 11 < ($1.offset * 7) % 11 }.map(\.element)] {
            let set = StubSet(mappings: order)
            for target in Self.targets {
                for method in [HTTPMethod.get, .post, .delete] {
                    let request = Request(method: method, target: target)
                    let everyMatch = set.ordered.filter { $0.request.evaluate(request).matched }.map(\.id)
                    var candidates: [String] = []
                    set.forEachCandidate(for: request) { candidate in
                        if candidate.matches(request) { candidates.append(candidate.mapping.id) }
                        return true
                    }
                    #expect(candidates == everyMatch, "\(method.rawValue) \(target)")
                }
            }
        }
    }

    @Test func theIndexOnlyOffersCandidates() throws {
        let directory = StubDirectory(root: URL(fileURLWithPath: "/nonexistent"), globalTemplating: false)
        let mappings = try (0..<100).map { n in
            try StubMapping.parse(try JSONValue.parse(#"{"request": {"urlPathTemplate": "/api/accounts/\#(n)/orders/{id}"}}"#), in: directory)
        }
        var visited = 0
        StubSet(mappings: mappings).forEachCandidate(for: Request(method: .get, target: "/api/accounts/42/orders/7")) { _ in
            visited += 1
            return true
        }
        #expect(visited == 1)
    }

    func serve(_ files: [String: String] = [:]) throws -> (BackendTester, StubEngine, URL) {
        let root = try makeTemporaryDirectory(files)
        let journal = RequestJournal()
        let engine = StubEngine(stubsDirectory: root)
        let server = try BackendTester(backends: [StubAdminAPI(engine: engine, journal: journal), engine], journal: journal)
        return (server, engine, root)
    }

    func text(_ data: Data) -> String { String(decoding: data, as: UTF8.self) }

    @Test func priorityAndScenariosAcrossLiteralAndPatternMappings() async throws {
        let (server, _, root) = try serve([
            "mappings/a.json":
                #"{"mappings": [{"request": {"urlPath": "/shop/cart"}, "response": {"body": "literal"}}, {"priority": 2, "request": {"urlPathPattern": "/shop/c.*"}, "response": {"body": "pattern, priority 2"}}, {"priority": 1, "scenarioName": "s", "requiredScenarioState": "Started", "newScenarioState": "two", "request": {"urlPathTemplate": "/shop/{page}"}, "response": {"body": "template, first time"}}]}"#
        ])
        defer { try? FileManager.default.removeItem(at: root) }
        #expect(text(try await server.send("GET", "/shop/cart").body) == "template, first time")
        #expect(text(try await server.send("GET", "/shop/cart").body) == "pattern, priority 2")
        #expect(text(try await server.send("GET", "/shop/checkout").body) == "pattern, priority 2")
        #expect(try await server.send("GET", "/shop/x/y").response.statusCode == 404)
    }

    @Test func adminAPIChangesReachTheIndex() async throws {
        let (server, _, root) = try serve()
        defer { try? FileManager.default.removeItem(at: root) }
        #expect(try await server.send("GET", "/reports/2026-11.csv").response.statusCode == 404)
        let create = #"{"request": {"urlPathPattern": "/reports/[0-9]{4}-[0-9]{2}\\.csv"}, "response": {"body": "report"}}"#
        let (created, _) = try await server.send("POST", "/__admin/mappings", body: Data(create.utf8))
        let id = try #require(try object(created)["id"] as? String)
        #expect(text(try await server.send("GET", "/reports/2026-11.csv").body) == "report")

        let replacement = #"{"request": {"urlPathTemplate": "/reports/{name}"}, "response": {"body": "template"}}"#
        #expect(try await server.send("PUT", "/__admin/mappings/\(id)", body: Data(replacement.utf8)).response.statusCode == 200)
        #expect(text(try await server.send("GET", "/reports/any").body) == "template")

        #expect(try await server.send("DELETE", "/__admin/mappings/\(id)").response.statusCode == 200)
        #expect(try await server.send("GET", "/reports/any").response.statusCode == 404)
    }

    @Test func fileChangesReachTheIndex() async throws {
        let (server, engine, root) = try serve([
            "mappings/p.json": #"{"request": {"urlPattern": "/find\\?q=.*"}, "response": {"body": "old"}}"#
        ])
        defer { try? FileManager.default.removeItem(at: root) }
        #expect(text(try await server.send("GET", "/find?q=a").body) == "old")
        try Data(#"{"request": {"urlPattern": "/look\\?q=.*"}, "response": {"body": "new"}}"#.utf8)
            .write(to: root.appendingPathComponent("mappings/p.json"))
        engine.reloadFiles()
        #expect(try await server.send("GET", "/find?q=a").response.statusCode == 404)
        #expect(text(try await server.send("GET", "/look?q=a").body) == "new")
        #expect(try await server.send("POST", "/__admin/reset").response.statusCode == 200)
        #expect(text(try await server.send("GET", "/look?q=a").body) == "new")
    }
}
