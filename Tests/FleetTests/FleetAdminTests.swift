import Logging
import MockCore
import Testing
import UnderstudyTesting

@testable import Fleet

/// The fleet's admin routes, mounted as every module's are: in the one table.
@Suite struct FleetAdminTests {
    @Test func nothingButTheAdminAPIIsMountedUnderAdmin() throws {
        let fleet = FleetAdmin(peers: nil, selfURL: "http://127.0.0.1", backends: [], scopes: StateScopes(), logger: Logger(label: "test"))
        let server = try TestServer.start(backends: [fleet])
        defer { server.stop() }
        let router = try #require(server.router)
        #expect(router.adminRoutes.route(.get, "/__admin/fleet/node") != nil, "its routes are in the table")
        let underAdmin = router.routes.filter { Router.path($0.prefix, isUnder: "/__admin") }
        #expect(underAdmin.map(\.backend.name) == ["admin"], "every admin path is the table's")
    }
}
