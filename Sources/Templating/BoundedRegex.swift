import Foundation

/// Regular expressions from stub authors run on every request (and on the 404 path, which scores
/// every stub): a pattern like `(a|aa)+b` backtracks for seconds on a long value. A match is
/// given up after a time budget; ICU reports progress during long matches, which is where the
/// budget is checked. Here, in the lowest module whose helpers match regular expressions on
/// request data (the stub engine uses it too).
public enum RegexOutcome: Equatable {
    case matched(NSRange)
    case noMatch
    /// The budget ran out before the regex could say.
    case gaveUp
}

extension NSRegularExpression {
    /// How long one match may run on an event loop.
    public static let matchBudgetNanoseconds: UInt64 = 25_000_000

    /// The first match in `text`, or `.gaveUp` once `budget` has passed.
    public func firstMatch(
        in text: String, options: NSRegularExpression.MatchingOptions = [],
        budgetNanoseconds budget: UInt64 = matchBudgetNanoseconds
    ) -> RegexOutcome {
        firstMatch(in: text, options: options, budgetNanoseconds: budget, noMatch: .noMatch, gaveUp: .gaveUp) { .matched($0.range) }
    }

    /// The first match's text and its groups' (an unmatched group as ""); nil when there is no
    /// match or the budget ran out.
    public func firstMatchGroups(in text: String, budgetNanoseconds budget: UInt64 = matchBudgetNanoseconds) -> [String]? {
        firstMatch(in: text, options: [], budgetNanoseconds: budget, noMatch: nil, gaveUp: nil) { result in
            (0..<result.numberOfRanges).map { index in Range(result.range(at: index), in: text).map { String(text[$0]) } ?? "" }
        }
    }

    @inline(__always)
    private func firstMatch<Outcome>(
        in text: String, options: NSRegularExpression.MatchingOptions, budgetNanoseconds budget: UInt64,
        noMatch: Outcome, gaveUp: Outcome, _ matched: (NSTextCheckingResult) -> Outcome
    ) -> Outcome {
        let start = DispatchTime.now().uptimeNanoseconds
        var outcome = noMatch
        // Foundation on Linux declares the block escaping; it is only called during the enumeration.
        withoutActuallyEscaping(matched) { matched in
            enumerateMatches(in: text, options: options.union(.reportProgress), range: NSRange(text.startIndex..., in: text)) { result, _, stop in
                if let result {
                    outcome = matched(result)
                    stop.pointee = true
                } else if DispatchTime.now().uptimeNanoseconds &- start > budget {
                    outcome = gaveUp
                    stop.pointee = true
                }
            }
        }
        return outcome
    }
}
