import Foundation
import HTTPServer
import JSON
import MockCore
import Templating

/// What a mapping's `response` block answers.
public struct ResponseDefinition: Sendable {
    /// The response as it goes out (the body already read, for `bodyFileName`).
    var response: Response
    var fixedDelay: Duration?
    var delayDistribution: DelayDistribution?
    var proxyBaseURL: String?
    /// Taken off the front of the request's path before it is appended to `proxyBaseURL`.
    var proxyURLPrefixToRemove: String?
    var additionalProxyRequestHeaders: HTTPHeaders = [:]
    var removeProxyRequestHeaders: [String] = []
    /// Break the connection instead of answering.
    var fault: ConnectionFault?
    /// Send the body in pieces spread over a duration.
    var dribble: (chunks: Int, duration: Duration)?
    /// Answer with a Server-Sent Events stream instead of the body.
    var eventStream: EventStream?
    /// Set when the response is a template (`transformers: ["response-template"]` or global
    /// templating): rendered per request over `response`.
    var template: ResponseTemplate?

    /// `response` when it goes out as it is: no delay, fault, proxy, dribble or template.
    /// `StubReply` sends it without looking further, so a field added for what happens per request
    /// must make this nil too.
    var plain: Response? {
        fixedDelay == nil && delayDistribution == nil && proxyBaseURL == nil && fault == nil && dribble == nil && template == nil
            && eventStream == nil ? response : nil
    }

    /// A random delay: `uniform` between `lower` and `upper` ms, or `lognormal` around a `median`.
    enum DelayDistribution: Sendable {
        case uniform(lower: Double, upper: Double)
        case lognormal(median: Double, sigma: Double, maxValue: Double?)

        func sample() -> Duration {
            let milliseconds: Double
            switch self {
            case .uniform(let lower, let upper):
                milliseconds = Double.random(in: lower...max(lower, upper))
            case .lognormal(let median, let sigma, let maxValue):
                // Box–Muller for a standard normal draw.
                let u1 = Double.random(in: Double.ulpOfOne..<1)
                let u2 = Double.random(in: 0..<1)
                let normal = (-2 * log(u1)).squareRoot() * cos(2 * .pi * u2)
                milliseconds = min(median * exp(sigma * normal), maxValue ?? .infinity)
            }
            // The parameters come from clients' mappings: a draw can be out of Int64's range.
            let microseconds = milliseconds * 1000
            if microseconds.isNaN { return .zero }
            return .microseconds(microseconds < 0x1p63 ? Int64(max(0, microseconds)) : .max)
        }
    }

    /// The total delay for one answer: the fixed part plus a draw of the distribution, each the
    /// global settings' when the mapping has none (as WireMock does).
    func delay(globally global: GlobalSettings.Delay? = nil) -> Duration? {
        let random = (delayDistribution ?? global?.distribution)?.sample()
        switch (fixedDelay ?? global?.fixed, random) {
        case (nil, nil): return nil
        case (let fixed?, nil): return fixed
        case (nil, let drawn?): return drawn
        case (let fixed?, let drawn?): return fixed + drawn
        }
    }

    /// WireMock's order when several bodies are given: the first present wins.
    static let bodyKeys = ["body", "jsonBody", "base64Body", "bodyFileName"]

