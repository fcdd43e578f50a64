import Dispatch
import HTTPServer
import JSON

/// A reply a backend sends later, on the same loop. Journals the exchange when sent.
public final class DeferredReply {
    private let responder: Responder
    /// Journals the exchange; nil for an admin call, which is not journaled.
    private let completion: (Response) -> JournalRecord?
    private var afterSent: [(JournalRecord?) -> Void] = []

    init(responder: Responder, completion: @escaping (Response) -> JournalRecord?) {
        self.responder = responder
        self.completion = completion
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
    public var loop: EventLoop { responder.loop }

    /// Whether the client closed its connection while the reply waits (a long-poll's client gone).
    public var clientHasGone: Bool { responder.clientHasGone }

    /// Whether the exchange is still to be finished: the responder waits for its answer, or its
    /// client left meanwhile and the answer, when it comes, is journaled without being sent (as
    /// a write to the closed socket would have gone nowhere), so that verifying what the app sent
    /// still finds a request it gave up waiting for.
    private var isOpen: Bool {
        !finished && (responder.isPending || responder.clientLeft)
    }
    private var finished = false

    /// Sends the reply; later calls are ignored.
    public func send(_ response: Response) {
        guard isOpen else { return }
        finished = true
        let entry = completion(response)
        responder.send(response)
        sent(entry)
    }

    /// Sends `response` in `chunks` pieces spread over `duration` (chunked encoding).
    public func sendDribbled(_ response: Response, chunks: Int, over duration: Duration) {
        guard isOpen else { return }
        finished = true
        let entry = completion(response)
        responder.sendDribbled(response, chunks: chunks, over: duration)
        sent(entry)
    }

    /// Sends `head` (journaled as the answer) and returns the stream its body goes out on; nil
    /// when the client has gone.
    public func startStream(_ head: Response) -> ResponseStream? {
        guard isOpen else { return nil }
        finished = true
        let entry = completion(head)
        let stream = responder.startStream(head)
        sent(entry)
        return stream
    }

    /// Breaks the connection instead of answering; journaled with status 0 (no response).
    public func fail(with fault: ConnectionFault) {
        guard isOpen else { return }
        finished = true
        let entry = completion(Response(status: 0))
        responder.fail(with: fault)
        sent(entry)
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
