import Foundation

/// What went wrong talking to Understudy. `description` is written for a test's failure message.
public enum UnderstudyError: Error, Sendable, Equatable, CustomStringConvertible, LocalizedError {
    /// No answer at all: the server is not running there, or the connection failed.
    case unreachable(url: String, reason: String)
    /// `/__admin/health` did not answer 200 within the time given.
    case notHealthy(url: String, seconds: Double, lastAnswer: String)
    /// The server answered a call with an error status; `message` is what it said.
    case server(call: String, status: Int, message: String)
    /// An answer (or a raw stub given to the client) that is not the JSON expected.
    case invalidJSON(String, reason: String)
    /// A scope name the server would refuse.
    case invalidScopeName(String, reason: String)
    /// A URL (`UNDERSTUDY_URL`, a base URL) that cannot be used.
    case invalidURL(String)
    /// On a team server: the scope lived on a replica that has gone, and its state with it (`410`).
    case scopeLost(scope: String, replica: String)

    public var description: String {
        switch self {
        case .unreachable(let url, let reason):
            return "Understudy is not reachable at \(url): \(reason). Start it (`understudy serve`) or set UNDERSTUDY_URL."
        case .notHealthy(let url, let seconds, let last):
            return "Understudy at \(url) was not healthy within \(seconds) s (last answer: \(last))."
        case .server(let call, let status, let message):
            return "\(call) answered \(status): \(message)"
        case .invalidJSON(let text, let reason):
            return "not the JSON expected (\(reason)): \(text)"
        case .invalidScopeName(let name, let reason):
            return "bad scope name \"\(name)\": \(reason)"
        case .invalidURL(let text):
            return "not an http(s) URL: \(text)"
        case .scopeLost(let scope, let replica):
            return "scope \"\(scope)\" is lost: the team server's replica \(replica) that held it has gone, and its stubs, "
                + "state and journal with it. Start it afresh with `try await scope.reset()` (it then lives where it now routes)."
        }
    }

    public var errorDescription: String? { description }
}
