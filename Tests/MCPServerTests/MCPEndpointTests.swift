import Foundation
import HTTPServer
import JSON
import MockCore
import Stubs
import Testing
import UnderstudyTesting

@testable import MCPServer

/// The MCP endpoint over a real socket, spoken to as the protocol's clients do (the official
/// Python SDK drives it in Tests/python/test_mcp.py, `export_har` among the tools); here the
/// edges a client cannot be made to send: bad envelopes, headers that disagree with the body,
/// unknown versions.
@Suite struct MCPEndpointTests {
    struct Served {
        let server: TestServer
        let root: URL

        func stop() {
            server.stop()
            try? FileManager.default.removeItem(at: root)
        }

        /// A JSON-RPC request in the 2025-11-25 era (no version header before `initialize`).
        func legacy(_ method: String, _ params: JSONValue = .object([]), id: Int = 1, headers: [String: String] = [:]) async throws -> (
            JSONValue, Int
        ) {
            let message = JSONValue.object([("jsonrpc", "2.0"), ("id", .int(id)), ("method", .string(method)), ("params", params)])
            return try await post(message.serialized, headers: ["MCP-Protocol-Version": "2025-11-25"].merging(headers) { $1 })
        }

        /// A 2026-07-28 request: `_meta` and the routing headers as the SDKs send them.
        func stateless(_ method: String, _ params: [(String, JSONValue)] = [], name: String? = nil, headers: [String: String] = [:]) async throws
            -> (JSONValue, Int)
        {
            let meta: JSONValue = .object([
                ("io.modelcontextprotocol/protocolVersion", "2026-07-28"), ("io.modelcontextprotocol/clientCapabilities", .object([])),
            ])
            let message = JSONValue.object([
                ("jsonrpc", "2.0"), ("id", 7), ("method", .string(method)), ("params", .object(params + [("_meta", meta)])),
            ])
            var sent = ["MCP-Protocol-Version": "2026-07-28", "Mcp-Method": method]
            if let name { sent["Mcp-Name"] = name }
            return try await post(message.serialized, headers: sent.merging(headers) { $1 })
        }

        func post(_ body: String, headers: [String: String] = [:]) async throws -> (JSONValue, Int) {
            let (data, response) = try await server.send(
                "POST", "/__admin/mcp",
                headers: ["Content-Type": "application/json", "Accept": "application/json, text/event-stream"].merging(headers) { $1 },
                body: Data(body.utf8))
            return (data.isEmpty ? .null : try JSONValue.parse(Array(data)), response.statusCode)
        }
    }

