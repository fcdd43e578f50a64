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
