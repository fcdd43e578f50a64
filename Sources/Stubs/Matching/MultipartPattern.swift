import HTTPServer
import JSON
import MockCore

/// One of a request pattern's `multipartPatterns`: what the parts of a `multipart/…` body must
/// hold. `ANY` (the default): some part satisfies every condition; `ALL`: every part does.
struct MultipartPattern: Sendable {
    enum MatchingType: String, Sendable {
        case all = "ALL", any = "ANY"
    }

    var matchingType = MatchingType.any
    /// The part's `Content-Disposition` name. WireMock 2.35 reads it but does not match on it;
    /// here it must be equal, so a pattern for one field does not accept any other.
    var name: String?
    /// The part's `Content-Disposition` filename (WireMock 3).
    var fileName: String?
    var headers: [(String, RequestPattern.ValuesPattern)] = []
    var bodyPatterns: [ContentPattern] = []

    func matches(_ parts: [MultipartPart]) -> Bool {
        guard !parts.isEmpty else { return false }
        switch matchingType {
        case .any: return parts.contains(where: accepts)
        case .all: return parts.allSatisfy(accepts)
        }
    }

    func accepts(_ part: MultipartPart) -> Bool {
        if let name, part.name != name { return false }
        if let fileName, part.fileName != fileName { return false }
        return headers.allSatisfy { $0.1.matches(part.headers.values(for: $0.0)) }
            && bodyPatterns.allSatisfy { $0.matches(body: part.body) }
    }

    /// The near-miss line for a request whose parts miss this pattern.
    func miss(_ parts: [MultipartPart], index: Int) -> String {
        let label = "multipartPatterns[\(index)]" + (name.map { " (part '\($0)')" } ?? "")
        guard !parts.isEmpty else { return "\(label): the body is not multipart (or has no parts)" }
        let names = parts.map { "'\($0.name ?? "")'" }.joined(separator: ", ")
        let wanted =
            [name.map { "name '\($0)'" }, fileName.map { "filename '\($0)'" }]
            + headers.map { "header \($0.0) \($0.1.expectation)" }
            + bodyPatterns.map { "body \($0.expectation)" }
        let what = wanted.compactMap { $0 }.joined(separator: ", ")
        return "\(label): \(matchingType == .all ? "not every part" : "no part") has \(what) (parts: \(names))"
    }

    static func parse(_ json: JSONValue, field: String) throws(StubError) -> MultipartPattern {
        guard json.objectValue != nil else { throw StubError(field: field, message: "expected an object") }
        var pattern = MultipartPattern()
        if let type = json["matchingType"] {
            guard let known = type.stringValue.flatMap(MatchingType.init(rawValue:)) else {
                throw StubError(field: "\(field).matchingType", message: "expected \"ALL\" or \"ANY\"")
            }
            pattern.matchingType = known
        }
        for key in ["name", "fileName"] where json[key] != nil {
            guard json[key]?.stringValue != nil else { throw StubError(field: "\(field).\(key)", message: "expected a string") }
        }
        pattern.name = json["name"]?.stringValue
        pattern.fileName = json["fileName"]?.stringValue
        pattern.headers = try RequestPattern.valuesPatterns(json["headers"], field: "\(field).headers")
        if let body = json["bodyPatterns"] {
            guard let items = body.arrayValue else { throw StubError(field: "\(field).bodyPatterns", message: "expected an array") }
            for (index, item) in items.enumerated() {
                pattern.bodyPatterns.append(try ContentPattern.parse(item, field: "\(field).bodyPatterns[\(index)]"))
            }
        }
        return pattern
    }
}
