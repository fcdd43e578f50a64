import HTTPServer
import MockCore

/// Requests per second and per day for each caller, to answer `OVER_QUERY_LIMIT` as Google does
/// when an app goes too fast. The per-second count is a one-second window; the per-day count runs
/// from start or the last `POST /__admin/reset`; both per scope. Thread-safe.
final class RateLimiter: Sendable {
    private struct Counters: Sendable {
        var windows: [String: (second: UInt64, count: Int)] = [:]
        var days: [String: Int] = [:]
    }

    enum Verdict: Equatable {
        case allowed
        case overRate
        case overDailyQuota
    }

    private let counters = ScopeKey { _ in
        ScopedValue {
            Counters()
        } measure: {
            $0.days.count * 96
        }
    }

    func admit(
        _ caller: String, perSecond: Int?, perDay: Int?, scope: StateScope,
        now: UInt64 = MonotonicClock.nanoseconds()
    ) -> Verdict {
        guard perSecond != nil || perDay != nil else { return .allowed }
        return scope[counters].withValue { counters in
            if let perDay {
                guard counters.days[caller, default: 0] < perDay else { return .overDailyQuota }
            }
            if let perSecond {
                let second = now / 1_000_000_000
                var window = counters.windows[caller] ?? (second, 0)
                if window.second != second { window = (second, 0) }
                guard window.count < perSecond else { return .overRate }
                window.count += 1
                counters.windows[caller] = window
            }
            counters.days[caller, default: 0] += 1
            return .allowed
        }
    }
}
