import HTTPServer
import JSON
import Testing

@testable import MockCore

/// Webhooks' sub-events count in the journal's byte budget (`--journal-bytes`) with the entries,
/// URL and headers included: issue 47 saw 150 requests raise RSS from 33 to 705 MB outside it.
@Suite struct JournalSubEventBudgetTests {
    let scope = StateScopes().default

    func record(_ journal: RequestJournal, _ path: String) -> JournalEntry {
        journal.record(
            Request(method: .get, target: path), scope: scope, backend: "t", response: Response(status: 200),
            atMonotonicNanos: MonotonicClock.nanoseconds(), durationNanos: 5)
    }

    func webhookRequest(urlBytes: Int) -> JSONValue {
        .object([
            ("url", .string("http://127.0.0.1/" + String(repeating: "u", count: urlBytes))),
            ("headers", .object([("X-Large", .string(String(repeating: "h", count: urlBytes)))])),
        ])
    }

    @Test func subEventsCountInTheBudgetAndOlderEntriesMakeRoomForThem() {
        let journal = RequestJournal(capacity: 1000, maxBodyBytes: 100_000)
        let first = record(journal, "/first")
        #expect(journal.bodyBytes == 0)
        journal.append(subEvent: "WEBHOOK_REQUEST", webhookRequest(urlBytes: 10_000), to: first)
        #expect(journal.bodyBytes > 20_000, "the URL and the headers count")
        #expect(journal.subEvents(of: first).count == 1)
        for index in 0..<20 {
            let entry = record(journal, "/\(index)")
            journal.append(subEvent: "WEBHOOK_REQUEST", webhookRequest(urlBytes: 10_000), to: entry)
            #expect(journal.bodyBytes <= 100_000)
        }
        #expect(journal.entries.first?.request.path != "/first", "made room")
        #expect(journal.subEvents(of: first).isEmpty, "gone with its entry")
        journal.clear()
        #expect(journal.bodyBytes == 0)
        // An entry the journal no longer holds takes none.
        journal.append(subEvent: "WEBHOOK_REQUEST", webhookRequest(urlBytes: 10_000), to: first)
        #expect(journal.bodyBytes == 0 && journal.subEvents(of: first).isEmpty)
    }

    @Test func removedEntriesGiveBackTheirSubEventsBytes() {
        let journal = RequestJournal(capacity: 100, maxBodyBytes: 10_000_000)
        let entry = record(journal, "/a")
        journal.append(subEvent: "ERROR", .object([("message", .string(String(repeating: "m", count: 5000)))]), to: entry)
        #expect(journal.bodyBytes > 5000)
        journal.remove { $0.request.path == "/a" }
        #expect(journal.bodyBytes == 0)
    }
}
