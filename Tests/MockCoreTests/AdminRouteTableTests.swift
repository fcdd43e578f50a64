import Foundation
import HTTPServer
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
