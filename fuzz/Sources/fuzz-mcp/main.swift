// The MCP endpoint's reading of a POST body: the JSON-RPC envelope, then, for a tool call, the
// arguments checked against the tool's input schema and turned into the admin call it makes;
// and an `Mcp-Name` header's value decoded. Input: the body, NUL, the header's value.
import FuzzSupport
import JSON
import MockCore
import Recording
import Stubs

@testable import MCPServer

/// The routes `serve` mounts, listed: what the tools' schemas are made from.
nonisolated(unsafe) let table = AdminRouteTable(
    listingBuiltInAnd: StubAdminAPI.endpoints.listing() + RecordingAdminAPI.endpoints.listing() + MessageStubs.listedRoutes)

/// libFuzzer's main, linked in with its runtime, wants this symbol even though it is not used.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let (body, header) = FuzzInput(data, size).halves
    _ = MCPHeaders.decodedName(String(decoding: header, as: UTF8.self))
    guard case .success(let message) = MCPMessage.parse(body) else { return 0 }
    let name = message.params["name"]?.stringValue ?? MCPTool.catalogue[body.count % MCPTool.catalogue.count].name
    guard let tool = MCPTool.catalogue.first(where: { $0.name == name }), let schema = tool.inputSchema(in: table) else { return 0 }
    let arguments = message.params["arguments"] ?? message.params
    if InputSchema.violation(of: schema, by: arguments, root: "the arguments") == nil { _ = tool.call(with: arguments) }
    return 0
}

// Last: the driver never returns, and what it calls may read the globals above, set by then.
runFuzzer(fuzzOne)
