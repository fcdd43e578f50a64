/// Why bytes could not be read as XML, or an XPath not evaluated: a message for the client (a 400
/// body or a near-miss note), with the line where libxml2 stopped when it knows one.
public struct XMLReadError: Error, Sendable, Equatable, CustomStringConvertible {
    public let message: String
    public let line: Int?

    public init(_ message: String, line: Int? = nil) {
        self.message = message
        self.line = line
    }

    public var description: String { line.map { "line \($0): \(message)" } ?? message }
}
