import JSON
import WireFormat

/// The two eras of the Model Context Protocol this server speaks. 2025-11-25 opens with
/// `initialize` and sends bare requests after; 2026-07-28 has no handshake: every request is a
/// POST of its own that carries its version and the client's capabilities in `_meta` and in
/// headers that must agree with the body (`MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`).
enum MCPVersion {
    static let stateless = "2026-07-28"
    /// The versions with the `initialize` handshake, newest first; a client that asks for one of
    /// them gets it (their messages are the same for what this server offers).
    static let handshake = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"]
    static var all: [String] { [stateless] + handshake }
}

/// JSON-RPC 2.0's error codes and MCP's own.
enum MCPErrorCode: Int {
    case parseError = -32700
    case invalidRequest = -32600
    case methodNotFound = -32601
    case invalidParams = -32602
    case internalError = -32603
    /// A resource URI this server has no resource at (MCP's own code).
    case resourceNotFound = -32002
    /// 2026-07-28: a routing header disagrees with the body, or is missing.
    case headerMismatch = -32020
    case unsupportedProtocolVersion = -32022

    /// The HTTP status of a 2026-07-28 answer carrying this error (the official SDKs' mapping);
    /// in the handshake era an error goes with 200, but for a message that could not be read.
    var statelessStatus: Int {
        switch self {
        case .parseError, .invalidRequest, .invalidParams, .headerMismatch, .unsupportedProtocolVersion: 400
        case .methodNotFound: 404
        case .internalError, .resourceNotFound: 200
        }
    }
}

/// A JSON-RPC failure to answer with: its code, message and data.
struct MCPError: Error {
    let code: MCPErrorCode
    let message: String
    var data: JSONValue? = nil
}

/// One JSON-RPC message as a client sent it: a request (it has an `id`), a notification (no
/// `id`), or a response to something this server asked (which it never does: acknowledged).
struct MCPMessage {
    enum Kind {
        case request(id: JSONValue)
        case notification
        case response
    }

    let kind: Kind
    let method: String
    let params: JSONValue

    /// The message in `body`, or the error to answer (with `id: null`) when it is not one.
    static func parse(_ body: [UInt8]) -> Result<MCPMessage, MCPError> {
        let json: JSONValue
        do {
            json = try JSONValue.parse(body)
        } catch {
            return .failure(MCPError(code: .parseError, message: "The body is not JSON: \(error)"))
        }
        if json.arrayValue != nil {
            return .failure(
                MCPError(code: .invalidRequest, message: "A batch is not accepted: send one JSON-RPC message per POST (MCP 2025-06-18 and later)"))
        }
        guard json.objectValue != nil, json["jsonrpc"] == "2.0" else {
            return .failure(MCPError(code: .invalidRequest, message: "Not a JSON-RPC 2.0 message: an object with \"jsonrpc\": \"2.0\" is expected"))
        }
        guard let method = json["method"]?.stringValue else {
            if json["result"] != nil || json["error"] != nil { return .success(MCPMessage(kind: .response, method: "", params: .object([]))) }
            return .failure(MCPError(code: .invalidRequest, message: "A request needs a method (a string)"))
        }
        let params = json["params"] ?? .object([])
        guard params.objectValue != nil else { return .failure(MCPError(code: .invalidRequest, message: "params must be an object")) }
        guard let id = json["id"] else { return .success(MCPMessage(kind: .notification, method: method, params: params)) }
        switch id {
        case .string, .int: return .success(MCPMessage(kind: .request(id: id), method: method, params: params))
        default: return .failure(MCPError(code: .invalidRequest, message: "id must be a string or an integer"))
        }
    }

    static func result(_ result: JSONValue, id: JSONValue) -> JSONValue {
        .object([("jsonrpc", "2.0"), ("id", id), ("result", result)])
    }

    static func error(_ error: MCPError, id: JSONValue) -> JSONValue {
        var members: [(String, JSONValue)] = [("code", .int(error.code.rawValue)), ("message", .string(error.message))]
        if let data = error.data { members.append(("data", data)) }
        return .object([("jsonrpc", "2.0"), ("id", id), ("error", .object(members))])
    }
}

/// The routing headers of 2026-07-28, checked against the body they travel with.
enum MCPHeaders {
    /// `Mcp-Name`'s value as meant: printable ASCII as sent, else `=?base64?…?=` around UTF-8.
    static func decodedName(_ value: String) -> String? {
        guard value.hasPrefix("=?base64?"), value.hasSuffix("?="), value.utf8.count >= 11 else { return value }
        let inner = value.utf8.dropFirst(9).dropLast(2)
        return Base64.decode(inner).flatMap { String(validating: $0, as: UTF8.self) }
    }
}
