import HTTPServer
import JSON
import MockCore

/// Journal queries over every scope (`?scope=*`) gathered from every replica: a team server's
/// scopes live on different replicas, so one replica's journal is only its part. Each entry is
/// marked with its replica (`"node"`); counts are summed.
extension FleetPeers {
    /// Whether `request` is a journal query over every scope, not itself a peer's.
    func gathers(_ request: Request) -> Bool {
        guard request.rawQuery != nil, !PeerCall.isForwarded(request), request.query("scope") == "*" else { return false }
        switch (request.method, request.path) {
        case (.get, "/__admin/requests"), (.get, "/__admin/requests/unmatched"), (.post, "/__admin/requests/count"),
            (.post, "/__admin/requests/find"):
            return !peers.isEmpty
        default:
            return false
        }
    }

    /// Asks every peer the query this replica has answered with `local`; `done` gets the whole
    /// fleet's answer (peers that failed named in `X-Understudy-Peers-Failed`), on `loop`.
    func gather(_ request: Request, answered local: Response, on loop: EventLoop, done: @escaping (Response) -> Void) {
        guard local.status == 200, let mine = try? JSONValue.parse(local.body.bytes) else { return done(local) }
        let newestFirst = request.path == "/__admin/requests"
        let limit = newestFirst ? request.query("limit").flatMap(Int.init) : nil
        ask(peers, request.method, request.target, body: request.body, contentType: request.headers["Content-Type"], on: loop) { [selfURL] answers in
            var parts = [(node: selfURL, body: mine)]
            var failed: [String] = []
            for answer in answers {
                if let response = answer.response, answer.failure == nil, let body = try? JSONValue.parse(response.body.bytes) {
                    parts.append((answer.peer, body))
                } else {
                    failed.append("\(answer.peer) (\(answer.failure ?? "not JSON"))")
                }
            }
            var response = Response.json(Self.merged(parts, newestFirst: newestFirst, limit: limit).serialized)
            if !failed.isEmpty { response.headers.set(Self.failedHeader, failed.joined(separator: ", ")) }
            done(response)
        }
    }

    /// One answer of the replicas' answers: `count` and `meta.total` summed, `requests` put
    /// together in time order (newest first for the journal's listing, as each replica lists it),
    /// each marked with its replica; the other fields as the first answer has them.
    static func merged(_ parts: [(node: String, body: JSONValue)], newestFirst: Bool, limit: Int?) -> JSONValue {
        guard case .object(let first)? = parts.first?.body else { return parts.first?.body ?? .null }
        var entries: [(date: Double, entry: JSONValue)] = []
        for part in parts {
            for entry in part.body["requests"]?.arrayValue ?? [] {
                guard case .object(let fields) = entry else { continue }
                let date = (entry["request"]?["loggedDate"] ?? entry["loggedDate"])?.doubleValue ?? 0
                entries.append((date, .object(fields + [("node", .string(part.node))])))
            }
        }
        // Stable: a replica's own order stands among entries of the same millisecond.
        let ordered = entries.enumerated().sorted { a, b in
            a.element.date != b.element.date ? (a.element.date > b.element.date) == newestFirst : a.offset < b.offset
        }.map(\.element.entry)
        func sum(_ read: (JSONValue) -> JSONValue?) -> Int { parts.reduce(0) { $0 + (read($1.body)?.intValue ?? 0) } }
        return .object(
            first.map { name, value in
                switch name {
                case "requests": (name, .array(Array(ordered.prefix(limit ?? ordered.count))))
                case "count": (name, .int(sum { $0["count"] }))
                case "meta": (name, .object([("total", .int(sum { $0["meta"]?["total"] }))]))
                default: (name, value)
                }
            })
    }
}
