import Dispatch
import HTTPServer
import JSON

/// A reply a backend sends later, on the same loop. Journals the exchange when sent.
public final class DeferredReply {
    /// Where the answer goes: a client's connection, or the caller of an admin call made inside
    /// the server (an MCP tool), which gets the response itself.
    private enum Destination {
        case responder(Responder)
        case caller(loop: EventLoop, hasGone: () -> Bool, take: (Response) -> Void)
    }

    private let destination: Destination
    /// Journals the exchange and gives the answer to send (the same, or what replaces it: hard
    /// contract enforcement's 502); no record for an admin call, which is not journaled.
    private let completion: (Response) -> (Response, JournalRecord?)
    private var afterSent: [(JournalRecord?) -> Void] = []

    init(responder: Responder, completion: @escaping (Response) -> (Response, JournalRecord?)) {
        destination = .responder(responder)
        self.completion = completion
    }

    /// A reply handed to `take` on `loop` (streams and dribbles arrive whole, a broken connection
    /// as status 0); `hasGone` says whether whoever waits for it has left.
    init(callerOn loop: EventLoop, hasGone: @escaping () -> Bool, take: @escaping (Response) -> Void) {
        destination = .caller(loop: loop, hasGone: hasGone, take: take)
        completion = { ($0, nil) }
    }

    /// Runs `action` on the loop once the answer has gone out (or the connection was broken
    /// instead), with the journal's entry for it: what a webhook fires from.
    public func afterSending(_ action: @escaping (JournalRecord?) -> Void) {
        afterSent.append(action)
    }

    private func sent(_ entry: JournalRecord?) {
        let actions = afterSent
        afterSent = []
        for action in actions { action(entry) }
    }

    /// The loop to schedule on (timers, outbound requests).
    public var loop: EventLoop {
        switch destination {
        case .responder(let responder): responder.loop
        case .caller(let loop, _, _): loop
        }
    }

    /// Whether the client closed its connection while the reply waits (a long-poll's client gone).
    public var clientHasGone: Bool {
        switch destination {
        case .responder(let responder): responder.clientHasGone
        case .caller(_, let hasGone, _): hasGone()
        }
    }

    /// Whether the exchange is still to be finished: the responder waits for its answer, or its
    /// client left meanwhile and the answer, when it comes, is journaled without being sent (as
    /// a write to the closed socket would have gone nowhere), so that verifying what the app sent
    /// still finds a request it gave up waiting for.
    private var isOpen: Bool {
        guard !finished else { return false }
        switch destination {
        case .responder(let responder): return responder.isPending || responder.clientLeft
        case .caller: return true
        }
    }
    private var finished = false

    /// Marks the reply finished and journals `response`; then `deliver` sends the answer (the
    /// journal's: `response` or what replaced it) to a client, or the caller takes it as it is.
    private func finish(_ response: Response, _ deliver: (Responder, Response) -> Void) {
        finished = true
        let (answer, entry) = completion(response)
        switch destination {
        case .responder(let responder): deliver(responder, answer)
        case .caller(_, _, let take): take(answer)
        }
        sent(entry)
    }

    /// Sends the reply; later calls are ignored.
    public func send(_ response: Response) {
        guard isOpen else { return }
        finish(response) { $0.send($1) }
    }

    /// Sends `response` in `chunks` pieces spread over `duration` (chunked encoding).
    public func sendDribbled(_ response: Response, chunks: Int, over duration: Duration) {
        guard isOpen else { return }
        finish(response) { $0.sendDribbled($1, chunks: chunks, over: duration) }
    }

    /// Sends `head` (journaled as the answer) and returns the stream its body goes out on; nil
    /// when the client has gone, or for a caller inside the server (it takes `head` alone). A
    /// stream's head is sent as it is: what it streams is its own.
    public func startStream(_ head: Response) -> ResponseStream? {
        guard isOpen else { return nil }
        var stream: ResponseStream?
        finish(head) { responder, _ in stream = responder.startStream(head) }
        return stream
    }

    /// Breaks the connection instead of answering; journaled with status 0 (no response).
    public func fail(with fault: ConnectionFault) {
        guard isOpen else { return }
        finish(Response(status: 0)) { responder, _ in responder.fail(with: fault) }
    }

    /// Sends `response` after `delay`, without blocking the loop.
    public func send(_ response: Response, after delay: Duration) {
        loop.schedule(after: delay) { self.send(response) }
    }
}

@available(*, unavailable)
extension DeferredReply: Sendable {}

/// An exchange the journal holds, for what happens after its answer (a webhook's sub-events).
public struct JournalRecord: Sendable {
    public let entry: JournalEntry
    let journal: RequestJournal

    public func append(subEvent type: String, _ data: JSONValue) {
        journal.append(subEvent: type, data, to: entry)
    }
}

extension Reply {
    /// The answer is computed by `work` on `queue`, off the event loop (it may take longer than
    /// a handler should: a SQL statement, a file), and sent on the request's own loop.
    public static func computed(on queue: DispatchQueue, _ work: @escaping @Sendable () -> Response) -> Reply {
        .deferred { reply in reply.compute(on: queue, work) }
    }
}

extension DeferredReply {
    /// Computes the answer on `queue`, off the event loop, and sends it on this reply's loop.
    public func compute(on queue: DispatchQueue, _ work: @escaping @Sendable () -> Response) {
        // The reply goes through the queue untouched and is used again only on its own loop.
        let pending = UnsafeTransfer(self)
        let loop = self.loop
        queue.async {
            let response = work()
            // A loop that has ended (the server stopped meanwhile) takes no more work: the reply
            // must then not be released here, where its responder would touch libevent off its
            // loop. It is kept until the process exits.
            if !loop.execute({ pending.wrappedValue.send(response) }) { _ = Unmanaged.passRetained(pending.wrappedValue) }
        }
    }
}
