import ArgumentParser
import Foundation
import HTTPServer
import JSON
import WireFormat

/// `understudy mcp`: the MCP server over stdio, for agent hosts that start their servers as
/// commands. Each line on stdin (one JSON-RPC message, as MCP's stdio transport frames them) is
/// posted to a running server's `POST /__admin/mcp` with the headers the Streamable HTTP transport
/// wants (the version negotiated by `initialize`, or a 2026-07-28 request's own `_meta`, method
/// and name); each answer is one line on stdout. Notifications get no line. A server that cannot
/// be reached, or that refuses the call (a wrong token), is answered as a JSON-RPC error, so the
/// agent host shows why.
struct MCPBridge: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mcp", abstract: "Serve MCP (Model Context Protocol) over stdio, for a coding agent, through a running server.")

    @OptionGroup var server: RunningServerOptions

    func run() throws {
        let loop = try EventLoop.startClient()
        let endpoint = server.base + "/__admin/mcp"
        FileHandle.standardError.write(Data("understudy mcp: relaying stdio to \(endpoint)\n".utf8))
        var negotiated: String?
        while let line = readLine(strippingNewline: true) {
            guard line.contains(where: { !$0.isWhitespace }) else { continue }
            let message = try? JSONValue.parse(line)
            let answer = relay(line, message, version: negotiated, to: endpoint, on: loop)
            guard let answer else { continue }
            if message?["method"] == "initialize", let version = answer["result"]?["protocolVersion"]?.stringValue { negotiated = version }
            FileHandle.standardOutput.write(Data((answer.serialized + "\n").utf8))
        }
    }

    /// The server's answer to one message; nil for a notification (or a response) it accepted.
    private func relay(_ line: String, _ message: JSONValue?, version: String?, to endpoint: String, on loop: EventLoop) -> JSONValue? {
        var headers = server.headers
        headers.set("Content-Type", "application/json")
        headers.set("Accept", "application/json, text/event-stream")
        let method = message?["method"]?.stringValue
        if let stated = message?["params"]?["_meta"]?["io.modelcontextprotocol/protocolVersion"]?.stringValue {
            headers.set("MCP-Protocol-Version", stated)
            if let method { headers.set("Mcp-Method", method) }
            if let name = (method == "tools/call" ? message?["params"]?["name"] : method == "resources/read" ? message?["params"]?["uri"] : nil)?
                .stringValue
            {
                headers.set("Mcp-Name", Self.headerValue(name))
            }
        } else if let version, method != "initialize" {
            headers.set("MCP-Protocol-Version", version)
        }
        let id = message?["id"] ?? .null
        let request = OutboundRequest(method: .post, url: endpoint, headers: headers, body: Array(line.utf8), timeout: .seconds(300))
        let response: Response
        do {
            response = try loop.sendWaiting(request).get()
        } catch {
            return Self.failure("Cannot reach the Understudy server at \(endpoint): \(error)", id: id)
        }
        if response.status == 202 { return nil }
        if let answer = try? JSONValue.parse(response.body.bytes), answer["jsonrpc"] == "2.0" { return answer }
        let text = String(decoding: response.body.bytes, as: UTF8.self)
        let reason = (try? JSONValue.parse(text))?["message"]?.stringValue ?? text
        return Self.failure("\(endpoint) answered \(response.status): \(reason.prefix(500))", id: id)
    }

    private static func failure(_ message: String, id: JSONValue) -> JSONValue {
        .object([("jsonrpc", "2.0"), ("id", id), ("error", .object([("code", -32603), ("message", .string(message))]))])
    }

    /// `Mcp-Name` as 2026-07-28 sends it: printable ASCII as it is, else `=?base64?…?=`.
    static func headerValue(_ name: String) -> String {
        let plain = name.utf8.allSatisfy { (0x20...0x7E).contains($0) } && name.first != " " && name.last != " "
        return plain ? name : "=?base64?" + Base64.encode(Array(name.utf8)) + "?="
    }
}
