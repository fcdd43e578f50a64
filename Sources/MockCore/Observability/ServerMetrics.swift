import HTTPServer
import Synchronization

/// What `GET /__admin/metrics` reports, in Prometheus' text format: requests by backend and
/// status class, their latency as a histogram, unmatched requests, the journal, the scopes, and
/// what backends report of themselves (response caches, recorders), read when asked.
/// Counted as the journal records each exchange: one array index and two relaxed atomic adds.
public final class ServerMetrics: Sendable {
    private let backendNames: [String]
    /// Upper bounds of the latency buckets, in nanoseconds (+Inf after the last).
    private static let bucketBounds: [UInt64] = [
        250_000, 500_000, 1_000_000, 2_500_000, 5_000_000, 10_000_000, 25_000_000,
        50_000_000, 100_000_000, 250_000_000, 500_000_000, 1_000_000_000, 2_500_000_000,
    ]
    /// Every counter in one block, counted without references: per backend (the router's
    /// numbering; the last: no backend) and status class, then the buckets, then the duration sum,
    /// then the contract's violations in requests and in answers.
    private let counters: Counters
    private let bucketBase: Int
    private let sumIndex: Int
    private let startedAt = MonotonicClock.nanoseconds()

    /// `backends`: the names requests are answered by, in the router's numbering.
    init(backends: [String]) {
        backendNames = backends + [""]
        bucketBase = backendNames.count * Self.classes.count
        sumIndex = bucketBase + Self.bucketBounds.count + 1
        counters = Counters(count: sumIndex + 3)
    }

    /// `1xx` … `5xx`, and `none` for a connection broken on purpose (a fault, status 0).
    private static let classes = ["none", "1xx", "2xx", "3xx", "4xx", "5xx"]

    /// Counts one exchange answered by backend number `backend` (nil: no backend).
    func record(backend: Int?, status: Int, durationNanos: UInt64) {
        let statusClass = status >= 100 && status < 600 ? status / 100 : 0
        counters.add(1, at: (backend ?? backendNames.count - 1) * Self.classes.count + statusClass)
        counters.add(1, at: bucketBase + Self.bucket(of: durationNanos))
        counters.add(Int(truncatingIfNeeded: durationNanos / 1_000), at: sumIndex)
    }

    /// Counts what an exchange broke of the API contract.
    func recordContractViolations(_ violations: [ContractViolation]) {
        for violation in violations { counters.add(1, at: sumIndex + (violation.part == .request ? 1 : 2)) }
    }

    /// The first bucket whose bound holds `nanos`; most requests take well under the first.
    private static func bucket(of nanos: UInt64) -> Int {
        guard nanos > 250_000 else { return 0 }
        var bucket = 1
        while bucket < bucketBounds.count && nanos > bucketBounds[bucket] { bucket += 1 }
        return bucket
    }

