import JSON
import MockCore

/// The keys a mapping may have at each level, as WireMock 2.35 reads them (plus the WireMock 3
/// keys Understudy implements). WireMock refuses an unknown key in the mapping, `request`,
/// `response` and their small blocks, so a typo such as `queryParamters` cannot load and match
/// more widely than meant; this check refuses them too, with a "did you mean". Keys WireMock
/// knows that Understudy does not implement are refused when ignoring them would widen matching,
/// else loaded with a warning.
enum MappingKeyCheck {
    /// What to do with a key WireMock knows and Understudy does not implement.
    enum Unsupported {
        /// Ignoring it would answer requests it was meant to refuse.
        case refuse
        /// Loaded with a warning that it has no effect.
        case ignore
        /// Loaded quietly: it has no effect on serving in WireMock either.
        case quiet
    }

    struct Block {
        let known: Set<String>
        var unsupported: [String: Unsupported] = [:]
    }

    static let mapping = Block(
        known: [
            "id", "uuid", "name", "request", "response", "priority", "persistent", "scenarioName",
            "requiredScenarioState", "newScenarioState", "metadata", "postServeActions", "serveEventListeners",
        ],
        unsupported: ["insertionIndex": .quiet])
    static let request = Block(
        known: [
            "method", "url", "urlPath", "urlPattern", "urlPathPattern", "urlPathTemplate", "pathParameters",
            "scheme", "host", "port", "clientIp", "queryParameters", "formParameters", "headers", "cookies",
            "basicAuthCredentials", "basicAuth", "bodyPatterns", "multipartPatterns", "customMatcher",
        ])
    static let response = Block(
        known: [
            "status", "statusMessage", "headers", "body", "jsonBody", "base64Body", "bodyFileName",
            "fixedDelayMilliseconds", "delayDistribution", "chunkedDribbleDelay", "fault", "proxyBaseUrl",
            "proxyUrlPrefixToRemove", "additionalProxyRequestHeaders", "removeProxyRequestHeaders",
            "transformers", "transformerParameters", "eventStream",
        ],
        unsupported: ["fromConfiguredStub": .quiet])
    static let basicAuth = Block(known: ["username", "password"])
    static let uniformDelay = Block(known: ["type", "lower", "upper"])
    static let lognormalDelay = Block(known: ["type", "median", "sigma", "maxValue"])
    static let fixedDelay = Block(known: ["type", "milliseconds"])
    static let dribble = Block(known: ["numberOfChunks", "totalDuration"])
    static let multipart = Block(known: ["name", "fileName", "matchingType", "headers", "bodyPatterns"])

    /// Every key of a content pattern: operators and their modifiers (date matchers included).
    static let contentPatternKeys: Set<String> = [
        "equalTo", "caseInsensitive", "binaryEqualTo", "contains", "doesNotContain", "matches", "doesNotMatch",
        "absent", "not", "and", "or", "anything", "equalToJson", "ignoreArrayOrder", "ignoreExtraElements",
        "serializeFormat", "matchesJsonPath", "expression", "equalToXml", "enablePlaceholders",
        "placeholderOpeningDelimiterRegex", "placeholderClosingDelimiterRegex", "exemptedComparisons", "ignoreOrderOfSameNode", "namespaceAwareness",
        "namespaceAwareness", "matchesXPath", "xPathNamespaces", "matchesJsonSchema", "schemaVersion",
        "hasExactly", "includes", "equalToNumber", "greaterThanNumber", "greaterThanEqualNumber", "lessThanNumber",
        "lessThanEqualNumber", "before", "after", "equalToDateTime", "actualFormat", "truncateExpected",
        "truncateActual", "expectedOffset", "expectedOffsetUnit", "applyTruncationLast",
    ]

    /// Checks a whole mapping's keys; throws the first refused one, adds warnings for the others.
    static func check(mapping json: JSONValue, warnings: inout [StubError]) throws(StubError) {
        try check(json, mapping, field: "", warnings: &warnings)
        if let request = json["request"] { try check(request: request, field: "request", warnings: &warnings) }
        guard let response = json["response"] else { return }
        try check(response, self.response, field: "response", warnings: &warnings)
        if let distribution = response["delayDistribution"] {
            let type = distribution["type"]?.stringValue
            let block = type == "lognormal" ? lognormalDelay : type == "fixed" ? fixedDelay : uniformDelay
            try check(distribution, block, field: "response.delayDistribution", warnings: &warnings)
        }
        if let chunked = response["chunkedDribbleDelay"] {
            try check(chunked, dribble, field: "response.chunkedDribbleDelay", warnings: &warnings)
        }
    }

