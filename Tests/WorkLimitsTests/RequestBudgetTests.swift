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
        let budget = RequestBudget.begin(limitNanoseconds: 2_000_000)
        defer { budget.end() }
        let start = ContinuousClock.now
        var spent = 0
        while RequestBudget.spend(in: "the loop under test") { spent += 1 }
        #expect(ContinuousClock.now - start >= .milliseconds(2))
        #expect(budget.exhaustedIn == "the loop under test")
        #expect(RequestBudget.limitDescription == "2 ms")
        #expect(!RequestBudget.spend(in: "later"))
        #expect(budget.exhaustedIn == "the loop under test")
        #expect(spent > 0)
    }

    @Test func aNewRequestStartsAfresh() {
        var budget = RequestBudget.begin(limitNanoseconds: 0)
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
        let budget = RequestBudget.begin(limitNanoseconds: 1_000_000)
        defer { budget.end() }
        #expect(RequestBudget.checkClock(in: "regex"))
        Thread.sleep(forTimeInterval: 0.005)
        #expect(!RequestBudget.checkClock(in: "regex"))
        #expect(budget.exhaustedIn == "regex")
    }
}
