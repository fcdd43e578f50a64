import Foundation
import MockCore
import Stubs
import Testing
import UnderstudyTesting

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The repository's own `stubs/` folder, as `make run` serves it.
let shippedStubs = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("stubs")

func serveShippedStubs() throws -> TestServer {
    let engine = StubEngine(stubsDirectory: shippedStubs)
    let journal = RequestJournal()
    return try TestServer.start(backends: [StubAdminAPI(engine: engine, journal: journal), engine], journal: journal)
}

/// The links a web view would be asked to follow (`shouldStartLoadWithRequest`).
func links(in html: String) -> [URL] {
    let pattern = try! NSRegularExpression(pattern: #"<a\s+href="([^"]*)""#)
    return pattern.matches(in: html, range: NSRange(html.startIndex..., in: html)).compactMap { match in
        Range(match.range(at: 1), in: html).flatMap { URL(string: String(html[$0])) }
    }
}

/// Seed 001: OneSchool's bus tracker as HTML inside the native wrapper.
@Suite struct OneSchoolTests {
    struct Route: Decodable {
        let id: String
        let name: String
    }

    let routes: [Route] = try! JSONDecoder().decode(
        [Route].self, from: Data(contentsOf: shippedStubs.appendingPathComponent("oneschool/routes.json")))

    func text(_ data: Data) -> String { String(decoding: data, as: UTF8.self) }

    @Test func theRouteListLinksToTheNativeMapForEveryRoute() async throws {
        let server = try serveShippedStubs()
        defer { server.stop() }
        let (body, response) = try await server.send("GET", "/bus")
        #expect(response.statusCode == 200)
        #expect(response.value(forHTTPHeaderField: "Content-Type") == "text/html; charset=utf-8")
        let found = links(in: text(body))
        #expect(found.map(\.absoluteString) == routes.map { "tt://map/bus/\($0.id)" })
        #expect(found.allSatisfy { $0.scheme == "tt" && $0.host == "map" })
    }

    @Test func theWebMapVariantLinksToWebViewsThatShowTheRoute() async throws {
        let server = try serveShippedStubs()
        defer { server.stop() }
        // The launcher's tt://web/bus/web: the wrapper loads host + path, dropping any query.
        let launcher = try #require(URL(string: "tt://web/bus/web"))
        let found = links(in: text(try await server.send("GET", launcher.path).body))
        #expect(found.map(\.absoluteString) == routes.map { "os://bus/\($0.id)" })
        #expect(links(in: text(try await server.send("GET", "/bus?map=web").body)) == found)
        for (link, route) in zip(found, routes) {
            // What the wrapper does with os://: host + path becomes the web path.
            let webPath = "/" + (link.host ?? "") + link.path
            let (page, response) = try await server.send("GET", webPath)
            #expect(response.statusCode == 200)
            let escapedName = route.name.replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
            #expect(text(page).contains("<h1>\(escapedName)</h1>"), "\(webPath) shows \(route.name)")
            #expect(links(in: text(page)).map(\.absoluteString).contains("tt://map/bus/\(route.id)"))
        }
    }

    @Test func anUnknownRouteSaysSoAndLinksBack() async throws {
        let server = try serveShippedStubs()
        defer { server.stop() }
        let page = text(try await server.send("GET", "/bus/999").body)
        #expect(page.contains("<h1>No bus route 999</h1>"))
        #expect(links(in: page).map(\.absoluteString) == ["os://bus"])
        #expect(!page.contains("<form"))
    }

    @Test func reportingALateBusIsSeenByTheAJAXStatusUntilReset() async throws {
        let server = try serveShippedStubs()
        defer { server.stop() }
        func status() async throws -> [String: Any] {
            let (body, response) = try await server.send("GET", "/bus/status.json", headers: ["X-Requested-With": "XMLHttpRequest"])
            #expect(response.value(forHTTPHeaderField: "Content-Type") == "application/json")
            return try #require(try JSONSerialization.jsonObject(with: body) as? [String: Any])
        }
        #expect(try await status()["late"] as? Bool == false)

        let page = text(try await server.send("GET", "/bus/2").body)
        #expect(page.contains(#"<form method="post" action="/bus/2/late">"#))
        // URLSession follows the 303 back to the route page, as the web view would.
        let (after, response) = try await server.send(
            "POST", "/bus/2/late", headers: ["Content-Type": "application/x-www-form-urlencoded"],
            body: Data("minutes=12&note=stuck+in+traffic".utf8))
        #expect(response.statusCode == 200)
        #expect(response.url?.absoluteString.hasSuffix("/bus/2?reported=1") == true)
        #expect(text(after).contains("your late-bus report was sent"))
        #expect(try await status()["late"] as? Bool == true)

        let (rejected, rejectedResponse) = try await server.send(
            "POST", "/bus/2/late", headers: ["Content-Type": "application/x-www-form-urlencoded"],
            body: Data("minutes=soon".utf8))
        #expect(rejectedResponse.statusCode == 400 && text(rejected).contains("minutes late as a number"))
        // Its way back is a custom-scheme link: an http link would strand the user in the web view.
        #expect(links(in: text(rejected)).map(\.absoluteString) == ["os://bus/2"])

        #expect(try await server.send("POST", "/__admin/reset").response.statusCode == 200)
        #expect(try await status()["late"] as? Bool == false)
    }

    @Test func thePagesAssetsAreServed() async throws {
        let server = try serveShippedStubs()
        defer { server.stop() }
        let (css, cssResponse) = try await server.send("GET", "/oneschool/style.css")
        #expect(cssResponse.value(forHTTPHeaderField: "Content-Type") == "text/css; charset=utf-8" && !css.isEmpty)
        let (script, jsResponse) = try await server.send("GET", "/oneschool/status.js")
        #expect(jsResponse.value(forHTTPHeaderField: "Content-Type") == "application/javascript; charset=utf-8")
        #expect(text(script).contains("/bus/status.json"))
    }
}
