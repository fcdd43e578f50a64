import HTTPServer
import JSON
import MockCore
import WorkLimits

/// GraphQL subscriptions over a WebSocket, in the `graphql-transport-ws` protocol (graphql-ws's,
/// which Apollo Kotlin, Apollo iOS and the JavaScript clients speak): `connection_init` is
/// answered `connection_ack`, `ping` `pong`; a `subscribe` is matched as a query is, by the stub
/// mappings' GraphQL matcher, against a POST of its payload to the channel's path; the stub's
/// `eventStream` events (their `data` or `jsonData`, each after its `delayMs`) go out as `next`
/// messages, or its body as the one `next`, then `complete` (unless the stream `keepOpen`s). A
/// subscription nothing answers gets an `error` message saying why; the client's `complete` stops
/// one. Protocol faults close the channel with the protocol's codes (4400, 4401, 4409, 4429).
/// Every message in and out is journaled as other channels' messages are. Lives on the channel's
/// loop.
final class GraphQLSubscriptionSession {
    static let subprotocol = "graphql-transport-ws"

    private let open: MessageStubs.OpenChannel
    private weak var stubs: MessageStubs?
    private var acknowledged = false
    /// The timers of each running subscription, by its id.
    private var running: [String: [LoopTimer]] = [:]

    init(_ open: MessageStubs.OpenChannel, stubs: MessageStubs) {
        self.open = open
        self.stubs = stubs
    }

    func received(_ text: String) {
        stubs?.record(MessageEvent(type: .received, channel: open, message: text, stub: nil))
        guard let message = try? JSONValue.parse(text), let type = message["type"]?.stringValue else {
            return open.channel.close(code: 4400, reason: "Invalid message received")
        }
        switch type {
        case "connection_init":
            guard !acknowledged else { return open.channel.close(code: 4429, reason: "Too many initialisation requests") }
            acknowledged = true
            reply(.object([("type", "connection_ack")]))
        case "ping": reply(.object([("type", "pong")]))
        case "pong": break
        case "subscribe": subscribe(message)
        case "complete":
            guard let id = message["id"]?.stringValue else { return open.channel.close(code: 4400, reason: "Invalid message received") }
            stop(id)
        default: open.channel.close(code: 4400, reason: "Invalid message received")
        }
    }

    /// The channel closed: its subscriptions send nothing more.
    func closed() {
        for id in Array(running.keys) { stop(id) }
    }

    private func subscribe(_ message: JSONValue) {
        guard acknowledged else { return open.channel.close(code: 4401, reason: "Unauthorized") }
        guard let id = message["id"]?.stringValue, !id.isEmpty, let payload = message["payload"], payload.objectValue != nil else {
            return open.channel.close(code: 4400, reason: "Invalid message received")
        }
        guard running[id] == nil else { return open.channel.close(code: 4409, reason: "Subscriber for \(id) already exists") }
        // The payload as the POST a query would be, to the channel's path, with its headers.
        var headers = open.request.headers
        headers.set("Content-Type", "application/json")
        let request = Request(method: .post, target: open.request.path, headers: headers, body: Array(payload.serialized.utf8))
        let mapping = RequestBudget.run { stubs?.httpStubs?.mappings(in: open.scope).first { $0.request.evaluate(request).matched } }
        guard let mapping else {
            let name = payload["operationName"]?.stringValue.map { "`\($0)`" } ?? "(unnamed)"
            let reason =
                "no stub answers subscription \(name) on \(open.request.path) (a mapping with the graphql-body-matcher for it, and an eventStream)"
            return reply(.object([("id", .string(id)), ("type", "error"), ("payload", .array([.object([("message", .string(reason))])]))]))
        }
        var results: [(delay: Duration, data: String)] = []
        if let stream = mapping.response.eventStream {
            results = stream.events.compactMap { event in event.data.map { (event.delay, $0) } }
        } else {
            results = [(.zero, String(decoding: mapping.response.response.body.bytes, as: UTF8.self))]
        }
        let keepsOpen = mapping.response.eventStream?.keepsOpen ?? false
        var timers: [LoopTimer] = []
        var at = Duration.zero
        for (index, result) in results.enumerated() {
            at += result.delay
            let last = index == results.count - 1
            let payload =
                (try? JSONValue.parse(result.data)) ?? .object([("errors", .array([.object([("message", .string("the stub's data is not JSON"))])]))])
            timers.append(
                schedule(after: at) { [weak self] in
                    self?.send(.object([("id", .string(id)), ("type", "next"), ("payload", payload)]), stub: mapping.json)
                    if last && !keepsOpen { self?.finish(id) }
                })
        }
        if results.isEmpty && !keepsOpen { timers.append(schedule(after: .zero) { [weak self] in self?.finish(id) }) }
        running[id] = timers
    }

    /// The server's `complete`: the subscription has no more results.
    private func finish(_ id: String) {
        guard running.removeValue(forKey: id) != nil else { return }
        send(.object([("id", .string(id)), ("type", "complete")]))
    }

    private func stop(_ id: String) {
        for timer in running.removeValue(forKey: id) ?? [] { timer.cancel() }
    }

    /// After the scope's simulated latency too, as every message of a channel.
    private func schedule(after delay: Duration, _ body: @escaping () -> Void) -> LoopTimer {
        let latency = open.scope.networkConditions.map { Duration.milliseconds($0.latencyMs) } ?? .zero
        return open.channel.loop.schedule(after: delay + latency, body)
    }

    /// An answer to the client's message, after the scope's latency.
    private func reply(_ message: JSONValue) {
        _ = schedule(after: .zero) { [weak self] in self?.send(message) }
    }

    private func send(_ message: JSONValue, stub: JSONValue? = nil) {
        let text = message.serialized
        open.channel.send(text: text)
        stubs?.record(MessageEvent(type: .sent, channel: open, message: text, stub: stub))
    }
}
