import JSON
import MockCore
import Testing

@testable import MCPServer
@testable import understudy

/// The MCP tools are generated from the admin route table: each calls a route `serve` mounts,
/// with a method it takes, and asks only for what that route declares it reads.
@Suite struct MCPToolRoutesTests {
    @Test func everyToolMapsToARouteOfTheTableAndHasItsSchema() throws {
        let table = ListAdminRoutes.table
        #expect(MCPTool.catalogue.count == 18)
        #expect(Set(MCPTool.catalogue.map(\.name)).count == MCPTool.catalogue.count, "tool names are unique")
        for tool in MCPTool.catalogue {
            let route = try #require(tool.route(in: table), "\(tool.name): no route \(tool.method.rawValue) \(tool.path)")
            #expect(route.parameters(in: tool.path)?.count == tool.pathArguments.count, "\(tool.name): one argument per path parameter")
            let schema = try #require(tool.inputSchema(in: table), "\(tool.name): its route does not declare what the tool passes on")
            #expect(schema["type"] == "object" && schema["additionalProperties"] == false, "\(tool.name)")
            if let other = tool.withoutBody {
                #expect(table.routes.contains { $0.path == other.path && $0.methods.contains(other.method) }, "\(tool.name)'s other route")
            }
        }
    }

    /// A route a method sends a body to declares that body's schema (the MCP tools and
    /// `GET /__admin/routes` read it), but for these, which read none (or bytes, not JSON).
    static let bodiless: Set<String> = [
        "POST /__admin/reset", "POST /__admin/shutdown", "POST /__admin/requests/reset", "POST /__admin/mappings/reset",
        "POST /__admin/mappings/save", "POST /__admin/scenarios/reset", "POST /__admin/recordings/stop", "POST /__admin/recordings/snapshot",
        "POST /__admin/scopes/{name}/reset", "POST /__admin/scopes/{name}/proxy", "PUT /__admin/scopes/{name}",
        "PUT /__admin/files/{name...}", "POST /__admin/mcp",
    ]

    @Test func everyRouteThatReadsABodyDeclaresIt() {
        for route in ListAdminRoutes.table.routes {
            for method in route.methods where [.post, .put, .patch].contains(method) {
                let name = "\(method.rawValue) \(route.path)"
                if Self.bodiless.contains(name) {
                    #expect(route.input(for: method)?.body == nil, "\(name) is listed as bodiless but declares a body")
                } else {
                    #expect(route.input(for: method)?.body?["type"] == "object", "\(name) reads a body and declares no schema for it")
                }
            }
        }
    }

    @Test func argumentsBecomeTheAdminCall() throws {
        let network = try #require(MCPTool.catalogue.first { $0.name == "set_network" })
        let call = network.call(with: try JSONValue.parse(#"{"scope": "check out", "conditions": {"offline": true}}"#))
        #expect(call.method == .put && call.target == "/__admin/scopes/check%20out/network")
        #expect(String(decoding: call.body, as: UTF8.self) == #"{"offline":true}"#)
        let recording = try #require(MCPTool.catalogue.first { $0.name == "start_recording" })
        #expect(
            String(decoding: recording.call(with: try JSONValue.parse(#"{"target": "https://api.example.com"}"#)).body, as: UTF8.self)
                == #"{"targetBaseUrl":"https://api.example.com"}"#)
        let har = try #require(MCPTool.catalogue.first { $0.name == "export_har" })
        #expect(har.call(with: try JSONValue.parse(#"{"scope": "*", "limit": 5}"#)).target == "/__admin/requests?format=har&limit=5&scope=*")
        let misses = try #require(MCPTool.catalogue.first { $0.name == "near_misses" })
        #expect(misses.call(with: .object([])).target == "/__admin/requests/unmatched/near-misses")
        #expect(misses.call(with: try JSONValue.parse(#"{"pattern": {}}"#)).target == "/__admin/near-misses/request-pattern")
    }
}