    static func parse(_ json: JSONValue, in directory: StubDirectory, field: String = "response", warnings: inout [StubError]) throws(StubError)
        -> ResponseDefinition
    {
        guard var members = json.objectValue else { throw StubError(field: field, message: "expected an object") }
        let givenBodies = bodyKeys.filter { json[$0] != nil }
        for ignored in givenBodies.dropFirst() {
            warnings.append(StubError(field: "\(field).\(ignored)", message: "ignored: \(givenBodies[0]) is also given and wins, as in WireMock"))
        }
        members.removeAll { givenBodies.dropFirst().contains($0.0) }
        let json = JSONValue.object(members)
        let files = directory.files
        var response = Response(status: 200)
        if let status = json["status"] {
            // WireMock also takes the number as a string ("201").
            guard let code = status.intValue ?? status.stringValue.flatMap({ Int($0) }), (100...599).contains(code) else {
                throw StubError(field: "\(field).status", message: "expected an HTTP status 100…599")
            }
            response.status = code
        }
        response.reason = json["statusMessage"]?.stringValue
        for (name, value) in json["headers"]?.objectValue ?? [] {
            for item in value.arrayValue ?? [value] {
                guard let text = item.stringValue ?? (item.intValue.map(String.init)) else {
                    throw StubError(field: "\(field).headers.\(name)", message: "expected a string or an array of strings")
                }
                guard !text.contains("\r"), !text.contains("\n") else {
                    throw StubError(field: "\(field).headers.\(name)", message: "header values cannot contain line breaks")
                }
                response.headers.add(name, text)
            }
        }
        let transformers = json["transformers"]?.arrayValue?.compactMap(\.stringValue) ?? []
        let templated = directory.globalTemplating || transformers.contains("response-template")
        for name in transformers where name != "response-template" {
            warnings.append(
                StubError(field: "\(field).transformers", message: "transformer '\(name)' is not supported by Understudy and has no effect"))
        }
        switch givenBodies.first {
        case "body":
            guard let text = json["body"]?.stringValue else { throw StubError(field: "\(field).body", message: "expected a string") }
            response.body = ResponseBody(shared: SharedBytes(Array(text.utf8)))
        case "jsonBody":
            response.body = ResponseBody(shared: SharedBytes(Array((json["jsonBody"] ?? .null).serialized.utf8)))
        case "base64Body":
            guard let text = json["base64Body"]?.stringValue, let bytes = Data(base64Encoded: text) else {
                throw StubError(field: "\(field).base64Body", message: "expected base64 text")
            }
            response.body = ResponseBody(shared: SharedBytes(bytes))
        case "bodyFileName":
            guard let name = json["bodyFileName"]?.stringValue else { throw StubError(field: "\(field).bodyFileName", message: "expected a string") }
            // A templated name is read per request.
            if !(templated && name.contains("{{")) {
                if try files.exists(name, field: "\(field).bodyFileName") {
                    response.body = try files.body(name, field: "\(field).bodyFileName")
                } else {
                    // WireMock loads it and fails each request for it; so does this.
                    let missing = "no file '\(name)' in \(files.shownAs)"
                    warnings.append(StubError(field: "\(field).bodyFileName", message: missing + ": requests for it get a 500"))
                    response = .text("The mapping's body file is missing: \(missing)\n", status: 500)
                }
            }
        default:
            break
        }
        var definition = ResponseDefinition(response: response)
        if let delay = json["fixedDelayMilliseconds"] {
            guard let milliseconds = delay.intValue, milliseconds >= 0 else {
                throw StubError(field: "\(field).fixedDelayMilliseconds", message: "expected a whole number of milliseconds ≥ 0")
            }
            definition.fixedDelay = .milliseconds(milliseconds)
        }
        if let distribution = json["delayDistribution"] {
            definition.delayDistribution = try parseDistribution(distribution, field: "\(field).delayDistribution")
        }
        if let base = json["proxyBaseUrl"] {
            guard let url = base.stringValue, url.lowercased().hasPrefix("http://") || url.lowercased().hasPrefix("https://") else {
                throw StubError(field: "\(field).proxyBaseUrl", message: "expected an http:// or https:// URL")
            }
            definition.proxyBaseURL = url.hasSuffix("/") ? String(url.dropLast()) : url
            for (name, value) in json["additionalProxyRequestHeaders"]?.objectValue ?? [] {
                definition.additionalProxyRequestHeaders.add(name, value.stringValue ?? value.serialized)
            }
            if let prefix = json["proxyUrlPrefixToRemove"] {
                guard let text = prefix.stringValue else { throw StubError(field: "\(field).proxyUrlPrefixToRemove", message: "expected a string") }
                definition.proxyURLPrefixToRemove = text
            }
            if let names = json["removeProxyRequestHeaders"] {
                guard let list = names.arrayValue?.compactMap(\.stringValue), list.count == names.arrayValue?.count else {
                    throw StubError(field: "\(field).removeProxyRequestHeaders", message: "expected an array of header names")
                }
                definition.removeProxyRequestHeaders = list
            }
        }
        if templated {
            definition.template = try ResponseTemplate.parse(json, response: &definition.response, in: directory, field: field)
        }
        if let fault = json["fault"] {
            guard let known = fault.stringValue.flatMap(ConnectionFault.init(rawValue:)) else {
                throw StubError(
                    field: "\(field).fault", message: "expected one of " + ConnectionFault.allCases.map(\.rawValue).joined(separator: ", "))
            }
            definition.fault = known
        }
        if let stream = json["eventStream"] {
            definition.eventStream = try EventStream.parse(stream, field: "\(field).eventStream", helpers: templated ? directory.helpers : nil)
            if definition.response.headers["Content-Type"] == nil {
                definition.response.headers.set("Content-Type", "text/event-stream; charset=utf-8")
            }
            if definition.response.headers["Cache-Control"] == nil { definition.response.headers.set("Cache-Control", "no-cache") }
        }
        if let dribble = json["chunkedDribbleDelay"] {
            guard let chunks = dribble["numberOfChunks"]?.intValue, chunks >= 1,
                let total = dribble["totalDuration"]?.intValue, total >= 0
            else {
                throw StubError(
                    field: "\(field).chunkedDribbleDelay", message: "expected {\"numberOfChunks\": n ≥ 1, \"totalDuration\": milliseconds ≥ 0}")
            }
            definition.dribble = (chunks, .milliseconds(total))
        }
        return definition
    }

