import JSON
import MockCore

/// The JSON Schemas of what the stub engine's admin routes take (WireMock's shapes), declared
/// with their routes: the MCP server's tools and `GET /__admin/routes` read them. They name the
/// members and their types; the routes check the rest and say where a value is wrong.
enum StubSchemas {
    static let requestPattern = InputSchema.object(
        "A WireMock request pattern: every condition given must hold",
        [
            ("method", InputSchema.string("an HTTP method, or ANY")),
            ("url", InputSchema.string("the path and query, equal")),
            ("urlPath", InputSchema.string("the path, equal")),
            ("urlPattern", InputSchema.string("a regular expression the path and query match")),
            ("urlPathPattern", InputSchema.string("a regular expression the path matches")),
            ("urlPathTemplate", InputSchema.string("a path template such as /orders/{id}")),
            ("host", InputSchema.any("a string pattern the Host matches, such as {\"equalTo\": \"api.example.com\"}")),
            ("scheme", InputSchema.string("http or https", oneOf: ["http", "https"])),
            ("port", InputSchema.integer("the port the request was sent to", minimum: 1, maximum: 65535)),
            ("headers", InputSchema.object("header name → string pattern (equalTo, contains, matches, absent…)")),
            ("queryParameters", InputSchema.object("query parameter name → string pattern")),
            ("pathParameters", InputSchema.object("with urlPathTemplate: parameter name → string pattern")),
            ("cookies", InputSchema.object("cookie name → string pattern")),
            ("formParameters", InputSchema.object("form field name → string pattern")),
            ("basicAuthCredentials", InputSchema.object("{\"username\", \"password\"}")),
            (
                "bodyPatterns",
                InputSchema.array(
                    of: InputSchema.object("equalToJson, matchesJsonPath, contains, equalToXml…"), "body patterns, all of which must hold")
            ),
            ("customMatcher", InputSchema.object("an extension's matcher: {\"name\", \"parameters\"}")),
        ])

    static let mapping = InputSchema.object(
        "A WireMock stub mapping: a request pattern and the response it gets",
        [
            ("id", InputSchema.string("a UUID; made when absent")),
            ("name", InputSchema.string("a name people read")),
            ("request", requestPattern),
            (
                "response",
                InputSchema.object(
                    "what is answered: status, headers, body | jsonBody | base64Body | bodyFileName, fixedDelayMilliseconds, fault, proxyBaseUrl, transformers",
                    [
                        ("status", InputSchema.integer("the HTTP status", minimum: 100, maximum: 599)),
                        ("headers", InputSchema.object("header name → value (a string, or an array of strings)")),
                        ("body", InputSchema.string("the body as text")),
                        ("jsonBody", InputSchema.any("the body as JSON")),
                        ("fixedDelayMilliseconds", InputSchema.integer("a delay before the answer", minimum: 0)),
                        (
                            "fault",
                            InputSchema.string(
                                "a broken connection instead of an answer",
                                oneOf: ["CONNECTION_RESET_BY_PEER", "EMPTY_RESPONSE", "MALFORMED_RESPONSE_CHUNK", "RANDOM_DATA_THEN_CLOSE"])
                        ),
                    ])
            ),
            ("priority", InputSchema.integer("1 is tried first; 5 by default", minimum: 1)),
            ("scenarioName", InputSchema.string("the scenario this mapping takes part in")),
            ("requiredScenarioState", InputSchema.string("the scenario state it needs")),
            ("newScenarioState", InputSchema.string("the state it moves the scenario to")),
            ("persistent", InputSchema.boolean("written to mappings/ by POST /__admin/mappings/save")),
            ("metadata", InputSchema.object("anything; found again by find-by-metadata")),
            ("serveEventListeners", InputSchema.array(of: InputSchema.object("{\"name\": \"webhook\", \"parameters\"}"), "webhooks")),
        ],
        required: ["request"])

