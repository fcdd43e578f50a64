import Commerce
import Foundation
import Geocoder
import Informix
import Lotus
import MockCore
import Stubs
import Testing
import UnderstudyTesting

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Two CI workers on one server, each in its own state scope — one names it with the path prefix
/// (a client whose only setting is a base URL), the other with the header — walk every backend
/// that keeps state: what one writes, the other never sees; resetting one leaves the other alone;
/// a deleted scope starts again from the fixtures.
@Suite struct ScopeIsolationTests {
    static let stubs = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("stubs")

    /// One worker: its own cookies, and its scope in every request.
    struct Worker {
        let server: TestServer
        let session: URLSession
        /// `/__scope/NAME` or "".
        let basePath: String
        let headers: [String: String]

        init(_ server: TestServer, prefix scope: String? = nil, header: String? = nil) {
            self.server = server
            session = URLSession(configuration: .ephemeral)
            basePath = scope.map { "/__scope/\($0)" } ?? ""
            headers = header.map { ["X-Understudy-Scope": $0] } ?? [:]
        }

        func send(_ method: String = "GET", _ path: String, body: String? = nil, headers extra: [String: String] = [:]) async throws -> (
            status: Int, text: String
        ) {
            var request = URLRequest(url: server.url(basePath + path))
            request.httpMethod = method
            for (name, value) in headers.merging(extra, uniquingKeysWith: { $1 }) { request.setValue(value, forHTTPHeaderField: name) }
            request.httpBody = body.map { Data($0.utf8) }
            let (data, response) = try await session.data(for: request)
            return ((response as? HTTPURLResponse)?.statusCode ?? 0, String(decoding: data, as: UTF8.self))
        }

        // The writes and reads of each backend, as its clients make them.

        func addToCart() async throws -> Int {
            try await send(
                "POST", "/webapp/wcs/stores/servlet/OrderChangeServiceItemAdd",
                body: "storeId=10152&catalogId=10051&langId=-1&catEntryId=12601&quantity=1&URL=mOrderItemDisplay",
                headers: ["Content-Type": "application/x-www-form-urlencoded"]
            ).status
        }

        func cartCount() async throws -> String? {
            let page = try await send("GET", "/webapp/wcs/stores/servlet/mOrderItemDisplay?storeId=10152&catalogId=10051&langId=-1").text
            guard let start = page.range(of: "<span id=\"cartCount\">"), let end = page[start.upperBound...].firstIndex(of: "<") else { return nil }
            return String(page[start.upperBound..<end])
        }

        func sql(_ statement: String) async throws -> String {
            var allowed = CharacterSet.alphanumerics
            allowed.insert(charactersIn: "-._~")
            return try await send(
                "POST", "/informix/generic.php",
                body: "sql_stmt=\(statement.addingPercentEncoding(withAllowedCharacters: allowed)!)&tableName=customer",
                headers: ["Content-Type": "application/x-www-form-urlencoded"]
            ).text
        }

        func postStatus(_ text: String) async throws -> Int {
            try await send(
                "PUT", "/developerworks/mydeveloperworks/profiles/atom/mv/theboard/entry/status.do?email=npoore@renovations.example.com",
                body: """
                    <entry xmlns="http://www.w3.org/2005/Atom"><category scheme="http://www.ibm.com/xmlns/prod/sn/type" term="entry"/>\
                    <category scheme="http://www.ibm.com/xmlns/prod/sn/message-type" term="status"/><content type="text">\(text)</content></entry>
                    """,
                headers: [
                    "Authorization": "Basic " + Data("npoore@renovations.example.com:passw0rd".utf8).base64EncodedString(),
                    "Content-Type": "application/atom+xml",
                ]
            ).status
        }

        func publicUpdates() async throws -> String {
            try await send("GET", "/developerworks/mydeveloperworks/news/atom/stories/public?source=profiles&ps=5").text
        }

        func geocodeStatus() async throws -> String? {
            let json = try await send("GET", "/maps/api/geocode/json?address=94086").text
            return (try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])?["status"] as? String
        }

        func count(_ urlPath: String, scope: String? = nil) async throws -> Int? {
            let answer = try await send(
                "POST", "/__admin/requests/count" + (scope.map { "?scope=\($0)" } ?? ""), body: #"{"method": "ANY", "urlPath": "\#(urlPath)"}"#)
            return (try JSONSerialization.jsonObject(with: Data(answer.text.utf8)) as? [String: Any])?["count"] as? Int
        }
    }