    static func parseDistribution(_ json: JSONValue, field: String) throws(StubError) -> DelayDistribution {
        switch json["type"]?.stringValue {
        case "uniform":
            guard let lower = json["lower"]?.doubleValue, let upper = json["upper"]?.doubleValue, lower >= 0, upper >= lower, upper.isFinite else {
                throw StubError(field: field, message: "uniform needs lower ≤ upper, in milliseconds")
            }
            return .uniform(lower: lower, upper: upper)
        case "lognormal":
            guard let median = json["median"]?.doubleValue, let sigma = json["sigma"]?.doubleValue, median >= 0, sigma >= 0, median.isFinite,
                sigma.isFinite
            else {
                throw StubError(field: field, message: "lognormal needs median and sigma ≥ 0")
            }
            return .lognormal(median: median, sigma: sigma, maxValue: json["maxValue"]?.doubleValue)
        case "fixed":
            guard let milliseconds = json["milliseconds"]?.doubleValue, milliseconds >= 0, milliseconds.isFinite else {
                throw StubError(field: field, message: "fixed needs milliseconds ≥ 0")
            }
            return .uniform(lower: milliseconds, upper: milliseconds)
        default:
            throw StubError(field: "\(field).type", message: "expected \"uniform\", \"lognormal\" or \"fixed\"")
        }
    }
}

/// The `__files` directory that `bodyFileName` reads from; a name that leads outside it is refused.
/// A named scope's own files (`PUT /__admin/files/NAME` in the scope, held in its memory) come
/// first, for the mappings added in that scope.
public struct BodyFiles: Sendable {
    public let root: URL
    /// `root` in messages, relative to the stubs folder (e.g. `__files`): they reach clients (a
    /// 404 for a body file the request names, a 422 from the admin API), which must not learn
    /// the server's paths.
    public let shownAs: String
    /// A scope's own files by name, read before `root`'s.
    var scopeFiles: [String: SharedBytes] = [:]

    public init(root: URL, shownAs: String = "__files") {
        self.root = root.standardizedFileURL.resolvingSymlinksInPath()
        self.shownAs = shownAs
    }

    /// Files larger than this are sent from the file, held open, instead of read into memory
    /// (large recorded downloads).
    static let largeFile = 1024 * 1024

    /// The file as a body: read once and shared, or sent from the file when it is large.
    func body(_ name: String, field: String) throws(StubError) -> ResponseBody {
        let file = try path(name, field: field)
        if let own = scopeFiles[Self.key(name)] { return ResponseBody(shared: own) }
        if let size = (try? FileManager.default.attributesOfItem(atPath: file.path))?[.size] as? Int, size > Self.largeFile {
            let descriptor = open(file.path, O_RDONLY)
            guard descriptor >= 0 else { throw StubError(field: field, message: "cannot open '\(name)' in \(shownAs)") }
            return ResponseBody(file: FileBody(descriptor: descriptor, count: size))
        }
        return ResponseBody(shared: SharedBytes(try bytes(name, field: field)))
    }

    /// Whether the file is there; throws when the name leads outside the folder.
    func exists(_ name: String, field: String) throws(StubError) -> Bool {
        let file = try path(name, field: field)
        return scopeFiles[Self.key(name)] != nil || FileManager.default.fileExists(atPath: file.path)
    }

    /// A scope file's name as stored: without leading slashes, as `bodyFileName` names resolve.
    static func key(_ name: String) -> String { String(name.drop { $0 == "/" }) }

    /// The file `name` names, refused when it leads outside `root` (`..`, a symbolic link).
    func path(_ name: String, field: String) throws(StubError) -> URL {
        let file = root.appendingPathComponent(name).standardizedFileURL.resolvingSymlinksInPath()
        guard file.path.hasPrefix(root.path + "/") else {
            throw StubError(field: field, message: "'\(name)' leads outside \(shownAs)")
        }
        return file
    }

    func bytes(_ name: String, field: String) throws(StubError) -> Data {
        let file = try path(name, field: field)
        if let own = scopeFiles[Self.key(name)] { return Data(own.buffer) }
        guard let data = FileManager.default.contents(atPath: file.path) else {
            throw StubError(field: field, message: "no file '\(name)' in \(shownAs)")
        }
        return data
    }
}