    static func serve() throws -> Served {
        let root = try makeTemporaryDirectory(["mappings/hello.json": #"{"request": {"urlPath": "/hello"}, "response": {"body": "hi"}}"#])
        let journal = RequestJournal()
        let engine = StubEngine(stubsDirectory: root)
        let mcp = MCPEndpoint()
        let server = try TestServer.start(backends: [StubAdminAPI(engine: engine, journal: journal), engine, mcp], journal: journal)
        if let router = server.router { mcp.connect(to: router) }
        return Served(server: server, root: root)
    }

    @Test func theHandshakeEraInitializesListsAndCalls() async throws {
        let served = try Self.serve()
        defer { served.stop() }
        let (initialized, status) = try await served.post(
            #"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#
        )
        #expect(status == 200)
        #expect(initialized["result"]?["protocolVersion"] == "2025-11-25")
        #expect(initialized["result"]?["serverInfo"]?["name"] == "understudy")
        #expect(initialized["result"]?["resultType"] == nil, "2026 members stay out of a 2025 answer")
        // The notification is accepted with no body.
        let (_, notified) = try await served.post(#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#)
        #expect(notified == 202)
        let (tools, _) = try await served.legacy("tools/list")
        let names = tools["result"]?["tools"]?.arrayValue?.compactMap { $0["name"]?.stringValue } ?? []
        // This server has the stub engine but no recorder: the recorder's tools are not listed.
        #expect(names.contains("create_stub") && names.contains("near_misses") && names.contains("create_scope"))
        #expect(!names.contains("start_recording"))
        let (created, _) = try await served.legacy(
            "tools/call",
            .object([
                ("name", "create_stub"),
                (
                    "arguments",
                    .object([
                        ("scope", "alpha"),
                        ("mapping", try JSONValue.parse(#"{"request": {"urlPath": "/made"}, "response": {"status": 201, "body": "made"}}"#)),
                    ])
                ),
            ]))
        #expect(created["result"]?["isError"] == false)
        #expect(created["result"]?["structuredContent"]?["id"]?.stringValue != nil)
        // The stub answers in its scope, not in another.
        let (body, answer) = try await served.server.send("GET", "/made", headers: ["X-Understudy-Scope": "alpha"])
        #expect(answer.statusCode == 201 && String(decoding: body, as: UTF8.self) == "made")
        #expect(try await served.server.send("GET", "/made").response.statusCode == 404)
    }

    @Test func badArgumentsAreAToolErrorThatNamesThePlace() async throws {
        let served = try Self.serve()
        defer { served.stop() }
        let (missing, _) = try await served.legacy("tools/call", .object([("name", "create_stub"), ("arguments", .object([]))]))
        #expect(missing["result"]?["isError"] == true)
        #expect(missing["result"]?["content"]?[0]?["text"]?.stringValue?.contains("mapping is required") == true)
        let (wrongType, _) = try await served.legacy(
            "tools/call",
            .object([("name", "set_network"), ("arguments", .object([("scope", "s"), ("conditions", .object([("latencyMs", "slow")]))]))]))
        #expect(
            wrongType["result"]?["content"]?[0]?["text"]?.stringValue?.contains(
                "Bad arguments for set_network: /conditions/latencyMs: expected integer, got string") == true)
        let (unknown, _) = try await served.legacy("tools/call", .object([("name", "list_stubs"), ("arguments", .object([("colour", "red")]))]))
        #expect(unknown["result"]?["content"]?[0]?["text"]?.stringValue?.contains("unknown property colour") == true)
        // A failure of the admin call itself carries the admin API's message.
        let badRegex = try JSONValue.parse(#"{"request": {"urlPath": "/x", "bodyPatterns": [{"matches": "("}]}, "response": {}}"#)
        let (refused, _) = try await served.legacy("tools/call", .object([("name", "create_stub"), ("arguments", .object([("mapping", badRegex)]))]))
        #expect(refused["result"]?["isError"] == true)
        #expect(
            refused["result"]?["content"]?[0]?["text"]?.stringValue?.contains("create_stub failed: POST /__admin/mappings answered 422") == true,
            "\(refused.serialized)")
        #expect(refused["result"]?["structuredContent"]?["status"]?.intValue.map { $0 >= 400 } == true, "\(refused.serialized)")
        let (noTool, _) = try await served.legacy("tools/call", .object([("name", "teleport")]))
        #expect(noTool["error"]?["code"] == -32602)
    }

    @Test func envelopesThatAreNotOneRequestAreRefused() async throws {
        let served = try Self.serve()
        defer { served.stop() }
        let (batch, batchStatus) = try await served.post(#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#)
        #expect(batchStatus == 400 && batch["error"]?["code"] == -32600 && batch["id"] == .null)
        let (garbled, garbledStatus) = try await served.post("{\"jsonrpc\":")
        #expect(garbledStatus == 400 && garbled["error"]?["code"] == -32700)
        let (noVersion, _) = try await served.post(#"{"id":1,"method":"ping"}"#)
        #expect(noVersion["error"]?["code"] == -32600)
        let (unknownMethod, unknownStatus) = try await served.legacy("sampling/teleport")
        #expect(unknownStatus == 200 && unknownMethod["error"]?["code"] == -32601 && unknownMethod["id"] == 1)
        let (future, futureStatus) = try await served.legacy("ping", headers: ["MCP-Protocol-Version": "2031-01-01"])
        #expect(futureStatus == 400 && future["error"]?["code"] == -32022)
        #expect(future["error"]?["data"]?["supported"]?.arrayValue?.contains("2026-07-28") == true)
        // Only POST: there is no session stream to GET or to DELETE.
        let (_, get) = try await served.server.send("GET", "/__admin/mcp")
        #expect(get.statusCode == 405 && get.value(forHTTPHeaderField: "Allow") == "POST")
        let (_, delete) = try await served.server.send("DELETE", "/__admin/mcp")
        #expect(delete.statusCode == 405)
        let (_, text) = try await served.post("{}", headers: ["Content-Type": "text/plain"])
        #expect(text == 415)
    }

    @Test func theStatelessEraChecksItsHeadersAgainstTheBody() async throws {
        let served = try Self.serve()
        defer { served.stop() }
        let (discovered, status) = try await served.stateless("server/discover")
        #expect(status == 200)
        #expect(discovered["result"]?["supportedVersions"]?.arrayValue?.contains("2026-07-28") == true)
        #expect(
            discovered["result"]?["resultType"] == "complete" && discovered["result"]?["ttlMs"] == 0
                && discovered["result"]?["cacheScope"] == "private")
        let (listed, _) = try await served.stateless("tools/list")
        #expect(listed["result"]?["tools"]?.arrayValue?.isEmpty == false)
        // Mcp-Method must be the body's method; Mcp-Name the tool's name (base64 when not plain ASCII).
        let (mismatch, mismatchStatus) = try await served.stateless("tools/list", headers: ["Mcp-Method": "tools/call"])
        #expect(mismatchStatus == 400 && mismatch["error"]?["code"] == -32020)
        let arguments: [(String, JSONValue)] = [("name", "list_scopes"), ("arguments", .object([]))]
        let (noName, _) = try await served.stateless("tools/call", arguments)
        #expect(noName["error"]?["code"] == -32020)
        let (called, _) = try await served.stateless("tools/call", arguments, name: "=?base64?\(Data("list_scopes".utf8).base64EncodedString())?=")
        #expect(called["result"]?["isError"] == false && called["result"]?["resultType"] == "complete")
        #expect(called["result"]?["ttlMs"] == nil, "a tool's result is not a cacheable one")
        // Without _meta's version and capabilities the request is not a 2026-07-28 one.
        let (bare, bareStatus) = try await served.post(
            #"{"jsonrpc":"2.0","id":3,"method":"tools/list"}"#, headers: ["MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/list"])
        #expect(bareStatus == 400 && bare["error"]?["code"] == -32602)
        let (unknown, unknownStatus) = try await served.stateless("prompts/list")
        #expect(unknownStatus == 404 && unknown["error"]?["code"] == -32601)
    }

    @Test func resourcesReadTheJournalOfAScope() async throws {
        let served = try Self.serve()
        defer { served.stop() }
        _ = try await served.server.send("GET", "/hello", headers: ["X-Understudy-Scope": "beta"])
        let (listed, _) = try await served.legacy("resources/list")
        #expect(
            listed["result"]?["resources"]?.arrayValue?.map { $0["uri"]?.stringValue } == [
                "understudy://scopes", "understudy://emulators", "understudy://journal", "understudy://near-misses",
            ])
        let (read, _) = try await served.legacy("resources/read", .object([("uri", "understudy://scopes/beta/journal")]))
        let text = try #require(read["result"]?["contents"]?[0]?["text"]?.stringValue)
        let journal = try JSONValue.parse(text)
        #expect(journal["requests"]?.arrayValue?.map { $0["request"]?["url"] } == ["/hello"])
        let (defaultJournal, _) = try await served.legacy("resources/read", .object([("uri", "understudy://journal")]))
        #expect(try JSONValue.parse(defaultJournal["result"]?["contents"]?[0]?["text"]?.stringValue ?? "")["requests"]?.arrayValue?.isEmpty == true)
        let (missing, _) = try await served.legacy("resources/read", .object([("uri", "understudy://scopes/../journal")]))
        #expect(missing["error"]?["code"] == -32002)
    }

}

extension JSONValue {
    fileprivate subscript(index: Int) -> JSONValue? {
        guard let items = arrayValue, items.indices.contains(index) else { return nil }
        return items[index]
    }
}
