// Module Stubs: the generic stub engine — WireMock-format mappings (files under stubs/mappings and
// the admin API), request matching, responses, scenarios.

/// A mapping that cannot be used, with where and why: shown to the user as `path:line: message`
/// (file loads) or in a 422 body (admin API).
public struct StubError: Error, CustomStringConvertible, Equatable {
    /// The file, or nil for mappings sent through the admin API.
    public var file: String?
    public var line: Int?
    /// Where in the mapping, e.g. `request.queryParameters.lang`.
    public var field: String
    public var message: String

    public init(file: String? = nil, line: Int? = nil, field: String, message: String) {
        self.file = file
        self.line = line
        self.field = field
        self.message = message
    }

    public var description: String {
        let place = [file, line.map(String.init)].compactMap { $0 }.joined(separator: ":")
        let location = field.isEmpty ? "" : "\(field): "
        return (place.isEmpty ? "" : place + ": ") + location + message
    }
}
