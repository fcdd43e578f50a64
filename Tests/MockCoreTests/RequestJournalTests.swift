import Testing
import HTTPServer
@testable import MockCore

@Suite struct RequestJournalTests {
    let scope = StateScopes().default

    func record(_ journal: RequestJournal, _ path: String, body: Int = 0) {
        journal.record(Request(method: .get, target: path, body: [UInt8](repeating: 1, count: body)), scope: scope,
                       backend: "t", response: Response(status: 200), atMonotonicNanos: MonotonicClock.nanoseconds(), durationNanos: 5)
    }

    @Test func keepsTheNewestEntriesUpToItsCapacity() {
        let journal = RequestJournal(capacity: 3)
        for index in 1...5 { record(journal, "/\(index)") }
        #expect(journal.entries.map(\.request.path) == ["/3", "/4", "/5"])
        #expect(journal.entries.map(\.sequence) == [3, 4, 5])
    }

    @Test func boundsTheBodyBytesItKeeps() {
        let journal = RequestJournal(capacity: 100, maxBodyBytes: 250)
        for index in 1...5 { record(journal, "/\(index)", body: 100) }
        #expect(journal.entries.map(\.request.path) == ["/4", "/5"])
        // One entry larger than the budget is still kept, alone.
        record(journal, "/huge", body: 1000)
        #expect(journal.entries.map(\.request.path) == ["/huge"])
    }

    @Test func clearEmptiesItAndIdsStayUnique() {
        let journal = RequestJournal(capacity: 10)
        record(journal, "/a")
        record(journal, "/b")
        let ids = journal.entries.map { $0.id(runID: journal.runID) }
        #expect(Set(ids).count == 2)
        #expect(ids.allSatisfy { $0.count == 36 })
        journal.clear()
        #expect(journal.count == 0)
        record(journal, "/c")
        #expect(journal.entries.map(\.request.path) == ["/c"])
        #expect(journal.entries[0].sequence == 3)
    }

    @Test func loggedTimesAreWallClock() {
        let journal = RequestJournal(capacity: 2)
        record(journal, "/now")
        let loggedAt = journal.entries[0].loggedAt
        #expect(abs(loggedAt - MonotonicClock.wallSeconds()) < 5)
        #expect(Timestamp.iso8601(0) == "1970-01-01T00:00:00.000Z")
        #expect(Timestamp.iso8601(1_795_335_308.796) == "2026-11-22T08:15:08.796Z")
    }
}
