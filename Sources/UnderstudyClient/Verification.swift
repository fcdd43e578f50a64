import Foundation

/// How many requests a verification expects.
public enum Times: Sendable, Hashable, CustomStringConvertible {
    case exactly(Int)
    case atLeast(Int)
    case atMost(Int)
    case between(Int, Int)

    public static let never = Times.exactly(0)
    public static let once = Times.exactly(1)

    public func accepts(_ count: Int) -> Bool {
        switch self {
        case .exactly(let n): return count == n
        case .atLeast(let n): return count >= n
        case .atMost(let n): return count <= n
        case .between(let low, let high): return (low...max(low, high)).contains(count)
        }
    }

    public var description: String {
        switch self {
        case .exactly(let n): return "exactly \(n) \(n == 1 ? "request" : "requests")"
        case .atLeast(let n): return "at least \(n) \(n == 1 ? "request" : "requests")"
        case .atMost(let n): return "at most \(n) \(n == 1 ? "request" : "requests")"
        case .between(let low, let high): return "between \(low) and \(high) requests"
        }
    }
}

/// A request as the journal logged it.
public struct LoggedRequest: Sendable, Hashable, CustomStringConvertible {
    public let method: String
    /// The path and query as received.
    public let url: String
    public let absoluteURL: String
    /// Each header's values (a header sent more than once has several).
    public let headers: [String: [String]]
    public let body: Data
    /// When it was received (milliseconds since 1970).
    public let loggedDate: Double
    /// The full JSON, for what the fields above leave out (cookies, query parameters, `clientIp`, …).
    public let json: JSONValue

    init(_ json: JSONValue) {
        self.json = json
        method = json["method"]?.stringValue ?? ""
        url = json["url"]?.stringValue ?? ""
        absoluteURL = json["absoluteUrl"]?.stringValue ?? url
        var headers: [String: [String]] = [:]
        if case .object(let members)? = json["headers"] {
            for (name, value) in members {
                headers[name] = value.arrayValue?.compactMap(\.stringValue) ?? value.stringValue.map { [$0] } ?? []
            }
        }
        self.headers = headers
        body = json["bodyAsBase64"]?.stringValue.flatMap { Data(base64Encoded: $0) } ?? Data((json["body"]?.stringValue ?? "").utf8)
        switch json["loggedDate"] {
        case .int(let value)?: loggedDate = Double(value)
        case .double(let value)?: loggedDate = value
        default: loggedDate = 0
        }
    }

    public var bodyText: String { String(decoding: body, as: UTF8.self) }

    /// The first value of header `name` (any case).
    public func header(_ name: String) -> String? {
        headers.first { $0.key.caseInsensitiveCompare(name) == .orderedSame }?.value.first
    }

    public var description: String { "\(method) \(url)" }
}

/// One request the server journaled, with what it answered.
public struct ServeEvent: Sendable, Hashable {
    public let id: String
    public let request: LoggedRequest
    public let wasMatched: Bool
    /// The status sent, when one was.
    public let status: Int?
    /// The backend that answered (`stubs`, `commerce`, …), `nil` for a 404.
    public let servedBy: String?
    public let json: JSONValue

    init(_ json: JSONValue) {
        self.json = json
        id = json["id"]?.stringValue ?? ""
        request = LoggedRequest(json["request"] ?? .null)
        wasMatched = json["wasMatched"] == .bool(true)
        status = json["response"]?["status"]?.intValue
        servedBy = json["servedBy"]?.stringValue
    }
}

/// A request that came close to a pattern or stub, and why it missed.
public struct NearMiss: Sendable, Hashable {
    public let request: LoggedRequest
    /// 0 is a match, 1 nothing alike.
    public let distance: Double
    /// One line per part that differed, e.g. `URL path: expected /orders, got /order`.
    public let misses: [String]
    /// The stub it was compared with (for a request nothing answered).
    public let stub: JSONValue?

    init(_ json: JSONValue) {
        request = LoggedRequest(json["request"] ?? .null)
        switch json["matchResult"]?["distance"] {
        case .double(let value)?: distance = value
        case .int(let value)?: distance = Double(value)
        default: distance = 1
        }
        misses = json["misses"]?.arrayValue?.compactMap(\.stringValue) ?? []
        stub = json["stubMapping"]
    }
}

/// A request nothing answered, and the stubs closest to it.
public struct UnmatchedRequest: Sendable, Hashable {
    public let request: LoggedRequest
    public let nearMisses: [NearMiss]
}

/// A verification that did not hold. Its description reads like the server's 404 page: what was
/// expected, what came, and the closest requests with why each missed. XCTest and Swift Testing
/// show it as the failure message.
public struct VerificationFailure: Error, Sendable, CustomStringConvertible, LocalizedError {
    public let pattern: RequestPattern
    public let expected: Times
    public let received: Int
    public let scope: String
    /// The journaled requests closest to the pattern, closest first (when none matched).
    public let nearMisses: [NearMiss]

    public var description: String {
        var lines = ["Expected \(expected) matching \(pattern) in scope \"\(scope)\", but received \(received)."]
        if received == 0 {
            if nearMisses.isEmpty {
                lines.append("No request in this scope came close (is the app in scope \"\(scope)\"?).")
            } else {
                lines.append("The closest requests received:")
                for (number, miss) in nearMisses.enumerated() {
                    lines.append("  \(number + 1). \(miss.request.method) \(miss.request.url)")
                    lines += miss.misses.map { "     - " + $0 }
                }
            }
        }
        lines.append("Pattern: \(pattern.json.serialized)")
        return lines.joined(separator: "\n")
    }

    public var errorDescription: String? { description }
}
