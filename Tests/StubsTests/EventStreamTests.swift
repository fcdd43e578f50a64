import Foundation
import HTTPServer
import JSON
import Testing

@testable import Stubs

/// An event stream's JSON read into the standard's wire form, and where a reconnecting client
/// starts.
@Suite struct EventStreamTests {
    func stream(_ text: String) throws -> EventStream {
        try EventStream.parse(try JSONValue.parse(text), field: "eventStream")
    }

    @Test func eventsBecomeTheStandardsLines() throws {
        let parsed = try stream(
            #"{"events": [{"comment": "hi", "id": "7", "event": "price", "retry": 500, "data": "a\nb\r\nc"}, {"jsonData": {"x": [1]}, "delayMs": 20}]}"#
        )
        #expect(String(decoding: parsed.events[0].wire, as: UTF8.self) == ": hi\nid: 7\nevent: price\nretry: 500\ndata: a\ndata: b\ndata: c\n\n")
        #expect(String(decoding: parsed.events[1].wire, as: UTF8.self) == "data: {\"x\":[1]}\n\n")
        #expect(parsed.events[1].delay == .milliseconds(20) && !parsed.repeats && !parsed.keepsOpen && parsed.heartbeat == nil)
    }

    /// In a templated stub, an event's data is rendered per request; a line break it renders
    /// starts another `data:` line, never another field. A stub that is not templated sends it as
    /// written; a bad template is refused where it is.
    @Test func templatedDataIsRenderedPerRequest() throws {
        let directory = StubDirectory(root: FileManager.default.temporaryDirectory.appendingPathComponent("no-stubs-\(UUID().uuidString)"))
        func definition(_ text: String) throws -> ResponseDefinition {
            var warnings: [StubError] = []
            return try ResponseDefinition.parse(try JSONValue.parse(text), in: directory, warnings: &warnings)
        }
        let templated = try definition(
            #"{"transformers": ["response-template"], "eventStream": {"events": [{"id": "1", "event": "hi", "data": "hello {{request.query.name}}"}, {"data": "plain"}]}}"#
        )
        let stream = try #require(templated.eventStream)
        #expect(stream.isTemplated)
        let request = Request(method: .get, target: "/feed?name=ann%0Aevent:%20evil", headers: [:], body: [])
        let played = stream.rendered(in: ResponseTemplating.context(for: request, parameters: .null))
        #expect(String(decoding: played.events[0].wire, as: UTF8.self) == "id: 1\nevent: hi\ndata: hello ann\ndata: event: evil\n\n")
        #expect(String(decoding: played.events[1].wire, as: UTF8.self) == "data: plain\n\n")
        let literal = try #require(try definition(#"{"eventStream": {"events": [{"data": "hello {{request.query.name}}"}]}}"#).eventStream)
        #expect(!literal.isTemplated)
        #expect(String(decoding: literal.events[0].wire, as: UTF8.self) == "data: hello {{request.query.name}}\n\n")
        #expect(throws: StubError.self) {
            try definition(#"{"transformers": ["response-template"], "eventStream": {"events": [{"data": "{{#if}}"}]}}"#)
        }
    }

    @Test func aReconnectingClientStartsAfterTheLastEventItSaw() throws {
        let finite = try stream(#"{"events": [{"id": "1", "data": "a"}, {"id": "2", "data": "b"}]}"#)
        #expect(finite.start(after: nil) == 0 && finite.start(after: "1") == 1 && finite.start(after: "2") == 2 && finite.start(after: "9") == 0)
        let repeating = try stream(#"{"events": [{"id": "1", "data": "a", "delayMs": 5}, {"id": "2", "data": "b"}], "repeat": true}"#)
        #expect(repeating.start(after: "2") == 0, "after the last, a repeating stream starts over")
    }

    @Test func whatCannotBeSentIsRefusedWithWhere() {
        func refusal(_ text: String) -> String? {
            do {
                _ = try stream(text)
                return nil
            } catch let error as StubError {
                return error.field
            } catch {
                return "not JSON: \(error)"
            }
        }
        #expect(refusal(#"{"events": [{"event": "a\nb", "data": "x"}]}"#) == "eventStream.events[0].event", "a line break would start another field")
        #expect(refusal(#"{"events": [{}]}"#) == "eventStream.events[0]", "an event with nothing to send")
        #expect(refusal(#"{"events": [{"data": "x"}], "repeat": true}"#) == "eventStream.repeat", "a repeating stream with no rest")
        #expect(refusal(#"{"events": [{"data": "x"}], "heartbeatMs": 1}"#) == "eventStream.heartbeatMs")
        #expect(refusal(#"{"events": [{"dta": "x"}]}"#) == "eventStream.events[0].dta")
    }
}