    /// A request pattern's keys, also for the admin API's journal queries.
    static func check(request json: JSONValue, field: String, warnings: inout [StubError]) throws(StubError) {
        try check(json, request, field: field, warnings: &warnings)
        for key in ["basicAuthCredentials", "basicAuth"] {
            if let credentials = json[key] { try check(credentials, basicAuth, field: "\(field).\(key)", warnings: &warnings) }
        }
        for (index, item) in (json["multipartPatterns"]?.arrayValue ?? []).enumerated() {
            try check(item, multipart, field: "\(field).multipartPatterns[\(index)]", warnings: &warnings)
            try checkPatterns(in: item, field: "\(field).multipartPatterns[\(index)]", warnings: &warnings)
        }
        try checkPatterns(in: json, field: field, warnings: &warnings)
        if let host = json["host"], host.objectValue != nil { try checkPattern(host, field: "\(field).host", warnings: &warnings) }
    }

    /// The content patterns under a request's (or a multipart pattern's) maps and body patterns.
    private static func checkPatterns(in json: JSONValue, field: String, warnings: inout [StubError]) throws(StubError) {
        for key in ["queryParameters", "formParameters", "headers", "cookies", "pathParameters"] {
            for (name, pattern) in json[key]?.objectValue ?? [] {
                try checkPattern(pattern, field: "\(field).\(key).\(name)", warnings: &warnings)
            }
        }
        for (index, pattern) in (json["bodyPatterns"]?.arrayValue ?? []).enumerated() {
            try checkPattern(pattern, field: "\(field).bodyPatterns[\(index)]", warnings: &warnings)
        }
    }

    /// WireMock ignores an unknown modifier beside a known operator (`"caseInsensitiv": true`),
    /// which can only narrow matching: a warning. A pattern with no known key at all is refused,
    /// as WireMock does.
    private static func checkPattern(_ json: JSONValue, field: String, warnings: inout [StubError]) throws(StubError) {
        guard let members = json.objectValue else { return }
        let unknown = members.map(\.0).filter { !contentPatternKeys.contains($0) }
        if let first = unknown.first, unknown.count == members.count {
            // The pattern is what is refused (WireMock's pointer names it); the message names the key.
            throw StubError(field: field, message: "unknown operator '\(first)'" + suggestion(for: first, among: contentPatternKeys))
        }
        for key in unknown {
            warnings.append(
                StubError(
                    field: "\(field).\(key)",
                    message: "unknown key '\(key)' ignored (as WireMock does)" + suggestion(for: key, among: contentPatternKeys)))
        }
        for (key, value) in members {
            switch key {
            case "not": try checkPattern(value, field: "\(field).not", warnings: &warnings)
            case "and", "or", "hasExactly", "includes":
                for (index, item) in (value.arrayValue ?? []).enumerated() {
                    try checkPattern(item, field: "\(field).\(key)[\(index)]", warnings: &warnings)
                }
            case "matchesJsonPath", "matchesXPath":
                // `{"expression": …, <pattern>}`: the nested pattern's keys beside the expression.
                guard var nested = value.objectValue else { continue }
                nested.removeAll { $0.0 == "expression" }
                if !nested.isEmpty { try checkPattern(.object(nested), field: "\(field).\(key)", warnings: &warnings) }
            default: continue
            }
        }
    }

    private static func check(_ json: JSONValue, _ block: Block, field: String, warnings: inout [StubError]) throws(StubError) {
        guard let members = json.objectValue else { return }
        let prefix = field.isEmpty ? "" : field + "."
        for (key, _) in members where !block.known.contains(key) {
            switch block.unsupported[key] {
            case .refuse?:
                throw StubError(
                    field: prefix + key, message: "'\(key)' is not supported by Understudy (ignoring it would match requests it is meant to refuse)")
            case .ignore?:
                warnings.append(StubError(field: prefix + key, message: "'\(key)' is not supported by Understudy and has no effect"))
            case .quiet?:
                continue
            case nil:
                let candidates = block.known.union(block.unsupported.keys)
                throw StubError(field: prefix + key, message: "unknown field '\(key)'" + suggestion(for: key, among: candidates))
            }
        }
    }

    /// ` (did you mean 'queryParameters'?)` when a known key is a few edits away, or begins
    /// with what was typed (`bodyFile` → `bodyFileName`).
    static func suggestion(for key: String, among candidates: Set<String>) -> String {
        let lowered = key.lowercased()
        let ordered = candidates.sorted()
        if lowered.count >= 4, let longer = ordered.first(where: { $0.lowercased().hasPrefix(lowered) }) {
            return " (did you mean '\(longer)'?)"
        }
        let scored = ordered.map { ($0, EditDistance.edits(lowered, $0.lowercased())) }
        guard let best = scored.min(by: { $0.1 < $1.1 }) else { return "" }
        // Close means at most a third of the key's letters changed (and never more than 3).
        let allowed = min(3, max(1, key.count / 3))
        return best.1 <= allowed ? " (did you mean '\(best.0)'?)" : ""
    }
}
