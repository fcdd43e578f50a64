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

/// Webhooks as WireMock 3.13 defines them, against a real receiver on loopback (a second server).
/// The cases marked so come from WireMock's `WebhooksAcceptanceTest.java`
/// (src/test/java/com/github/tomakehurst/wiremock/).
@Suite struct WebhookTests {
    /// A receiver answering 202 to everything, and a server whose stubs fire webhooks.
    final class Pair {
        let receiver: TestServer
        let trigger: TestServer
        let dispatch: WebhookDispatch
        let folders: [URL]

        init(policy: (inout WebhookDispatch.Policy) -> Void = { _ in }, configure: (inout ServerConfiguration) -> Void = { _ in }) throws {
            let receiverStubs = try makeTemporaryDirectory([
                "mappings/any.json": #"{"request": {"method": "ANY", "urlPattern": "/.*"}, "response": {"status": 202, "body": "received"}}"#
            ])
            let triggerStubs = try makeTemporaryDirectory([:])
            folders = [receiverStubs, triggerStubs]
            receiver = try TestServer.start(backends: [StubEngine(stubsDirectory: receiverStubs)])
            dispatch = WebhookDispatch()
            dispatch.configure(policy)
            let engine = StubEngine(stubsDirectory: triggerStubs, webhooks: dispatch)
            let journal = RequestJournal()
            trigger = try TestServer.start(
                backends: [StubAdminAPI(engine: engine, journal: journal), engine], journal: journal, configure: configure)
            dispatch.listening(onPort: trigger.port)
        }

        deinit {
            trigger.stop()
            receiver.stop()
            for folder in folders { try? FileManager.default.removeItem(at: folder) }
        }

        var target: String { "http://127.0.0.1:\(receiver.port)" }

        func stub(_ json: String) async throws -> (status: Int, body: String) {
            let (body, response) = try await trigger.send("POST", "/__admin/mappings", body: Data(json.utf8))
            return (response.statusCode, String(decoding: body, as: UTF8.self))
        }

        /// What the receiver was sent, oldest first, once `count` requests have come (10 s at most).
        func received(_ count: Int) async throws -> [JournalEntry] {
            let journal = try #require(receiver.router?.journal)
            _ = await poll(until: { journal.count >= count })
            return journal.entries
        }

        /// The trigger's serve events, newest first, with their sub-events.
        func serveEvents() async throws -> [JSONValue] {
            let (body, _) = try await trigger.send("GET", "/__admin/requests")
            return try JSONValue.parse(Array(body))["requests"]?.arrayValue ?? []
        }

        /// Waits until the newest serve event (of a request for `path`, when given) has `count` sub-events.
        func subEvents(_ count: Int, of path: String? = nil) async throws -> [JSONValue] {
            func current() async throws -> [JSONValue] {
                let events = try await serveEvents()
                let event: JSONValue? = path.map { path in events.first { $0["request"]?["url"]?.stringValue == path } } ?? events.first
                return event?["subEvents"]?.arrayValue ?? []
            }
            for _ in 0..<200 {
                let events = try await current()
                if events.count >= count { return events }
                try await Task.sleep(for: .milliseconds(50))
            }
            return try await current()
        }
    }

