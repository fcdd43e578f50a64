import Foundation
import Testing
import WorkLimits

@Suite(.serialized) struct RequestBudgetTests {
    @Test func outsideARequestNothingIsLimited() {
        #expect(RequestBudget.current == nil)
        #expect(RequestBudget.spend(1_000_000, in: "test"))
        #expect(!RequestBudget.isExhausted)
    }

    @Test func aRequestsBudgetRunsOutAndStaysOut() {
        let saved = RequestBudget.limitNanoseconds.load(ordering: .relaxed)
        RequestBudget.limitNanoseconds.store(2_000_000, ordering: .relaxed)
        defer { RequestBudget.limitNanoseconds.store(saved, ordering: .relaxed) }
        let budget = RequestBudget.begin()
        defer { budget.end() }
        let start = ContinuousClock.now
        var spent = 0
        while RequestBudget.spend(in: "the loop under test") { spent += 1 }
        #expect(ContinuousClock.now - start >= .milliseconds(2))
        #expect(budget.exhaustedIn == "the loop under test")
        #expect(!RequestBudget.spend(in: "later"))
        #expect(budget.exhaustedIn == "the loop under test")
        #expect(spent > 0)
    }

    @Test func aNewRequestStartsAfresh() {
        let saved = RequestBudget.limitNanoseconds.load(ordering: .relaxed)
        RequestBudget.limitNanoseconds.store(0, ordering: .relaxed)
        defer { RequestBudget.limitNanoseconds.store(saved, ordering: .relaxed) }
        var budget = RequestBudget.begin()
        while RequestBudget.spend(in: "first") {}
        budget.end()
        #expect(RequestBudget.current == nil)
        budget = RequestBudget.begin()
        #expect(budget.exhaustedIn == nil)
        #expect(RequestBudget.spend(in: "second"))
        budget.end()
    }

    @Test func runSharesTheRunningRequestsBudget() {
        let outer = RequestBudget.begin()
        defer { outer.end() }
        let inner = RequestBudget.run { RequestBudget.current }
        #expect(inner === outer)
        #expect(RequestBudget.current === outer)
    }

    @Test func runOutsideARequestGivesABudgetOfItsOwnAndEndsIt() {
        let inside = RequestBudget.run { RequestBudget.current }
        #expect(inside != nil)
        #expect(RequestBudget.current == nil)
    }

    @Test func checkClockStopsWorkPastTheDeadline() {
        let saved = RequestBudget.limitNanoseconds.load(ordering: .relaxed)
        RequestBudget.limitNanoseconds.store(1_000_000, ordering: .relaxed)
        defer { RequestBudget.limitNanoseconds.store(saved, ordering: .relaxed) }
        let budget = RequestBudget.begin()
        defer { budget.end() }
        #expect(RequestBudget.checkClock(in: "regex"))
        Thread.sleep(forTimeInterval: 0.005)
        #expect(!RequestBudget.checkClock(in: "regex"))
        #expect(budget.exhaustedIn == "regex")
    }
}
