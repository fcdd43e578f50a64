import HTTPServer

/// One request and the answer it got: captured by the recording proxy or read from a HAR file.
public struct RecordedExchange: Sendable {
    public var method: String
    /// The path as the client sent it (not decoded), without the query.
    public var path: String
    /// Query parameters, decoded, in order.
    public var query: [QueryItem]
    public var requestHeaders: HTTPHeaders
    public var requestBody: [UInt8]
    public var status: Int
    public var responseHeaders: HTTPHeaders
    /// As the upstream sent it (possibly compressed); empty when it is in `responseFile`.
    public var responseBody: [UInt8]
    /// A large answer's body, streamed to a file as it came instead of held in memory.
    public var responseFile: FileBody?
    /// Where it was recorded from (the target's base URL), kept in the mapping's metadata.
    public var source: String
    /// The real host a device's proxied request was for: the mapping then answers that host only.
    public var host: String?

    public init(
        method: String, path: String, query: [QueryItem], requestHeaders: HTTPHeaders, requestBody: [UInt8],
        status: Int, responseHeaders: HTTPHeaders, responseBody: [UInt8], responseFile: FileBody? = nil, source: String
    ) {
        self.method = method
        self.path = path
        self.query = query
        self.requestHeaders = requestHeaders
        self.requestBody = requestBody
        self.status = status
        self.responseHeaders = responseHeaders
        self.responseBody = responseBody
        self.responseFile = responseFile
        self.source = source
    }

    /// From a request this server received and the answer the upstream gave.
    init(_ request: Request, _ response: Response, source: String) {
        self.init(
            method: request.method.rawValue, path: request.rawPath, query: request.queryItems,
            requestHeaders: request.headers, requestBody: request.body, status: response.status,
            responseHeaders: response.headers, responseBody: response.body.file == nil ? response.body.bytes : [],
            responseFile: response.body.file, source: source)
        if request.isProxied { host = request.requestedHost?.host }
    }
}

/// What is matched on, and what is kept out of recordings.
public struct RecordingOptions: Sendable {
    /// Request headers the mappings match on (besides method, path, query and body).
    public var matchHeaders: [String] = []
    /// Query parameters left out of the match (cache busters, timestamps).
    public var ignoredQueryParameters: [String] = []
    /// Query parameters, form fields and JSON body fields whose values never reach the disk: the
    /// mapping matches them with any value.
    public var redactedParameters: [String] = ["key", "api_key", "apikey", "access_token", "token", "password", "client_secret", "signature"]
    /// Request headers never matched on and response headers whose values are replaced.
    public var redactedHeaders: [String] = ["Authorization", "Proxy-Authorization", "Cookie", "Set-Cookie", "X-Api-Key"]
    /// Identical requests with different answers become a scenario that replays them in order.
    public var repeatsAsScenarios = true
    /// Paths whose requests are GraphQL operations, each recorded as one (`--graphql`); none: any
    /// JSON body with a GraphQL `query` is one.
    public var graphQLPaths: [String] = []
    /// Text bodies up to this size stay inside the mapping; larger ones, and binary ones, go to
    /// a file.
    public var inlineBodyLimit = 16 * 1024
    /// Answers larger than this are written to a temporary file as they arrive, never held in
    /// memory whole, and copied to the recording's body file (without the scrubbing of echoed
    /// secrets, which needs the whole text).
    public var largeBodyThreshold = 4 * 1024 * 1024

    public init() {}

    func isRedacted(parameter name: String) -> Bool {
        redactedParameters.contains { $0.lowercased() == name.lowercased() }
    }

    func isRedacted(header name: String) -> Bool {
        redactedHeaders.contains { HTTPHeaders.namesEqual($0, name) }
    }

    /// What replaces a redacted value where one must be written (a response's Set-Cookie).
    static let placeholder = "REDACTED"
}

extension RecordedExchange {
    /// The exchange as the server would have handled it: the request, and the answer with its
    /// body decoded (gzip, deflate) as a client reads it; a body in a file stays there.
    public var asServed: (Request, Response) {
        let query = query.map { item in MappingRecipe.percentEncoded(item.name) + (item.value.map { "=" + MappingRecipe.percentEncoded($0) } ?? "") }
        let target = path + (query.isEmpty ? "" : "?" + query.joined(separator: "&"))
        let request = Request(method: HTTPMethod(rawValue: method) ?? .get, target: target, headers: requestHeaders, body: requestBody)
        var headers = responseHeaders
        var body = responseBody
        if let encoding = headers["Content-Encoding"], let decoded = ContentDecoding.decode(body, encoding: encoding) {
            body = decoded
            headers.remove("Content-Encoding")
        }
        return (request, Response(status: status, headers: headers, body: responseFile.map(ResponseBody.init(file:)) ?? ResponseBody(body)))
    }
}
