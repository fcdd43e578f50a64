import Foundation
import HTTPServer
import JSON
import MockCore

/// `POST /__admin/near-misses/request` (the stubs closest to a request given as WireMock logs
/// one) and `POST /__admin/near-misses/request-pattern` (the journaled requests closest to a
/// pattern), in WireMock's shape: `{"nearMisses": [{"request", "stubMapping" | "requestPattern",
/// "matchResult": {"distance"}}]}`, closest first; with `?scope=…`, Understudy's `misses` lines beside.
extension StubAdminAPI {
    func nearMissesForRequest(_ request: Request, _ scope: StateScope) -> Response {
        let logged: JSONValue
        let probe: Request
        do throws(StubError) {
            logged = try parseBody(request)
            probe = try Self.request(from: logged)
        } catch {
            return invalid(error)
        }
        let misses = NearMiss.closest(scenarioEngines.flatMap { $0.nearMisses(for: probe, in: scope) })
        return Self.nearMisses(
            misses.map { miss in
                (logged, ("stubMapping", miss.stub), miss.distance, miss.misses)
            }, understudyFields: request.asksForUnderstudyFields)
    }

    func nearMissesForPattern(_ request: Request, _ context: RequestContext) -> Response {
        let patternJSON: JSONValue
        let pattern: RequestPattern
        do throws(StubError) {
            patternJSON = try parseBody(request)
            pattern = try RequestPattern.parse(patternJSON)
        } catch {
            return invalid(error)
        }
        let closest = journal.entriesOf(context.journalScope(for: request))
            .map { ($0, pattern.evaluate($0.request)) }
            .sorted { $0.1.distance < $1.1.distance }
            .prefix(NearMiss.reportedCount)
        return Self.nearMisses(
            closest.map { entry, result in
                (entry.serveEventJSON(in: journal)["request"] ?? .null, ("requestPattern", patternJSON), result.distance, result.misses)
            }, understudyFields: request.asksForUnderstudyFields)
    }

    private static func nearMisses(
        _ items: [(request: JSONValue, against: (String, JSONValue), distance: Double, misses: [String])],
        understudyFields: Bool
    ) -> Response {
        .json(
            JSONValue.object([
                (
                    "nearMisses",
                    .array(
                        items.map { item in
                            .object(
                                [("request", item.request), item.against, ("matchResult", .object([("distance", .double(item.distance))]))]
                                    + (understudyFields ? [("misses", .array(item.misses.map(JSONValue.string)))] : []))
                        })
                )
            ]).serialized)
    }

    /// A request as WireMock logs one: `url` (required), `method` (default `GET`), `headers`
    /// (a value or a list of values per name), `cookies`, `body` or `bodyAsBase64`.
    static func request(from logged: JSONValue) throws(StubError) -> Request {
        guard logged.objectValue != nil else {
            throw StubError(field: "", message: "expected a request such as {\"url\": \"/path\", \"method\": \"GET\"}")
        }
        guard let url = logged["url"]?.stringValue, url.hasPrefix("/") else {
            throw StubError(field: "url", message: "expected the request's path and query, starting with /")
        }
        var method = HTTPMethod.get
        if let name = logged["method"] {
            guard let text = name.stringValue, let known = HTTPMethod(rawValue: text.uppercased()) else {
                throw StubError(field: "method", message: "expected an HTTP method such as GET")
            }
            method = known
        }
        var headers = HTTPHeaders()
        for (name, value) in logged["headers"]?.objectValue ?? [] {
            for item in value.arrayValue ?? [value] {
                guard let text = item.stringValue else {
                    throw StubError(field: "headers.\(name)", message: "expected a string or a list of strings")
                }
                headers.add(name, text)
            }
        }
        if headers["Cookie"] == nil, let cookies = logged["cookies"]?.objectValue, !cookies.isEmpty {
            headers.add("Cookie", cookies.map { "\($0.0)=\($0.1.stringValue ?? $0.1.serialized)" }.joined(separator: "; "))
        }
        var body: [UInt8] = []
        if let encoded = logged["bodyAsBase64"]?.stringValue, !encoded.isEmpty {
            guard let bytes = Data(base64Encoded: encoded) else { throw StubError(field: "bodyAsBase64", message: "expected base64") }
            body = Array(bytes)
        } else if let text = logged["body"] {
            guard let string = text.stringValue else { throw StubError(field: "body", message: "expected a string") }
            body = Array(string.utf8)
        }
        return Request(method: method, target: url, headers: headers, body: body)
    }
}