    // WebhooksAcceptanceTest.firesASingleWebhookWhenRequested
    @Test func firesASingleWebhookAfterTheAnswerWithItsHeadersAndBody() async throws {
        let pair = try Pair()
        let added = try await pair.stub(
            """
            {"request": {"urlPath": "/something-async", "method": "POST"}, "response": {"status": 200},
             "postServeActions": [{"name": "webhook", "parameters": {"method": "POST", "url": "\(pair.target)/callback",
               "headers": {"Content-Type": "application/json", "X-Multi": ["one", "two"]}, "body": "{ \\"result\\": \\"SUCCESS\\" }"}}]}
            """)
        #expect(added.status == 201, "\(added.body)")
        #expect(pair.receiver.router?.journal.count == 0)
        let (_, answer) = try await pair.trigger.send("POST", "/something-async", body: Data())
        #expect(answer.statusCode == 200)
        let sent = try #require(try await pair.received(1).first)
        #expect(sent.request.method == .post && sent.request.target == "/callback")
        #expect(sent.request.headers["Content-Type"] == "application/json")
        #expect(sent.request.headers.values(for: "X-Multi") == ["one", "two"])
        #expect(sent.request.bodyText == #"{ "result": "SUCCESS" }"#)

        // Journaled as sub-events of the triggering serve event: the request, then the answer.
        let events = try await pair.subEvents(2)
        #expect(events.map { $0["type"]?.stringValue } == ["WEBHOOK_REQUEST", "WEBHOOK_RESPONSE"])
        // The request's data as WireMock 3.13 logs it (WebhooksAcceptanceViaServeEventTest).
        let request = try #require(events.first?["data"])
        #expect(request["url"]?.stringValue == "/callback" && request["absoluteUrl"]?.stringValue == "\(pair.target)/callback")
        #expect(request["method"]?.stringValue == "POST" && request["scheme"]?.stringValue == "http")
        #expect(request["host"]?.stringValue == "127.0.0.1" && request["port"]?.intValue == Int(pair.receiver.port))
        #expect(request["body"]?.stringValue == #"{ "result": "SUCCESS" }"# && request["browserProxyRequest"] == false)
        #expect(request["headers"]?["X-Multi"] == ["one", "two"] && request["queryParams"] == .object([]))
        #expect(events.last?["data"]?["status"]?.intValue == 202 && events.last?["data"]?["body"]?.stringValue == "received")
    }

    // WebhooksAcceptanceViaServeEventTest.originalRequestIdIsTheSameAsRequestId, and the id is the
    // serve event's: `GET /__admin/requests/{id}` finds the request.
    @Test func requestIDIsTheServeEventsIDInTheAnswerAndTheWebhook() async throws {
        let pair = try Pair()
        _ = try await pair.stub(
            """
            {"request": {"urlPath": "/request-id", "method": "POST"},
             "response": {"status": 200, "body": "{{request.id}}", "transformers": ["response-template"]},
             "serveEventListeners": [{"name": "webhook", "parameters": {"method": "POST", "url": "\(pair.target)/callback",
               "headers": {"Content-Type": "application/json"}, "body": "{ \\"requestId\\": \\"{{originalRequest.id}}\\" }"}}]}
            """)
        let (body, answer) = try await pair.trigger.send("POST", "/request-id", body: Data())
        let id = String(decoding: body, as: UTF8.self)
        #expect(answer.statusCode == 200)
        #expect(id.wholeMatch(of: /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/) != nil, "\(id)")
        let sent = try #require(try await pair.received(1).first)
        #expect(sent.request.bodyText == #"{ "requestId": "\#(id)" }"#)
        let (event, found) = try await pair.trigger.send("GET", "/__admin/requests/\(id)")
        #expect(found.statusCode == 200)
        #expect(try JSONValue.parse(Array(event))["request"]?["url"]?.stringValue == "/request-id")

        // A second request has an id of its own.
        let (second, _) = try await pair.trigger.send("POST", "/request-id", body: Data())
        #expect(String(decoding: second, as: UTF8.self) != id)
    }

    // WebhooksAcceptanceTest.webhookCanBeConfiguredFromJson: two webhooks, the second with no body.
    @Test func severalWebhooksOfOneStubAllFire() async throws {
        let pair = try Pair()
        _ = try await pair.stub(
            """
            {"request": {"urlPath": "/hook", "method": "POST"}, "response": {"status": 204},
             "postServeActions": [
               {"name": "webhook", "parameters": {"headers": {"Content-Type": "application/json"}, "method": "POST",
                "body": "{ \\"result\\": \\"SUCCESS\\" }", "url": "\(pair.target)/callback1"}},
               {"name": "webhook", "parameters": {"method": "POST", "url": "\(pair.target)/callback2"}}]}
            """)
        _ = try await pair.trigger.send("POST", "/hook", body: Data())
        let sent = try await pair.received(2)
        #expect(Set(sent.map(\.request.target)) == ["/callback1", "/callback2"])
        #expect(sent.allSatisfy { $0.request.method == .post })
    }

