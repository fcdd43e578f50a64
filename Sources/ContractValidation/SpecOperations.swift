import JSON

/// A document's operations, read from its tree with every `$ref` followed: what stubs are made
/// from and what traffic is checked against. Each schema is named by its pointer in the tree. A
/// class: checking a request takes its operation out of the contract's list, and a reference is
/// one retain where a struct of arrays and strings was a dozen.
public final class SpecOperation: Sendable {
    public struct Parameter: Sendable {
        public enum Location: String, Sendable {
            case query, header, path, cookie
        }

        public let name: String
        public let location: Location
        public let required: Bool
        /// Where its schema is (nil: none, or given by `content`, which is not checked).
        public let schema: String?
        /// Form style with `explode: false`: an array's items in one value, comma-separated.
        public let commaSeparated: Bool
        /// The schema's type and, for an array, its items' (what the text of a value is read as),
        /// found once when the document loads.
        public let type: String?
        public let itemType: String?
    }

    public struct MediaType: Sendable {
        /// As the document writes it (`application/json`, `image/*`).
        public let name: String
        public let schema: String?
        /// Named examples in document order (`example` alone is named "example").
        public let examples: [(name: String, value: JSONValue)]
        /// `name` as a request's is compared with it (`OpenAPIContract.mediaType`), made once.
        let type: String

        init(name: String, schema: String?, examples: [(name: String, value: JSONValue)]) {
            self.name = name
            self.schema = schema
            self.examples = examples
            type = OpenAPIContract.mediaType(name)
        }
    }

    public struct Answer: Sendable {
        /// `200`, `2XX`, `default`.
        public let code: String
        public let pointer: String
        public let content: [MediaType]
        /// Headers the answer must carry, by name.
        public let requiredHeaders: [String]

        public init(code: String, pointer: String, content: [MediaType], requiredHeaders: [String]) {
            self.code = code
            self.pointer = pointer
            self.content = content
            self.requiredHeaders = requiredHeaders
        }
    }

    /// `GET`, `POST`, …
    public let method: String
    /// As the document writes it: `/pets/{petId}`.
    public let path: String
    /// `#/paths/~1pets/get`.
    public let pointer: String
    public let operationID: String?
    public let parameters: [Parameter]
    public let bodyRequired: Bool
    public let body: [MediaType]
    public let answers: [Answer]

    public var name: String { "\(method) \(path)" }

    init(
        method: String, path: String, pointer: String, operationID: String?, parameters: [Parameter], bodyRequired: Bool,
        body: [MediaType], answers: [Answer]
    ) {
        self.method = method
        self.path = path
        self.pointer = pointer
        self.operationID = operationID
        self.parameters = parameters
        self.bodyRequired = bodyRequired
        self.body = body
        self.answers = answers
    }

    /// The answer documented for `status`: its own code, else its class (`2XX`), else `default`.
    public func answer(for status: Int) -> Answer? {
        answers.first { $0.code == String(status) } ?? answers.first { $0.code.uppercased() == "\(status / 100)XX" }
            ?? answers.first { $0.code == "default" }
    }

    public static let methods = ["get", "put", "post", "delete", "options", "head", "patch", "trace"]

