import Foundation
import WorkLimits

/// Regular expressions from stub authors run on every request (and on the 404 path, which scores
/// every stub): a pattern like `(a|aa)+b` backtracks for seconds on a long value. A match is
/// given up after a time budget of its own, or when the request's budget (`RequestBudget`, which
/// every match of the request draws on) is spent; ICU reports progress during long matches, which
/// is where both are checked. Here, in the lowest module whose helpers match regular expressions
/// on request data (the stub engine uses it too).
public enum RegexOutcome: Equatable {
    case matched(NSRange)
    case noMatch
    /// The budget ran out before the regex could say.
    case gaveUp
}

extension NSRegularExpression {
    /// How long one match may run on an event loop.
    public static let matchBudgetNanoseconds: UInt64 = 25_000_000

    /// The first match in `text`, or `.gaveUp` once `budget` has passed or the request's budget
    /// is spent (`place` names what matched, for the message that says where it ran out).
    public func firstMatch(
        in text: String, options: NSRegularExpression.MatchingOptions = [],
        budgetNanoseconds budget: UInt64 = matchBudgetNanoseconds, for place: @autoclosure () -> String = "a regular expression"
    ) -> RegexOutcome {
        firstMatch(in: text, options: options, budgetNanoseconds: budget, place: place, noMatch: .noMatch, gaveUp: .gaveUp) {
            .matched($0.range)
        }
    }

    /// The first match's text and its groups' (an unmatched group as ""); nil when there is no
    /// match or a budget ran out.
    public func firstMatchGroups(
        in text: String, budgetNanoseconds budget: UInt64 = matchBudgetNanoseconds,
        for place: @autoclosure () -> String = "a regular expression"
    ) -> [String]? {
        firstMatch(in: text, options: [], budgetNanoseconds: budget, place: place, noMatch: nil, gaveUp: nil) { result in
            (0..<result.numberOfRanges).map { index in Range(result.range(at: index), in: text).map { String(text[$0]) } ?? "" }
        }
    }

    @inline(__always)
    private func firstMatch<Outcome>(
        in text: String, options: NSRegularExpression.MatchingOptions, budgetNanoseconds budget: UInt64,
        place: () -> String, noMatch: Outcome, gaveUp: Outcome, _ matched: (NSTextCheckingResult) -> Outcome
    ) -> Outcome {
        // A match is a step of the request's work even when it is quick: a thousand quick ones add up.
        guard RequestBudget.spend(max(1, text.utf8.count / 64), in: place()) else { return gaveUp }
        let start = DispatchTime.now().uptimeNanoseconds
        var outcome = noMatch
        // Foundation on Linux declares the block escaping; it is only called during the enumeration.
        withoutActuallyEscaping(place) { place in
            withoutActuallyEscaping(matched) { matched in
                enumerateMatches(in: text, options: options.union(.reportProgress), range: NSRange(text.startIndex..., in: text)) { result, _, stop in
                    if let result {
                        outcome = matched(result)
                        stop.pointee = true
                    } else if DispatchTime.now().uptimeNanoseconds &- start > budget || !RequestBudget.checkClock(in: place()) {
                        outcome = gaveUp
                        stop.pointee = true
                    }
                }
            }
        }
        return outcome
    }
}
