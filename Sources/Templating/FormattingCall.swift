import Foundation

/// What WireMock's AbstractFormattingHelper reads of a `formatJson` or `formatXml` call: the text
/// (the block, or a string parameter, trimmed) and `format` (`pretty`, the default, or `compact`),
/// with its error texts.
public struct FormattingCall {
    public let text: String
    public let pretty: Bool

    /// `helper`: its name (`formatJson`); `what`: what it formats (`JSON`).
    public init(_ call: HelperCall, helper: String, what: String) throws(HelperError) {
        let input: String
        if let block = call.block {
            input = block
        } else if case .string(let given) = call.param(0) {
            input = given
        } else {
            input = ""
        }
        text = input.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !text.isEmpty else {
            throw HelperError("\(helper) should take a block of \(what) to format or a single parameter of type String")
        }
        switch call.hash["format"] {
        case nil, .null?, .string("pretty")?: pretty = true
        case .string("compact")?: pretty = false
        case .string(let other)?: throw HelperError("\(helper): format [\(other)] should be one of [pretty, compact]")
        case let other?:
            throw HelperError(
                "\(helper): format [\(other.text)] of type [\(other.javaTypeName) should be a Format or a String and one of [pretty, compact]]")
        }
    }
}