    /// Every operation of `document`, in its order.
    public static func all(in document: SpecDocument) throws(SpecError) -> [SpecOperation] {
        let json = document.json
        var operations: [SpecOperation] = []
        for (path, item) in json["paths"]?.objectValue ?? [] {
            let itemPointer = "#/paths/" + JSONPointer.escaped(path)
            guard let (item, _) = SpecPointer.resolved(item, at: itemPointer, in: json) else {
                throw document.error(at: itemPointer, "its $ref leads nowhere")
            }
            let shared = item["parameters"]
            for method in methods {
                guard let operation = item[method] else { continue }
                let pointer = itemPointer + "/" + method
                // An operation's parameter replaces the path item's of the same name and place.
                var parameters: [Parameter] = []
                for (list, at) in [(operation["parameters"], pointer + "/parameters"), (shared, itemPointer + "/parameters")] {
                    for (index, entry) in (list?.arrayValue ?? []).enumerated() {
                        let parameter = try Self.parameter(entry, at: "\(at)/\(index)", in: document)
                        if !parameters.contains(where: { $0.name == parameter.name && $0.location == parameter.location }) {
                            parameters.append(parameter)
                        }
                    }
                }
                var bodyRequired = false
                var body: [MediaType] = []
                if let requestBody = operation["requestBody"] {
                    guard let (resolved, at) = SpecPointer.resolved(requestBody, at: pointer + "/requestBody", in: json) else {
                        throw document.error(at: pointer + "/requestBody", "its $ref leads nowhere")
                    }
                    bodyRequired = resolved["required"]?.boolValue ?? false
                    body = try mediaTypes(resolved["content"], at: at + "/content", in: document)
                }
                var answers: [Answer] = []
                for (code, response) in operation["responses"]?.objectValue ?? [] {
                    let at = pointer + "/responses/" + JSONPointer.escaped(code)
                    guard let (resolved, resolvedAt) = SpecPointer.resolved(response, at: at, in: json) else {
                        throw document.error(at: at, "its $ref leads nowhere")
                    }
                    let headers = (resolved["headers"]?.objectValue ?? []).compactMap { name, header -> String? in
                        let header = SpecPointer.resolved(header, at: "", in: json)?.0
                        return header?["required"]?.boolValue == true ? name : nil
                    }
                    answers.append(
                        Answer(
                            code: code, pointer: resolvedAt, content: try mediaTypes(resolved["content"], at: resolvedAt + "/content", in: document),
                            requiredHeaders: headers))
                }
                operations.append(
                    SpecOperation(
                        method: method.uppercased(), path: path, pointer: pointer, operationID: operation["operationId"]?.stringValue,
                        parameters: parameters, bodyRequired: bodyRequired, body: body, answers: answers))
            }
        }
        return operations
    }

    private static func parameter(_ entry: JSONValue, at pointer: String, in document: SpecDocument) throws(SpecError) -> Parameter {
        guard let (parameter, at) = SpecPointer.resolved(entry, at: pointer, in: document.json) else {
            throw document.error(at: pointer, "its $ref leads nowhere")
        }
        guard let name = parameter["name"]?.stringValue, let location = parameter["in"]?.stringValue.flatMap(Parameter.Location.init) else {
            throw document.error(at: at, "a parameter needs a name and `in` (query, header, path or cookie)")
        }
        let style = parameter["style"]?.stringValue ?? "form"
        let explode = parameter["explode"]?.boolValue ?? (style == "form")
        let schema = parameter["schema"].map { _ in at + "/schema" }
        func typeName(_ node: JSONValue?) -> String? {
            let resolved = node.flatMap { SpecPointer.resolved($0, at: "", in: document.json)?.0 }
            return resolved?["type"]?.stringValue ?? resolved?["type"]?.arrayValue?.first?.stringValue
        }
        let type = typeName(parameter["schema"])
        let itemType =
            type == "array" ? typeName(parameter["schema"].flatMap { SpecPointer.resolved($0, at: "", in: document.json)?.0["items"] }) : nil
        return Parameter(
            name: name, location: location, required: location == .path || parameter["required"]?.boolValue == true, schema: schema,
            commaSeparated: location == .query && style == "form" && !explode, type: type, itemType: itemType)
    }

    private static func mediaTypes(_ content: JSONValue?, at pointer: String, in document: SpecDocument) throws(SpecError) -> [MediaType] {
        (content?.objectValue ?? []).map { name, media in
            let at = pointer + "/" + JSONPointer.escaped(name)
            var examples: [(String, JSONValue)] = []
            if let example = media["example"] { examples.append(("example", example)) }
            for (exampleName, example) in media["examples"]?.objectValue ?? [] {
                let resolved = SpecPointer.resolved(example, at: "", in: document.json)?.0
                if let value = resolved?["value"] { examples.append((exampleName, value)) }
            }
            return MediaType(name: name, schema: media["schema"].map { _ in at + "/schema" }, examples: examples)
        }
    }
}
