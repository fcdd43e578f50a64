import Foundation

/// What a UI test hands the app it launches, and what the app's debug build reads back: the server
/// and the state scope. The test sets `app.launchEnvironment` from `UnderstudyScope.launchEnvironment`;
/// the app asks `UnderstudyLaunchEnvironment.baseURL()` for its backend (the scope's prefix
/// included), falling back to its usual one when the variables are not there.
public enum UnderstudyLaunchEnvironment {
    public static let urlKey = "UNDERSTUDY_URL"
    public static let scopeKey = "UNDERSTUDY_SCOPE"
    public static let baseURLKey = "UNDERSTUDY_BASE_URL"

    /// The scope's base URL (`http://host:8080/__scope/NAME`), or `nil` when not launched by such a test.
    public static func baseURL(_ environment: [String: String] = ProcessInfo.processInfo.environment) -> URL? {
        environment[baseURLKey].flatMap { $0.isEmpty ? nil : URL(string: $0) }
    }

    /// The scope's name, for an app that sends the `X-Understudy-Scope` header instead.
    public static func scope(_ environment: [String: String] = ProcessInfo.processInfo.environment) -> String? {
        environment[scopeKey].flatMap { $0.isEmpty ? nil : $0 }
    }
}
