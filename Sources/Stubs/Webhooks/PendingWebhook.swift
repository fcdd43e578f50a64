import HTTPServer
import MockCore

/// One webhook from the moment its stub answered until its own answer came (or it was refused,
/// timed out or cancelled): what it holds meanwhile, so that all of it is given back once, however
/// it ends. Its mutable state is touched on its loop only; what other threads read (the mapping,
/// the scope, the loop) is fixed.
final class PendingWebhook: @unchecked Sendable {
    let id: UInt64
    /// The id of the mapping that fired it, and the scope its trigger was answered in: it is
    /// cancelled with either.
    let mapping: String
    let scope: StateScope
    let loop: EventLoop
    let stub: String
    let entry: JournalRecord?
    /// The request as rendered, and its URL before a mapped host's was pointed at this server.
    var outbound: OutboundRequest
    let renderedURL: String
    /// Bytes counted in the unsent-bytes bound while it waits or is in flight.
    var reservedBytes: Int

    /// Its delay, then its deadline from send to last byte.
    var timer: LoopTimer?
    /// The request on its way, once connected.
    var call: OutboundCall?
    /// Whether it holds one of the dispatch's connection slots (only while in flight).
    var holdsSlot = false
    /// Why it was stopped before its answer, when it was.
    var stoppedBecause: String?
    private(set) var isFinished = false

    init(
        id: UInt64, mapping: String, scope: StateScope, loop: EventLoop, stub: String, entry: JournalRecord?, outbound: OutboundRequest,
        reservedBytes: Int
    ) {
        self.id = id
        self.mapping = mapping
        self.scope = scope
        self.loop = loop
        self.stub = stub
        self.entry = entry
        self.outbound = outbound
        renderedURL = outbound.url
        self.reservedBytes = reservedBytes
    }

    /// Ends it: no timer runs for it any more and its bytes go back. True the first time only.
    func finish() -> Bool {
        guard !isFinished else { return false }
        isFinished = true
        timer?.cancel()
        timer = nil
        call = nil
        loop.releaseUnsentBytes(reservedBytes)
        reservedBytes = 0
        return true
    }
}
