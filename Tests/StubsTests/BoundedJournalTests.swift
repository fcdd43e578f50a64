import Testing

@testable import Stubs

/// The message journal's ring: oldest first, at most a count and a number of bytes, the oldest
/// dropped as new ones come, however many times the ring has wrapped.
@Suite struct BoundedJournalTests {
    struct Entry: Weighed, Equatable {
        let number: Int
        var bytes: Int = 10
    }

    @Test func keepsTheNewestUpToItsCountWhileWrapping() {
        var journal = BoundedJournal<Entry>()
        for number in 1...1_000 {
            journal.append(Entry(number: number), keeping: 7, bytes: 1 << 20)
            #expect(journal.events.map(\.number) == Array(max(1, number - 6)...number), "after \(number)")
        }
    }

    @Test func keepsWithinItsBytesButAlwaysTheNewest() {
        var journal = BoundedJournal<Entry>()
        for number in 1...5 { journal.append(Entry(number: number), keeping: 100, bytes: 35) }
        #expect(journal.events.map(\.number) == [3, 4, 5], "30 bytes of 35")
        journal.append(Entry(number: 6, bytes: 100), keeping: 100, bytes: 35)
        #expect(journal.events.map(\.number) == [6], "one entry past the bytes stays, alone")
        journal.append(Entry(number: 7), keeping: 100, bytes: 35)
        #expect(journal.events.map(\.number) == [7])
    }

    @Test func removesWhatItIsAskedToAndKeepsTheOrder() {
        var journal = BoundedJournal<Entry>()
        for number in 1...20 { journal.append(Entry(number: number), keeping: 8, bytes: 1 << 20) }
        #expect(journal.remove { $0.number % 2 == 0 }.map(\.number) == [14, 16, 18, 20])
        #expect(journal.events.map(\.number) == [13, 15, 17, 19])
        for number in 21...30 { journal.append(Entry(number: number), keeping: 8, bytes: 1 << 20) }
        #expect(journal.events.map(\.number) == Array(23...30))
    }

    @Test func aCapacityOfNoneKeepsNothing() {
        var journal = BoundedJournal<Entry>()
        journal.append(Entry(number: 1), keeping: 0, bytes: 1 << 20)
        #expect(journal.events.isEmpty)
    }
}
