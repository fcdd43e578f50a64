import HTTPServer
import Testing
import UnderstudyTesting

@testable import MockCore

@Suite struct RequestJournalTests {
    let scope = StateScopes().default

    func record(_ journal: RequestJournal, _ path: String, body: Int = 0) {
        journal.record(
            Request(method: .get, target: path, body: [UInt8](repeating: 1, count: body)), scope: scope,
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

    func answer(_ journal: RequestJournal, _ path: String, _ body: ResponseBody) {
        journal.record(
            Request(method: .get, target: path), scope: scope, backend: "t", response: Response(status: 200, body: body),
            atMonotonicNanos: MonotonicClock.nanoseconds(), durationNanos: 5)
    }

    /// Every body counts, a shared one once however many entries hold it: answers that are made
    /// per request (emulators') are bounded, a fixture answered many times costs its size once.
    @Test func countsEveryBodyItHoldsAndASharedOneOnce() {
        let journal = RequestJournal(capacity: 100, maxBodyBytes: 250_000)
        let fixture = SharedBytes([UInt8](repeating: 7, count: 100_000))
        for index in 1...50 { answer(journal, "/fixture/\(index)", ResponseBody(shared: fixture)) }
        #expect(journal.count == 50 && journal.bodyBytes == 100_000 && journal.evictions == 0)
        for index in 1...5 { answer(journal, "/made/\(index)", ResponseBody(shared: SharedBytes([UInt8](repeating: 1, count: 60_000)))) }
        #expect(journal.bodyBytes <= 250_000, "answers made per request count each")
        #expect(journal.entries.suffix(2).map(\.request.path) == ["/made/4", "/made/5"])
        #expect(journal.evictions > 0)
        journal.clear()
        #expect(journal.bodyBytes == 0)
        #expect(fixture.budgetedHolds.load(ordering: .relaxed) == 0, "every hold is given back")
        for index in 1...3 { answer(journal, "/again/\(index)", ResponseBody(shared: fixture)) }
        #expect(journal.bodyBytes == 100_000)
        journal.remove { $0.request.path == "/again/1" }
        #expect(journal.bodyBytes == 100_000, "still held by two entries")
        journal.remove { _ in true }
        #expect(journal.bodyBytes == 0 && fixture.budgetedHolds.load(ordering: .relaxed) == 0)
    }

    @Test func keepsOnlyTheStartOfALargeBody() {
        let journal = RequestJournal(capacity: 10)
        let large = RequestJournal.keptBodyLimit * 4
        answer(journal, "/large", ResponseBody([UInt8](repeating: 2, count: large)))
        answer(journal, "/small", ResponseBody([UInt8](repeating: 3, count: 100)))
        let (kept, small) = (journal.entries[0], journal.entries[1])
        #expect(kept.response.body.count == RequestJournal.keptBodyLimit && kept.truncatedFrom == large)
        #expect(small.response.body.count == 100 && small.truncatedFrom == nil)
        #expect(journal.bodyBytes == RequestJournal.keptBodyLimit + 100)
        let event = kept.serveEventJSON(in: journal, understudyFields: true)
        #expect(event["responseBodyTruncatedFrom"]?.intValue == large)
        #expect(kept.serveEventJSON(in: journal)["responseBodyTruncatedFrom"] == nil, "not a field of WireMock's")
    }

    @Test func clearEmptiesItAndIdsStayUnique() {
        let journal = RequestJournal(capacity: 10)
        record(journal, "/a")
        record(journal, "/b")
        let ids = journal.entries.map { $0.id }
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

@Suite struct RequestJournalFollowingTests {
    let scopes = StateScopes()

    func record(_ journal: RequestJournal, _ path: String, scope: StateScope? = nil, response: Response = Response(status: 200)) {
        journal.record(
            Request(method: .get, target: path), scope: scope ?? scopes.default, backend: "t", response: response,
            atMonotonicNanos: MonotonicClock.nanoseconds(), durationNanos: 5)
    }

    @Test func countsWhatItEvicts() {
        let journal = RequestJournal(capacity: 2)
        for index in 1...5 { record(journal, "/\(index)") }
        #expect(journal.evictions == 3)
        #expect(journal.latestSequence == 5)
    }

    @Test func listsWhatCameAfterASequenceInAScope() {
        let journal = RequestJournal(capacity: 10)
        let other = scopes.scope(named: "other", now: MonotonicClock.nanoseconds())
        record(journal, "/a")
        record(journal, "/b", scope: other)
        record(journal, "/c")
        let (all, newest) = journal.entries(after: 1, in: nil, limit: 10)
        #expect(all.map(\.request.path) == ["/b", "/c"])
        #expect(newest == 3)
        #expect(journal.entries(after: 0, in: scopes.default, limit: 10).entries.map(\.request.path) == ["/a", "/c"])
        #expect(journal.entries(after: 0, in: nil, limit: 1).entries.map(\.request.path) == ["/c"])
        #expect(journal.entries(after: 3, in: nil, limit: 10).entries.isEmpty)
    }

    @Test func keepsTheResponseButNotAFileBody() throws {
        let journal = RequestJournal(capacity: 10, maxBodyBytes: 150)
        let file = try makeTemporaryDirectory(["big.bin": String(repeating: "x", count: 1000)]).appendingPathComponent("big.bin")
        let fileBody = FileBody(path: file.path, count: 1000)
        record(journal, "/file", response: Response(status: 200, body: ResponseBody(file: fileBody)))
        #expect(journal.entries[0].response.body.isEmpty)
        // Own bytes count toward the body budget: two answers of 100 bytes do not fit in 150.
        record(journal, "/a", response: Response(status: 200, body: ResponseBody([UInt8](repeating: 1, count: 100))))
        record(journal, "/b", response: Response(status: 200, body: ResponseBody([UInt8](repeating: 1, count: 100))))
        #expect(journal.entries.map(\.request.path) == ["/b"])
        #expect(journal.entries.last?.response.body.count == 100)
    }
}
