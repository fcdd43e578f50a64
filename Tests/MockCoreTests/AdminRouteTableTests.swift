import Foundation
import HTTPServer
import Logging
import MockCore
import Testing
import UnderstudyTesting

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite struct AdminRouteTableTests {
    let table = AdminRouteTable([
        AdminRoute(.get, .delete, path: "/__admin/requests/{id}", "one"),
        AdminRoute(.get, path: "/__admin/requests/live", "live"),
        AdminRoute(.get, .put, path: "/__admin/files/{name...}", "a file"),
        AdminRoute(.get, path: "/__admin/health", isPublic: true, "health"),
    ])

    @Test func literalsWinOverParametersAndTheRestTakesEveryLaterSegment() {
        #expect(table.route(.get, "/__admin/requests/live")?.summary == "live", "listed after {id}, found first")
        #expect(table.route(.get, "/__admin/requests/1c0d")?.summary == "one")
        #expect(table.route(.delete, "/__admin/requests/live")?.summary == "one", "a method live has not")
        #expect(table.route(.post, "/__admin/requests/1c0d") == nil)
        #expect(table.route(.get, "/__admin/requests/a/b") == nil && table.route(.get, "/__admin/requests") == nil)
        #expect(table.route(.put, "/__admin/files/users/bob.json")?.summary == "a file")
        #expect(table.route(.get, "/__admin/files") == nil, "the rest is at least one segment")
        #expect(table.route(.head, "/__admin/health")?.summary == "health", "HEAD where GET is")
        #expect(table.route(.get, "/__admin/health/") != nil, "a trailing slash is the same path")
    }

    @Test func whatIsPublicComesFromTheRoute() {
        func request(_ method: HTTPMethod, _ path: String) -> Request { Request(method: method, target: path) }
        #expect(table.isPublic(request(.get, "/__admin/health")) && table.isPublic(request(.head, "/__admin/health")))
        #expect(!table.isPublic(request(.post, "/__admin/health")), "not a method the route has")
        #expect(!table.isPublic(request(.get, "/__admin/requests/live")) && !table.isPublic(request(.get, "/__admin/nothing")))
    }

    @Test func theTableDispatchesWithThePathsParametersAndAnswers405WithAllow() throws {
        let served = AdminRouteTable([
            AdminRoute(
                path: "/__admin/things/{id}", "one thing",
                [(.get, { .response(.text("got " + $0.parameters.joined(separator: "|"))) }), (.delete, { _ in .response(.text("gone")) })]),
            AdminRoute(path: "/__admin/things/special", "a literal sibling", [(.post, { _ in .response(.text("special")) })]),
            AdminRoute(path: "/__admin/files/{dir}/{name...}", "a file", [(.put, { .response(.text($0.parameters.joined(separator: "|"))) })]),
        ])
        let context = RequestContext(scope: StateScopes().default)
        func answer(_ method: HTTPMethod, _ path: String) -> Response? {
            guard case .response(let response) = served.dispatch(Request(method: method, target: path), context) else { return nil }
            return response
        }
        #expect(answer(.get, "/__admin/things/7")?.body.bytes == Array("got 7".utf8))
        #expect(answer(.head, "/__admin/things/7")?.body.bytes == Array("got 7".utf8), "HEAD is GET's handler")
        #expect(answer(.post, "/__admin/things/special")?.body.bytes == Array("special".utf8))
        #expect(answer(.get, "/__admin/things/special")?.body.bytes == Array("got special".utf8), "a method the literal lacks goes on")
        #expect(answer(.put, "/__admin/files/a/b/c.json")?.body.bytes == Array("a|b/c.json".utf8), "the rest keeps its slashes")

        let refused = try #require(answer(.put, "/__admin/things/7"))
        #expect(refused.status == 405 && refused.headers["Allow"] == "GET, HEAD, DELETE")
        #expect(String(decoding: refused.body.bytes, as: UTF8.self).contains("PUT is not a method of /__admin/things/7"))
        #expect(answer(.patch, "/__admin/things/special")?.headers["Allow"] == "POST, GET, HEAD, DELETE", "every route holding the path")
        #expect(served.dispatch(Request(method: .get, target: "/__admin/nothing"), context) == nil, "no route holds it: the 404 page")
    }

    @Test func theServersTableHasEachPathOnceAndTheGuardReadsIt() async throws {
        let server = try TestServer.start(backends: [], adminGuard: AdminGuard(token: "s3cret"))
        defer { server.stop() }
        let routes = try #require(server.router?.adminRoutes.routes)
        #expect(Set(routes.map(\.path)).count == routes.count)
        let session = NoRedirects.session()
        for route in routes where route.path.hasPrefix("/__admin/") && !route.path.contains("{") {
            var request = URLRequest(url: server.url(route.path))
            request.httpMethod = route.methods[0].rawValue
            let (_, answer) = try await session.data(for: request)
            let status = (answer as? HTTPURLResponse)?.statusCode
            #expect((status == 401) == !route.isPublic, "\(route.methods[0]) \(route.path): \(status ?? 0)")
        }
    }
}