    /// The exposition text (format 0.0.4).
    func text(journal: RequestJournal, scopes: StateScopes, backends: [any Backend]) -> String {
        var lines: [String] = []
        func family(_ name: String, _ type: String, _ help: String) {
            lines.append("# HELP \(name) \(help)")
            lines.append("# TYPE \(name) \(type)")
        }
        family("understudy_http_requests_total", "counter", "Requests answered (admin calls excepted), by backend and status class.")
        var unmatched = 0
        for (index, name) in backendNames.enumerated() {
            for (offset, statusClass) in Self.classes.enumerated() {
                let count = counters.load(index * Self.classes.count + offset)
                guard count > 0 else { continue }
                if name.isEmpty { unmatched += count }
                lines.append("understudy_http_requests_total{backend=\"\(name.isEmpty ? "none" : name)\",code=\"\(statusClass)\"} \(count)")
            }
        }
        family("understudy_unmatched_requests_total", "counter", "Requests no backend or stub answered (404 with near misses).")
        lines.append("understudy_unmatched_requests_total \(unmatched)")
        family("understudy_contract_violations_total", "counter", "What requests and answers broke of the API contract (serve --openapi).")
        lines.append("understudy_contract_violations_total{in=\"request\"} \(counters.load(sumIndex + 1))")
        lines.append("understudy_contract_violations_total{in=\"response\"} \(counters.load(sumIndex + 2))")
        family("understudy_http_request_duration_seconds", "histogram", "From a request's arrival to its answer being handed to the server.")
        var cumulative = 0
        for (index, bound) in Self.bucketBounds.enumerated() {
            cumulative += counters.load(bucketBase + index)
            lines.append("understudy_http_request_duration_seconds_bucket{le=\"\(Self.seconds(bound))\"} \(cumulative)")
        }
        cumulative += counters.load(bucketBase + Self.bucketBounds.count)
        lines.append("understudy_http_request_duration_seconds_bucket{le=\"+Inf\"} \(cumulative)")
        lines.append("understudy_http_request_duration_seconds_sum \(Double(counters.load(sumIndex)) / 1e6)")
        lines.append("understudy_http_request_duration_seconds_count \(cumulative)")
        family("understudy_journal_entries", "gauge", "Requests the journal holds now.")
        lines.append("understudy_journal_entries \(journal.count)")
        family("understudy_journal_capacity", "gauge", "Most requests the journal holds (--journal-size).")
        lines.append("understudy_journal_capacity \(journal.capacity)")
        family("understudy_journal_evictions_total", "counter", "Requests dropped from the journal to make room (entries or body bytes).")
        lines.append("understudy_journal_evictions_total \(journal.evictions)")
        family("understudy_journal_body_bytes", "gauge", "Body bytes the journal holds now (a body shared by many answers counts once).")
        lines.append("understudy_journal_body_bytes \(journal.bodyBytes)")
        family("understudy_journal_body_bytes_limit", "gauge", "Most body bytes the journal holds (--journal-bytes).")
        lines.append("understudy_journal_body_bytes_limit \(journal.maxBodyBytes)")
        let reports = backends.map { ($0.name, $0.report) }
        let caches = reports.compactMap { name, report in report.cache.map { (name, $0) } }
        family("understudy_response_cache_lookups_total", "counter", "Lookups in an emulator's cache of rendered answers, by result.")
        for (name, cache) in caches {
            lines.append("understudy_response_cache_lookups_total{backend=\"\(name)\",result=\"hit\"} \(cache.hits)")
            lines.append("understudy_response_cache_lookups_total{backend=\"\(name)\",result=\"miss\"} \(cache.misses)")
        }
        family("understudy_response_cache_hit_ratio", "gauge", "Hits over lookups in an emulator's cache of rendered answers (0 before any).")
        for (name, cache) in caches {
            let lookups = cache.hits + cache.misses
            lines.append("understudy_response_cache_hit_ratio{backend=\"\(name)\"} \(lookups == 0 ? 0 : Double(cache.hits) / Double(lookups))")
        }
        let recorders = reports.compactMap { name, report in report.recorder.map { (name, $0) } }
        family("understudy_recorded_exchanges_total", "counter", "Exchanges a recorder saved as mappings.")
        for (name, recorder) in recorders { lines.append("understudy_recorded_exchanges_total{backend=\"\(name)\"} \(recorder.recorded)") }
        family("understudy_recording", "gauge", "1 while a recorder records.")
        for (name, recorder) in recorders { lines.append("understudy_recording{backend=\"\(name)\"} \(recorder.isRecording ? 1 : 0)") }
        family("understudy_open_connections", "gauge", "Client connections open now, by the port they came in on.")
        for (port, count) in OpenConnections.byListeningPort().sorted(by: { $0.key < $1.key }) {
            lines.append("understudy_open_connections{port=\"\(port)\"} \(count)")
        }
        family("understudy_scopes", "gauge", "Live state scopes, default included.")
        lines.append("understudy_scopes \(scopes.all.count)")
        family("understudy_scope_evictions_total", "counter", "Named scopes evicted to make room for new ones (--max-scopes).")
        lines.append("understudy_scope_evictions_total \(scopes.evictionsSoFar)")
        family("understudy_uptime_seconds", "gauge", "Seconds since the server started.")
        lines.append("understudy_uptime_seconds \((MonotonicClock.nanoseconds() - startedAt) / 1_000_000_000)")
        family("understudy_build_info", "gauge", "The running version.")
        lines.append("understudy_build_info{version=\"\(UnderstudyVersion.current)\"} 1")
        return lines.joined(separator: "\n") + "\n"
    }

    private static func seconds(_ nanos: UInt64) -> String {
        let value = Double(nanos) / 1e9
        return value == value.rounded() ? String(Int(value)) : String(value)
    }
}

/// A fixed block of atomic counters, for the request path: no references to retain.
private final class Counters: @unchecked Sendable {
    private let values: UnsafeMutablePointer<Atomic<Int>>
    private let count: Int

    init(count: Int) {
        self.count = count
        values = .allocate(capacity: count)
        for index in 0..<count { (values + index).initialize(to: Atomic(0)) }
    }

    deinit {
        values.deinitialize(count: count)
        values.deallocate()
    }

    @inline(__always)
    func add(_ amount: Int, at index: Int) { values[index].add(amount, ordering: .relaxed) }

    func load(_ index: Int) -> Int { values[index].load(ordering: .relaxed) }
}