    // WebhooksAcceptanceTest.appliesTemplatingToUrlMethodHeadersAndBodyViaJSON
    @Test func theMethodURLHeadersAndBodyAreTemplatesOverTheOriginalRequestAndTheParameters() async throws {
        let pair = try Pair()
        _ = try await pair.stub(
            """
            {"request": {"urlPath": "/templating", "method": "POST"}, "response": {"status": 200},
             "serveEventListeners": [{"name": "webhook", "parameters": {
               "method": "{{jsonPath originalRequest.body '$.method'}}",
               "url": "\(pair.target){{{jsonPath originalRequest.body '$.callbackPath'}}}",
               "headers": {"X-Single": "{{math 1 '+' 2}}", "X-Multi": ["{{math 3 'x' 2}}", "{{parameters.one}}"]},
               "body": "{{jsonPath originalRequest.body '$.name'}}", "one": "param-one-value"}}]}
            """)
        let body = #"{"callbackPath": "/callback/123", "method": "POST", "name": "Tom"}"#
        _ = try await pair.trigger.send("POST", "/templating", headers: ["Content-Type": "application/json"], body: Data(body.utf8))
        let sent = try #require(try await pair.received(1).first)
        #expect(sent.request.method == .post && sent.request.target == "/callback/123")
        #expect(sent.request.headers["X-Single"] == "3")
        #expect(sent.request.headers.values(for: "X-Multi") == ["6", "param-one-value"])
        #expect(sent.request.bodyText == "Tom")
    }

    // WebhooksAcceptanceTest.addsFixedDelayViaDSL, as JSON (2.x's object form), a lower bound only.
    @Test func aDelayedWebhookComesAfterItsDelayWhileTheAnswerDoesNotWait() async throws {
        let pair = try Pair()
        _ = try await pair.stub(
            """
            {"request": {"urlPath": "/delayed", "method": "POST"}, "response": {"status": 200, "body": "now"},
             "postServeActions": {"webhook": {"method": "GET", "url": "\(pair.target)/callback", "body": "ignored on a GET",
               "delay": {"type": "fixed", "milliseconds": 400}}}}
            """)
        let began = ContinuousClock.now
        let (answer, _) = try await pair.trigger.send("POST", "/delayed", body: Data())
        #expect(String(decoding: answer, as: UTF8.self) == "now")
        let sent = try #require(try await pair.received(1).first)
        #expect(ContinuousClock.now - began >= .milliseconds(400))
        #expect(sent.request.method == .get && sent.request.body.isEmpty, "a GET carries no body, as WireMock's")
        // The answer was journaled (and sent) before the webhook's timer: its request is a sub-event 400 ms on.
        let events = try await pair.subEvents(2, of: "/delayed")
        #expect(events.first?["type"]?.stringValue == "WEBHOOK_REQUEST")
        #expect((events.first?["timeOffsetNanos"]?.intValue ?? 0) >= 400_000_000, "\(events)")
    }

    @Test func theWebhookCarriesTheScopeOfItsTrigger() async throws {
        let pair = try Pair()
        _ = try await pair.stub(
            #"{"request": {"urlPath": "/pay"}, "response": {}, "serveEventListeners": [{"name": "webhook", "parameters": {"url": "\#(pair.target)/paid", "method": "PUT", "base64Body": "AAEC"}}]}"#
        )
        _ = try await pair.trigger.send("GET", "/pay", headers: ["X-Understudy-Scope": "ci-7"])
        let sent = try #require(try await pair.received(1).first)
        #expect(sent.request.headers["X-Understudy-Scope"] == "ci-7" && sent.request.body == [0, 1, 2])
    }

    @Test func aTargetOutsideLoopbackAndHostsIsNotReachedUnlessAllowedAndAnUnreachableOneNeverHoldsTheAnswer() async throws {
        let pair = try Pair()
        _ = try await pair.stub(
            """
            {"request": {"urlPath": "/out"}, "response": {"body": "fine"},
             "serveEventListeners": [{"name": "webhook", "parameters": {"url": "http://payments.example.com/notify"}},
                                     {"name": "webhook", "parameters": {"url": "http://127.0.0.1:1/closed"}}]}
            """)
        let (answer, response) = try await pair.trigger.send("GET", "/out")
        #expect(response.statusCode == 200 && String(decoding: answer, as: UTF8.self) == "fine")
        let events = try await pair.subEvents(3)
        let messages = events.filter { $0["type"]?.stringValue == "ERROR" }.compactMap { $0["data"]?["message"]?.stringValue }
        #expect(messages.contains { $0.contains("not sent to payments.example.com") && $0.contains("--allow-webhook-host payments.example.com") })
        #expect(messages.contains { $0.contains("127.0.0.1:1/closed") })

        // Allowed, a host name then goes out (here a name only this test resolves, to a closed port:
        // it fails to connect, and says so).
        let allowed = try Pair {
            $0.allowedHosts = ["payments.invalid"]
            $0.resolve = { _, _, completion in completion(["127.0.0.1"]) }
        }
        _ = try await allowed.stub(
            #"{"request": {"urlPath": "/out"}, "response": {}, "serveEventListeners": [{"name": "webhook", "parameters": {"url": "http://payments.invalid:1/notify"}}]}"#
        )
        _ = try await allowed.trigger.send("GET", "/out")
        let tried = try await allowed.subEvents(2)
        #expect(tried.first?["type"]?.stringValue == "WEBHOOK_REQUEST", "an allowed host is tried")
    }

