import ArgumentParser
import DeviceProxy
import Fleet
import MCPServer
import MockCore
import Recording
import Stubs

/// `understudy admin-routes`: every route of the admin API `serve` mounts (device mode's included),
/// as a running server lists them at `GET /__admin/routes`; `--markdown` prints docs/admin-api.md's
/// "Every route" table, which a test holds to this one.
struct ListAdminRoutes: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "admin-routes", abstract: "List the admin API's routes (--markdown: the table docs/admin-api.md holds).")

    @Flag(help: "Print the Markdown table of docs/admin-api.md.")
    var markdown = false

    /// What `serve` mounts: the stub engine's, the recorder's, device mode's, the fleet's and the MCP endpoint's routes beside the built-in ones.
    static let table = AdminRouteTable(
        listingBuiltInAnd: StubAdminAPI.endpoints.listing() + RecordingAdminAPI.endpoints.listing() + DeviceModeAPI.endpoints.listing()
            + MessageStubs.listedRoutes
            + FleetAdmin.endpoints.listing() + MCPEndpoint.endpoints.listing())

    func run() {
        guard !markdown else { return print(Self.table.markdown, terminator: "") }
        // Padded, never cut: the longest path sets the column.
        let width = Self.table.routes.map(\.path.count).max() ?? 0
        for route in Self.table.byPath {
            let methods = route.methods.map(\.rawValue).joined(separator: ",")
            print(
                "\(methods.padding(toLength: 16, withPad: " ", startingAt: 0)) \(route.path.padding(toLength: width, withPad: " ", startingAt: 0)) "
                    + (route.isPublic ? "(no token) " : "") + route.summary)
        }
    }
}
