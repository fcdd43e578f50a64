import JSON
import Recording
import Testing

/// A WebSocket session made into message mappings: the server's opening words, each client
/// message's answers with their spacing, repeats answered as the first time, binary kept binary.
@Suite struct RecordedChannelTests {
    @Test func aSessionBecomesMappingsThatReplayIt() {
        func message(_ client: Bool, _ seconds: Double, _ text: String, binary: Bool = false) -> RecordedChannel.Message {
            RecordedChannel.Message(fromClient: client, seconds: seconds, bytes: Array(text.utf8), isBinary: binary)
        }
        let session = RecordedChannel(
            path: "/feed", openedAt: 10,
            messages: [
                message(false, 10.25, "ready {{now}}"), message(true, 11, "ping"), message(false, 11.5, "pong"), message(true, 12, "ping"),
                message(false, 12.1, "again"), message(true, 13, "\u{1}", binary: true),
            ])
        let mappings = session.mappings()
        #expect(mappings.count == 3, "on opening, ping (once), the binary message")
        #expect(mappings[0]["trigger"]?["type"]?.stringValue == "channel-open")
        #expect(mappings[0]["actions"]?.arrayValue?.first?["delayMs"]?.intValue == 250)
        #expect(
            mappings[0]["actions"]?.arrayValue?.first?["message"]?["body"]?["data"]?.stringValue == "ready \\{{now}}",
            "sent as it was, not as a template")
        #expect(mappings[1]["trigger"]?["message"]?["body"]?["equalTo"]?.stringValue == "ping")
        #expect(mappings[1]["actions"]?.arrayValue?.count == 1 && mappings[1]["actions"]?.arrayValue?.first?["delayMs"]?.intValue == 500)
        #expect(mappings[2]["trigger"]?["message"]?["body"]?["binaryEqualTo"]?.stringValue == "AQ==")
        #expect(mappings[2]["actions"]?.arrayValue?.isEmpty == true, "nothing answered it")
    }
}