    @Test func aHostThisServerAnswersForIsDeliveredHereWithItsName() async throws {
        let pair = try Pair { $0.isMapped = { $0 == "shop.example.com" } }
        _ = try await pair.stub(
            #"{"request": {"urlPath": "/order"}, "response": {}, "serveEventListeners": [{"name": "webhook", "parameters": {"url": "https://shop.example.com/orders/7/shipped", "method": "POST", "body": "shipped"}}]}"#
        )
        _ = try await pair.stub(
            #"{"request": {"urlPath": "/orders/7/shipped", "host": {"equalTo": "shop.example.com"}}, "response": {"status": 204}}"#)
        _ = try await pair.trigger.send("GET", "/order")
        let events = try await pair.subEvents(2, of: "/order")
        #expect(events.last?["type"]?.stringValue == "WEBHOOK_RESPONSE" && events.last?["data"]?["status"]?.intValue == 204, "\(events)")
        #expect(events.first?["data"]?["absoluteUrl"]?.stringValue == "https://shop.example.com/orders/7/shipped", "journaled as the stub asked")
    }

    @Test func badWebhooksAreRefusedWithTheFieldNamed() async throws {
        let pair = try Pair()
        let cases: [(String, String)] = [
            (
                #""serveEventListeners": [{"name": "webhook", "parameters": {"method": "POST"}}]"#,
                "serveEventListeners[0].parameters.url: a webhook needs a url"
            ),
            (
                #""postServeActions": {"webhook": {"url": "ftp://files.example.com/x"}}"#,
                "postServeActions.webhook.url: 'ftp://files.example.com/x' is not an http:// or https:// URL"
            ),
            (
                #""postServeActions": [{"name": "webhook", "parameters": {"url": "http://127.0.0.1/x", "base64Body": "%%%"}}]"#,
                "postServeActions[0].parameters.base64Body: expected base64 text"
            ),
            (
                #""postServeActions": [{"name": "webhook", "parameters": {"url": "http://127.0.0.1/x", "delay": {"type": "sometimes"}}}]"#,
                "postServeActions[0].parameters.delay.type"
            ),
            (
                #""serveEventListeners": [{"name": "webhook", "parameters": {"url": "http://127.0.0.1/{{#if}}"}}]"#,
                "serveEventListeners[0].parameters.url: template"
            ),
            (#""serveEventListeners": {"name": "webhook"}"#, "serveEventListeners: expected an array"),
        ]
        for (listeners, message) in cases {
            let answer = try await pair.stub(#"{"request": {"urlPath": "/x"}, "response": {}, \#(listeners)}"#)
            #expect(answer.status == 422 && answer.body.contains(message), "\(listeners) → \(answer.body)")
        }
        // A rendered URL that is not one: the answer goes out, the webhook is journaled as an error.
        _ = try await pair.stub(
            #"{"request": {"urlPath": "/y"}, "response": {"body": "y"}, "serveEventListeners": [{"name": "webhook", "parameters": {"url": "{{originalRequest.query.to}}"}}]}"#
        )
        let (body, _) = try await pair.trigger.send("GET", "/y?to=nowhere")
        #expect(String(decoding: body, as: UTF8.self) == "y")
        let events = try await pair.subEvents(1)
        #expect(events.first?["data"]?["message"]?.stringValue?.contains("is not an http:// or https:// URL") == true, "\(events)")
    }
}