    /// The shipped fixtures, with a scenario stub, a recorded scenario, and a geocoder that allows
    /// one request a day per caller.
    static func fixtures() throws -> (root: URL, journal: RequestJournal, backends: [any Backend]) {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("scopes-\(UUID().uuidString)")
        let files: [String: String] = [
            "stubs/mappings/cart.json": #"""
            {"mappings": [
              {"scenarioName": "basket", "requiredScenarioState": "Started", "newScenarioState": "full",
               "request": {"method": "POST", "urlPath": "/basket"}, "response": {"status": 201}},
              {"scenarioName": "basket", "requiredScenarioState": "Started", "request": {"method": "GET", "urlPath": "/basket"}, "response": {"body": "empty"}},
              {"scenarioName": "basket", "requiredScenarioState": "full", "request": {"method": "GET", "urlPath": "/basket"}, "response": {"body": "full"}}
            ]}
            """#,
            "recorded/mappings/feed.json": #"""
            {"mappings": [
              {"scenarioName": "feed", "requiredScenarioState": "Started", "newScenarioState": "step-2",
               "request": {"urlPath": "/feed"}, "response": {"body": "first answer"}},
              {"scenarioName": "feed", "requiredScenarioState": "step-2", "request": {"urlPath": "/feed"}, "response": {"body": "second answer"}}
            ]}
            """#,
            "geocoder/config.json": #"{"mounts": ["/maps/api/geocode"], "keys": "none", "rateLimit": {"perDay": 1}}"#,
        ]
        for (path, text) in files {
            let file = root.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(text.utf8).write(to: file)
        }
        let geocoder = stubs.appendingPathComponent("geocoder")
        for name in try FileManager.default.contentsOfDirectory(atPath: geocoder.path) where name != "config.json" {
            try FileManager.default.createSymbolicLink(
                at: root.appendingPathComponent("geocoder/\(name)"), withDestinationURL: geocoder.appendingPathComponent(name))
        }
        let journal = RequestJournal()
        let userStubs = StubEngine(stubsDirectory: root.appendingPathComponent("stubs"))
        let recordings = StubEngine(stubsDirectory: root.appendingPathComponent("recorded"), name: "recordings", tier: .recordings)
        let backends: [any Backend] = [
            StubAdminAPI(engine: userStubs, journal: journal, recordings: recordings), userStubs, recordings,
            CommerceBackend(directory: stubs.appendingPathComponent("commerce")),
            InformixBackend(directory: stubs.appendingPathComponent("informix")),
            LotusBackend(directory: stubs.appendingPathComponent("lotus")),
            GeocoderBackend(directory: root.appendingPathComponent("geocoder")),
        ]
        return (root, journal, backends)
    }

    @Test func whatOneScopeWritesTheOtherNeverSees() async throws {
        let (root, journal, backends) = try Self.fixtures()
        defer { try? FileManager.default.removeItem(at: root) }
        let server = try TestServer.start(backends: backends, journal: journal)
        defer { server.stop() }
        let a = Worker(server, prefix: "ci-a")
        let b = Worker(server, header: "ci-b")

        // Commerce: a's cart has an item; b's (same product page, its own session) is empty, and
        // a's session cookies mean nothing in b.
        #expect(try await a.addToCart() == 200)
        #expect(try await a.cartCount() == "1")
        // Under the path prefix, links keep it: the web view stays in its scope.
        let cartPage = try await a.send("GET", "/webapp/wcs/stores/servlet/mOrderItemDisplay?storeId=10152&catalogId=10051&langId=-1").text
        #expect(cartPage.contains(#"href="/__scope/ci-a/webapp/wcs/stores/servlet/StoreView?"#))
        #expect(!cartPage.contains(#"href="/webapp/wcs/"#))
        #expect(try await b.cartCount() == "0")
        let aInB = Worker(server, header: "ci-b")
        for cookie in a.session.configuration.httpCookieStorage?.cookies ?? [] { aInB.session.configuration.httpCookieStorage?.setCookie(cookie) }
        #expect(try await aInB.cartCount() == "0")

        // Informix: a row inserted in a is only in a's database.
        _ = try await a.sql("INSERT INTO customer (fname, lname) VALUES ('Ada', 'ScopeA')")
        _ = try await b.sql("INSERT INTO customer (fname, lname) VALUES ('Bob', 'ScopeB')")
        let select = "SELECT fname, lname FROM customer WHERE lname LIKE 'Scope%'"
        let rowsInA = try await a.sql(select)
        let rowsInB = try await b.sql(select)
        #expect(rowsInA.contains("ScopeA") && !rowsInA.contains("ScopeB"))
        #expect(rowsInB.contains("ScopeB") && !rowsInB.contains("ScopeA"))

        // Lotus: a status posted in a is a story in a's feed only.
        #expect(try await a.postStatus("Testing in scope a") == 200)
        let feed = try await a.publicUpdates()
        #expect(feed.contains("Testing in scope a"))
        #expect(feed.contains("/__scope/ci-a/developerworks/mydeveloperworks/news/atom/stories/public"), "the feed's own links keep the prefix")
        #expect(try await !b.publicUpdates().contains("Testing in scope a"))

        // Stub scenarios (user stubs and recordings): a moves on, b starts from the beginning.
        #expect(try await a.send("POST", "/basket").status == 201)
        #expect(try await a.send("GET", "/basket").text == "full")
        #expect(try await b.send("GET", "/basket").text == "empty")
        #expect(try await a.send("GET", "/feed").text == "first answer")
        #expect(try await a.send("GET", "/feed").text == "second answer")
        #expect(try await b.send("GET", "/feed").text == "first answer")

        // Admin-API stubs: each scope's own, invisible to the other and to default.
        let stub = { (body: String) in #"{"request": {"urlPath": "/mine"}, "response": {"body": "\#(body)"}}"# }
        #expect(try await a.send("POST", "/__admin/mappings", body: stub("a's")).status == 201)
        #expect(try await b.send("POST", "/__admin/mappings", body: stub("b's")).status == 201)
        #expect(try await a.send("GET", "/mine").text == "a's")
        #expect(try await b.send("GET", "/mine").text == "b's")
        #expect(try await Worker(server).send("GET", "/mine").status == 404)

        // Geocoder: one request a day per caller, counted per scope.
        #expect(try await a.geocodeStatus() == "OK")
        #expect(try await a.geocodeStatus() == "OVER_QUERY_LIMIT")
        #expect(try await b.geocodeStatus() == "OK")

        // The journal: each scope counts its own requests; `?scope=*` counts all.
        #expect(try await a.count("/mine") == 1)
        #expect(try await b.count("/basket") == 1)
        #expect(try await a.count("/basket") == 2)
        #expect(try await b.count("/basket", scope: "*") == 3)

        // Resetting a leaves b as it was.
        #expect(try await a.send("POST", "/__admin/reset").status == 200)
        #expect(try await a.cartCount() == "0")
        #expect(try await !a.sql(select).contains("ScopeA"))
        #expect(try await !a.publicUpdates().contains("Testing in scope a"))
        #expect(try await a.send("GET", "/basket").text == "empty")
        #expect(try await a.send("GET", "/feed").text == "first answer")
        #expect(try await a.send("GET", "/mine").status == 404)
        #expect(try await a.geocodeStatus() == "OK")
        #expect(try await a.count("/basket") == 1, "the journal of a starts again at the reset")
        #expect(try await b.sql(select).contains("ScopeB"))
        #expect(try await b.send("GET", "/mine").text == "b's")
        #expect(try await b.send("GET", "/feed").text == "second answer")
        #expect(try await b.geocodeStatus() == "OVER_QUERY_LIMIT")

        // Deleting b: gone from the list, and named again it starts from the fixtures.
        let listed = try await Worker(server).send("GET", "/__admin/scopes").text
        #expect(listed.contains(#""name":"ci-a""#) && listed.contains(#""name":"ci-b""#) && listed.contains(#""name":"default""#))
        #expect(try await Worker(server).send("DELETE", "/__admin/scopes/ci-b").status == 200)
        #expect(try await !Worker(server).send("GET", "/__admin/scopes").text.contains(#""name":"ci-b""#))
        #expect(try await b.send("GET", "/mine").status == 404)
        #expect(try await !b.sql(select).contains("ScopeB"))
        #expect(try await b.count("/basket") == 0)
    }
}