    /// What `POST /__admin/channels/send` takes.
    static let channelMessage = InputSchema.object(
        "A message sent to open WebSocket channels",
        [
            ("type", InputSchema.string("the channel kind", oneOf: ["websocket"])),
            ("initiatingRequest", requestPattern),
            (
                "message",
                InputSchema.object(
                    "{\"body\": text}, or {\"body\": {\"data\": text | JSON}}, {\"body\": {\"base64Data\": …}}, {\"body\": {\"filePath\": …}}",
                    [("body", InputSchema.any("the message's body: text (a template) or an object"))], required: ["body"], closed: true)
            ),
        ],
        required: ["type", "message"])

    /// What the message journal's find, count and remove take.
    static let messagePattern = InputSchema.object(
        "A message pattern: every condition given must hold",
        [
            ("body", InputSchema.object("a content pattern the message matches (equalTo, contains, matches, equalToJson…)")),
            ("channel", requestPattern),
        ])

    /// A metadata pattern (find-by-metadata, remove-by-metadata): a content pattern applied to
    /// each mapping's `metadata`.
    static let metadataPattern = InputSchema.object(
        "A content pattern each mapping's metadata is matched with: equalToJson, matchesJsonPath, contains…")

    /// `POST /__admin/mappings/import`.
    static let mappingImport = InputSchema.object(
        "Mappings added, or replacing those with the same id",
        [
            ("mappings", InputSchema.array(of: mapping, "the mappings")),
            ("importOptions", InputSchema.object("{\"duplicatePolicy\": \"OVERWRITE\" | \"IGNORE\", \"deleteAllNotInImport\": bool}")),
        ], required: ["mappings"])

    /// What `POST /__admin/near-misses/request` takes: a request as the journal logs it.
    static let loggedRequest = InputSchema.object(
        "A request as the journal logs it",
        [
            ("url", InputSchema.string("the path and query")), ("method", InputSchema.string("the HTTP method")),
            ("headers", InputSchema.object("header name → value")), ("body", InputSchema.string("the body as text")),
        ], required: ["url"])

    /// WireMock 4's message stub mapping.
    static let messageMapping = InputSchema.object(
        "A message stub: what triggers it and what it sends",
        [
            ("id", InputSchema.string("a UUID; made when absent")), ("name", InputSchema.string("a name people read")),
            ("priority", InputSchema.integer("1 is tried first", minimum: 1)),
            (
                "trigger",
                InputSchema.object(
                    "a message ({\"message\": {\"body\": pattern}, \"channel\": …}), a channel opening, an HTTP stub or request")
            ),
            ("actions", InputSchema.array(of: InputSchema.object("{\"type\": \"send\", \"message\": …, \"channelTarget\"…}"), "what it does")),
            ("metadata", InputSchema.object("anything; found again by find-by-metadata")),
        ])

    /// `POST /__admin/messages/wait` and `wait-for-count`.
    static let messageWait = InputSchema.object(
        "What to wait for",
        [
            ("pattern", messagePattern), ("timeoutMillis", InputSchema.integer("how long to wait, at most 10 minutes", minimum: 0)),
            ("count", InputSchema.integer("with wait-for-count: how many", minimum: 1)),
        ])

    /// `POST`/`PATCH /__admin/settings`.
    static let settings = InputSchema.object(
        "WireMock's global settings (or them under \"settings\")",
        [
            ("fixedDelay", InputSchema.integer("milliseconds before every stub's answer", minimum: 0)),
            ("delayDistribution", InputSchema.object("{\"type\": \"lognormal\" | \"uniform\" | \"fixed\", …}")),
            ("extended", InputSchema.object("anything kept and answered back")), ("proxyPassThrough", InputSchema.boolean("kept, not used")),
            ("settings", InputSchema.object("the same members, wrapped")),
        ])

    static let scenarioState = InputSchema.object(
        "The state the scenario moves to", [("state", InputSchema.string("a state name; Started is the first"))], required: ["state"])

    static let paging: [(name: String, schema: JSONValue)] = [
        ("offset", InputSchema.integer("mappings skipped", minimum: 0)), ("limit", InputSchema.integer("mappings listed at most", minimum: 0)),
    ]
}
