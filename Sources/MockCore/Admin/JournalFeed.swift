import HTTPServer
import JSON

/// `GET /__admin/requests/live?after=N`: the journal followed live by long-polling, for the
/// dashboard and `understudy tail`. An answer lists the entries after sequence `after` (oldest
/// first) and the sequence to ask after next; with none yet, the reply waits up to `timeout`
/// seconds. The wait is a timer on the request's own loop that reads one atomic per tick, so
/// recording a request does nothing more for its followers.
struct JournalFeed {
    let journal: RequestJournal

    /// How often a waiting reply looks for new entries.
    static let tick = Duration.milliseconds(100)
    static let defaultTimeout = 25
    static let maxTimeout = 60
    static let defaultLimit = 200

    func reply(to request: Request, in scope: StateScope?) -> Reply {
        guard let parameters = Parameters(request) else {
            return .response(
                .json(
                    JSONValue.object([
                        (
                            "message",
                            .string(
                                "after, timeout and limit are whole numbers (after ≥ 0, timeout 0…\(Self.maxTimeout), limit 1…\(journal.capacity))")
                        )
                    ]).serialized,
                    status: 400))
        }
        let (entries, newest) = journal.entries(after: parameters.after, in: scope, limit: parameters.limit)
        if !entries.isEmpty || parameters.timeout == 0 { return .response(answer(entries, next: newest)) }
        let deadline = MonotonicClock.nanoseconds() + UInt64(parameters.timeout) * 1_000_000_000
        return .deferred { reply in self.wait(reply, after: newest, in: scope, limit: parameters.limit, until: deadline) }
    }

    private func wait(_ reply: DeferredReply, after: UInt64, in scope: StateScope?, limit: Int, until deadline: UInt64) {
        var cursor = after
        if journal.latestSequence > cursor {
            let (entries, newest) = journal.entries(after: cursor, in: scope, limit: limit)
            if !entries.isEmpty { return reply.send(answer(entries, next: newest)) }
            cursor = newest  // only other scopes' entries: not looked at again
        }
        // A client gone is answered at once: writing to its closed socket frees the connection, so a
        // closed follower does not hold a descriptor until its timeout.
        guard MonotonicClock.nanoseconds() < deadline, !reply.loop.isDraining, !reply.clientHasGone else {
            return reply.send(answer([], next: cursor))
        }
        reply.loop.schedule(after: Self.tick) { [cursor] in self.wait(reply, after: cursor, in: scope, limit: limit, until: deadline) }
    }

    private func answer(_ entries: [JournalEntry], next: UInt64) -> Response {
        .json(
            JSONValue.object([
                ("requests", .array(entries.map { $0.summaryJSON() })),
                ("next", .int(Int(clamping: next))),
            ]).serialized)
    }

    private struct Parameters {
        var after: UInt64 = 0
        var timeout = JournalFeed.defaultTimeout
        var limit = JournalFeed.defaultLimit

        init?(_ request: Request) {
            if let value = request.query("after") {
                guard let after = UInt64(value) else { return nil }
                self.after = after
            }
            if let value = request.query("timeout") {
                guard let timeout = Int(value), (0...JournalFeed.maxTimeout).contains(timeout) else { return nil }
                self.timeout = timeout
            }
            if let value = request.query("limit") {
                guard let limit = Int(value), limit >= 1 else { return nil }
                self.limit = limit
            }
        }
    }
}

extension JournalEntry {
    /// One line of the live list: who asked what, and who answered how.
    func summaryJSON() -> JSONValue {
        .object(
            [
                ("id", .string(id)),
                ("sequence", .int(Int(clamping: sequence))),
                ("method", .string(request.method.rawValue)),
                ("url", .string(request.target)),
                ("status", .int(status)),
                ("servedBy", backend.map(JSONValue.string) ?? .null),
                ("scope", .string(scope.name)),
                ("loggedDate", .int(Int(loggedAt * 1000))),
                ("totalTimeMicros", .int(Int(clamping: durationNanos / 1_000))),
            ] + (violations.isEmpty ? [] : [("violations", .int(violations.count))]))
    }
}
