import Foundation
import HTTPServer
import JSON
import MockCore
import Stubs
import Testing
import UnderstudyTesting

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Requests that made one event loop work for seconds (issue 47's audit), each now bounded: what
/// grew quadratically is linear, and what stays costly draws on the request's work budget, past
/// which the stub does not match (its near miss says where the budget ran out) or its template
/// answers 500 naming the helper. One loop, so a request that held it would hold every other.
@Suite(.timeLimit(.minutes(1))) struct WorkBudgetTests {
    /// Runaway backtracking on a value that almost fits: each match needs its 25 ms per-match limit.
    static let runawayPattern = #"^(\\w+\\s?)*$"#
    static let runawayValue = String(repeating: "word ", count: 8) + String(repeating: "a", count: 24) + "!"

    static func serve(_ mappings: [String: String], budget: Duration? = nil) throws -> (TestServer, URL) {
        let root = try makeTemporaryDirectory(mappings)
        let server = try TestServer.start(backends: [StubEngine(stubsDirectory: root)], requestBudget: budget) { $0.threads = 1 }
        return (server, root)
    }

    static func text(_ data: Data) -> String { String(decoding: data, as: UTF8.self) }

    /// A raised budget, as for jsonMerge below: this is about the work being linear.
    @Test func uniqueItemsOverALargeArrayIsLinear() async throws {
        let (server, root) = try Self.serve(
            [
                "mappings/unique.json":
                    #"{"request": {"method": "POST", "url": "/unique", "bodyPatterns": [{"matchesJsonSchema": {"type": "array", "uniqueItems": true}}]}, "response": {"body": "unique"}}"#
            ], budget: .seconds(30))
        defer {
            server.stop()
            try? FileManager.default.removeItem(at: root)
        }
        // 100,000 distinct numbers: pairwise, 5 billion comparisons.
        let numbers = (0..<100_000).map { String($0) }
        let unique = try await server.send("POST", "/unique", body: Data(("[" + numbers.joined(separator: ",") + "]").utf8))
        #expect(unique.response.statusCode == 200)
        // 1 and 1.0 are the same number, so this array is not unique.
        let repeated = try await server.send("POST", "/unique", body: Data(("[" + numbers.joined(separator: ",") + ",99999.0]").utf8))
        #expect(repeated.response.statusCode == 404)
        // Objects are equal whatever their members' order.
        let objects = try await server.send("POST", "/unique", body: Data(#"[{"a": 1, "b": [2, {"c": 3}]}, {"b": [2, {"c": 3.0}], "a": 1}]"#.utf8))
        #expect(objects.response.statusCode == 404)
        let distinct = try await server.send("POST", "/unique", body: Data(#"[{"a": 1, "b": 2}, {"a": 1, "b": "2"}, [1], ["1"]]"#.utf8))
        #expect(distinct.response.statusCode == 200)
    }

    @Test func schemaRegexesShareTheRequestsBudget() async throws {
        let (server, root) = try Self.serve([
            "mappings/items.json":
                #"{"request": {"method": "POST", "url": "/items", "bodyPatterns": [{"matchesJsonSchema": {"type": "array", "items": {"pattern": "\#(Self.runawayPattern)"}}}]}, "response": {"body": "items"}}"#,
            "mappings/names.json":
                #"{"request": {"method": "POST", "url": "/names", "bodyPatterns": [{"matchesJsonSchema": {"patternProperties": {"\#(Self.runawayPattern)": {"type": "integer"}}}}]}, "response": {"body": "names"}}"#,
        ])
        defer {
            server.stop()
            try? FileManager.default.removeItem(at: root)
        }
        let values = JSONValue.array(Array(repeating: .string(Self.runawayValue), count: 400)).serialized
        let items = try await server.send("POST", "/items", headers: ["Accept": "text/plain"], body: Data(values.utf8))
        #expect(items.response.statusCode == 404)
        #expect(Self.text(items.body).contains("budget exceeded in matchesJsonSchema"))
        let names = JSONValue.object((0..<400).map { (Self.runawayValue.dropLast() + String($0) + "!", .int($0)) }).serialized
        let named = try await server.send("POST", "/names", body: Data(names.utf8))
        #expect(named.response.statusCode == 404)
        #expect(Self.text(named.body).contains("budget exceeded in matchesJsonSchema"))
        // The budget is the request's: the next one starts afresh and matches.
        let fine = try await server.send("POST", "/items", body: Data(#"["a b", "c"]"#.utf8))
        #expect(Self.text(fine.body) == "items")
    }

    @Test func aJSONPathRegexFilterSharesTheRequestsBudget() async throws {
        let (server, root) = try Self.serve([
            "mappings/filter.json":
                #"{"request": {"method": "POST", "url": "/filter", "bodyPatterns": [{"matchesJsonPath": "$[?(@.v =~ /\#(Self.runawayPattern)/)]"}]}, "response": {"body": "filter"}}"#
        ])
        defer {
            server.stop()
            try? FileManager.default.removeItem(at: root)
        }
        let body = JSONValue.array(Array(repeating: .object([("v", .string(Self.runawayValue))]), count: 400)).serialized
        let answer = try await server.send("POST", "/filter", body: Data(body.utf8))
        #expect(answer.response.statusCode == 404)
        #expect(Self.text(answer.body).contains("budget exceeded in a JSONPath =~ filter"))
        #expect(Self.text(try await server.send("POST", "/filter", body: Data(#"[{"v": "a b"}]"#.utf8)).body) == "filter")
    }

    @Test func aTemplateThatRunsOutAnswers500NamingTheHelper() async throws {
        let (server, root) = try Self.serve([
            "mappings/template.json":
                #"{"request": {"method": "POST", "url": "/template"}, "response": {"body": "{{#each (parseJson request.body) as |v|}}{{#if (matches v '\#(Self.runawayPattern)')}}y{{/if}}{{/each}}", "transformers": ["response-template"]}}"#
        ])
        defer {
            server.stop()
            try? FileManager.default.removeItem(at: root)
        }
        let body = JSONValue.array(Array(repeating: .string(Self.runawayValue), count: 400)).serialized
        let answer = try await server.send("POST", "/template", body: Data(body.utf8))
        #expect(answer.response.statusCode == 500)
        #expect(Self.text(answer.body).contains("work budget (100 ms) ran out in matches"))
        let fine = try await server.send("POST", "/template", body: Data(#"["a b", "c"]"#.utf8))
        #expect(fine.response.statusCode == 200 && Self.text(fine.body) == "yy")
    }

    /// Each mapping read the body anew: a 4 MiB body against 300 mappings was 300 decodings of it
    /// (and 300 more for the 404 page's near misses), counted nowhere.
    @Test func aLargeBodyTriedAgainstManyMappingsDrawsOnTheBudget() async throws {
        var mappings: [String: String] = [:]
        for index in 0..<300 {
            mappings["mappings/m\(index).json"] =
                #"{"request": {"method": "POST", "url": "/upload", "bodyPatterns": [{"contains": "needle-\#(index)"}]}, "response": {"body": "found"}}"#
        }
        let (server, root) = try Self.serve(mappings)
        defer {
            server.stop()
            try? FileManager.default.removeItem(at: root)
        }
        let body = Data(repeating: UInt8(ascii: "x"), count: 4 << 20)
        let answer = try await server.send("POST", "/upload", body: body)
        #expect(answer.response.statusCode == 404)
        #expect(Self.text(answer.body).contains("budget exceeded in bodyPatterns"))
        #expect(try await server.send("POST", "/upload", body: Data("needle-299".utf8)).response.statusCode == 200)
    }

    /// The budget is raised here: this is about the work being linear (quadratic, it took
    /// seconds even in a release build), not about where a debug build's 100 ms run out.
    @Test func jsonMergeOfLargeObjectsIsLinear() async throws {
        let (server, root) = try Self.serve(
            [
                "mappings/merge.json":
                    #"{"request": {"method": "POST", "url": "/merge"}, "response": {"body": "{{{jsonMerge request.body request.body}}}", "transformers": ["response-template"]}}"#
            ], budget: .seconds(30))
        defer {
            server.stop()
            try? FileManager.default.removeItem(at: root)
        }
        let object = JSONValue.object((0..<60_000).map { ("key\($0)", .int($0)) })
        let answer = try await server.send("POST", "/merge", body: Data(object.serialized.utf8))
        #expect(answer.response.statusCode == 200)
        #expect(try JSONValue.parse(Array(answer.body)) == object)
    }

    @Test func jsonRemoveFailsRatherThanRemovePart() async throws {
        let (server, root) = try Self.serve([
            "mappings/remove.json":
                #"{"request": {"method": "POST", "url": "/remove"}, "response": {"body": "{{{jsonRemove request.body '$[*].id'}}}", "transformers": ["response-template"]}}"#
        ])
        defer {
            server.stop()
            try? FileManager.default.removeItem(at: root)
        }
        let many = "[" + Array(repeating: #"{"id":1}"#, count: 150_000).joined(separator: ",") + "]"
        let answer = try await server.send("POST", "/remove", body: Data(many.utf8))
        let text = Self.text(answer.body)
        // Either limit may be reached first (the selection count, or the request's budget on a
        // slow build); neither leaves a part removed.
        #expect(text.contains("jsonRemove"))
        #expect(!text.contains(#""id""#))
        let few = try await server.send("POST", "/remove", body: Data(#"[{"id":1,"a":2},{"id":3}]"#.utf8))
        #expect(Self.text(few.body) == #"[{"a":2},{}]"#)
    }

    /// Past its selection budget the jsonPath helper printed its default (or nothing), as if the
    /// path had selected nothing: wrong data, said nowhere.
    @Test func jsonPathPastItsSelectionBudgetIsAnError() async throws {
        let (server, root) = try Self.serve(
            [
                "mappings/path.json":
                    #"{"request": {"method": "POST", "url": "/path"}, "response": {"body": "{{jsonPath request.body '$[*].id' default='none'}}", "transformers": ["response-template"]}}"#
            ], budget: .seconds(30))
        defer {
            server.stop()
            try? FileManager.default.removeItem(at: root)
        }
        let many = "[" + Array(repeating: #"{"id":1}"#, count: 150_000).joined(separator: ",") + "]"
        let text = Self.text(try await server.send("POST", "/path", body: Data(many.utf8)).body)
        #expect(text.contains("jsonPath: '$[*].id' selects more than 100000 values"))
        #expect(!text.contains("none"))
        let few = Self.text(try await server.send("POST", "/path", body: Data(#"[{"id":1},{"id":2}]"#.utf8)).body)
        #expect(few == "[1,2]")
    }

    @Test func aProxyStubsPrefixCannotNameAnotherHost() async throws {
        let upstream = try TestServer.start(handler: EchoTarget(name: "upstream"))
        let other = try TestServer.start(handler: EchoTarget(name: "other"))
        defer {
            upstream.stop()
            other.stop()
        }
        let (server, root) = try Self.serve([
            "mappings/api.json":
                #"{"request": {"urlPathPattern": "/api.*"}, "response": {"proxyBaseUrl": "http://127.0.0.1:\#(upstream.port)", "proxyUrlPrefixToRemove": "/api"}}"#,
            // A base whose host ends where the prefix's rest could go on: http://127.0.0 + ".1:PORT/x".
            "mappings/svc.json":
                #"{"request": {"urlPathPattern": "/svc.*"}, "response": {"proxyBaseUrl": "http://127.0.0", "proxyUrlPrefixToRemove": "/svc"}}"#,
        ])
        defer {
            server.stop()
            try? FileManager.default.removeItem(at: root)
        }
        let userInfo = try await server.send("GET", "/api@127.0.0.1:\(other.port)/x")
        #expect(userInfo.response.statusCode == 400)
        #expect(Self.text(userInfo.body).contains("forwards paths under http://127.0.0.1:\(upstream.port) only"))
        let hostSuffix = try await server.send("GET", "/svc.1:\(other.port)/x")
        #expect(hostSuffix.response.statusCode == 400)
        #expect(EchoTarget.seen(by: "other").isEmpty)
        // What stays under the base still goes there, paths and queries alike.
        #expect(Self.text(try await server.send("GET", "/api/x?q=1").body) == "upstream /x?q=1")
        #expect(Self.text(try await server.send("GET", "/api?q=1").body) == "upstream /?q=1")
    }
}

/// Answers every request with its name and the target it got, and remembers the targets.
private final class EchoTarget: HTTPHandler, @unchecked Sendable {
    let name: String
    nonisolated(unsafe) private static var targets: [String: [String]] = [:]
    private static let lock = NSLock()

    init(name: String) { self.name = name }

    static func seen(by name: String) -> [String] { lock.withLock { targets[name] ?? [] } }

    func handle(_ request: consuming Request, responder: Responder) {
        let target = request.target
        Self.lock.withLock { Self.targets[name, default: []].append(target) }
        responder.send(.text("\(name) \(target)"))
    }
}
