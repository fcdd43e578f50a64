// Module Recording: record real backends through Understudy as stub mappings (a proxy that
// saves what the upstream answered, with redaction and scenarios), and import HAR files the same
// way. Recordings are ordinary stub packs under stubs/recorded/, replayed by a StubEngine.

import Dispatch
import Foundation
import HTTPServer
import JSON
import Logging
import MockCore
import Synchronization

/// Where requests are forwarded: every path, or those under a prefix.
public struct RecordingTarget: Sendable, Equatable {
    /// `""` for every path, else e.g. `/geo` (forwarded without it).
    public var prefix: String
    /// `http://host[:port][/base]`; empty for `requestedHost`.
    public var baseURL: String

    /// Each proxied request to the real host it was for (`record --proxy`: a device's session).
    public static let requestedHost = RecordingTarget(prefix: "", baseURL: "")

    public init(prefix: String = "", baseURL: String) {
        self.prefix = prefix
        self.baseURL = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
    }

    /// `URL` or `/prefix=URL`, as the command line takes it.
    public init?(argument: String) {
        if argument.hasPrefix("/"), let equals = argument.firstIndex(of: "=") {
            self.init(prefix: String(argument[..<equals]), baseURL: String(argument[argument.index(after: equals)...]))
        } else {
            self.init(baseURL: argument)
        }
        guard baseURL.lowercased().hasPrefix("http://") || baseURL.lowercased().hasPrefix("https://") else { return nil }
    }
}

/// The recording proxy: while a recording runs, every request it is asked (after user stubs;
/// in capture-or-replay mode, only what nothing else answers) goes to the target through the loop's
/// non-blocking client; the answer is saved, then returned to the client as it came. An upstream
/// that refuses or fails answers 502, one that does not answer in time 504; nothing is saved then.
public final class RecordingProxy: Backend, ChannelRecorder {
    public let name: String
    public let mounts = ["/"]
    /// `.recordings` to record everything; `.fallback` to forward only what nothing else answers.
    public let tier: BackendTier

    /// A recording in progress (or the last one, stopped).
    private struct Session {
        var targets: [RecordingTarget]
        var store: RecordingStore
        var active: Bool
    }

    private let session = Locked<Session?>(nil)
    /// Whether a recording runs, read without the lock: `serve` asks this backend about every
    /// request no user stub answers, recording or not.
    private let recording = Atomic<Bool>(false)
    /// Files are written here, off the event loops.
    private let writer = DispatchQueue(label: "understudy.recorder")
    private let timeout: Duration
    private let tls: TLSClientSettings
    private let logger: Logger
    /// Upstream failures, one per request a client sends.
    private let failures = LogThrottle { count, seconds in "recording: \(count) more request(s) could not be recorded in the last \(seconds) s" }
    /// A large answer kept in memory because its temporary file failed is said once, not per
    /// request: a full disk stays full.
    private let spillFailureLogged = Atomic<Bool>(false)
    /// Exchanges saved (the files written) since the server started, for the metrics.
    private let savedCount = Atomic(0)

    public init(
        name: String = "recorder", tier: BackendTier = .recordings, timeout: Duration = .seconds(30),
        tls: TLSClientSettings = TLSClientSettings(), logger: Logger = Logger(label: "understudy")
    ) {
        self.name = name
        self.tier = tier
        self.timeout = timeout
        self.tls = tls
        self.logger = logger
    }

    /// Starts recording to `store`; a recording already running is replaced.
    public func start(targets: [RecordingTarget], store: RecordingStore) {
        session.withLock { session in
            session = Session(targets: targets.sorted { $0.prefix.count > $1.prefix.count }, store: store, active: true)
            recording.store(true, ordering: .releasing)
        }
    }

    /// Stops recording: the mappings recorded, or nil when none was running.
    @discardableResult
    public func stop() -> [JSONValue]? {
        let stopped = session.withLock { session -> RecordingStore? in
            guard session?.active == true else { return nil }
            session?.active = false
            recording.store(false, ordering: .releasing)
            return session?.store
        }
        // Made outside the lock: every request of every loop asks for it.
        return stopped?.mappings
    }

    public enum Status: String, Sendable { case recording = "Recording", stopped = "Stopped", neverStarted = "NeverStarted" }

    public var status: Status {
        session.withLock { $0.map { $0.active ? .recording : .stopped } ?? .neverStarted }
    }

    public var report: BackendReport {
        BackendReport(recorder: .init(isRecording: recording.load(ordering: .relaxed), recorded: savedCount.load(ordering: .relaxed)))
    }

    /// The mappings of the current (or last) recording so far.
    public var snapshot: [JSONValue] {
        session.withLock { $0?.store }?.mappings ?? []
    }

    /// Where `request` goes while recording: the target's base URL, the target after its prefix,
    /// and the store; nil when nothing is recorded for it.
    private func destination(of request: Request) -> (baseURL: String, forwarded: String, store: RecordingStore)? {
        guard recording.load(ordering: .acquiring) else { return nil }
        guard
            let (target, store) = session.withLock({ session -> (RecordingTarget, RecordingStore)? in
                guard let session, session.active else { return nil }
                // A device's request for a real host goes there when that is recorded; others by prefix.
                if request.isProxied, session.targets.contains(.requestedHost) { return (.requestedHost, session.store) }
                guard
                    let target = session.targets.first(where: {
                        $0 != .requestedHost && ($0.prefix.isEmpty || request.path == $0.prefix || request.path.hasPrefix($0.prefix + "/"))
                    })
                else { return nil }
                return (target, session.store)
            })
        else { return nil }
        var baseURL = target.baseURL
        if target == .requestedHost {
            guard let (host, port) = request.requestedHost else { return nil }
            let defaultPort = request.isSecure ? 443 : 80
            let authority = (host.contains(":") ? "[\(host)]" : host) + (port == defaultPort ? "" : ":\(port)")
            baseURL = "\(request.scheme)://\(authority)"
        }
        return (baseURL, String(request.target.dropFirst(target.prefix.count)), store)
    }

    /// While recording (the recorder, not the fallback proxy, which forwards only what nothing
    /// answers and the message stubs answer every WebSocket): the channel is relayed to the target
    /// (`http` → `ws`, `https` → `wss`) and its messages, with their times, are saved as message
    /// mappings when it closes.
    public func recordingChannel(for request: Request) -> ((WebSocketChannel) -> Void)? {
        guard tier == .recordings, let (baseURL, forwarded, store) = destination(of: request) else { return nil }
        let url = (baseURL.hasPrefix("https") ? "wss" : "ws") + baseURL.drop { $0 != ":" } + (forwarded.hasPrefix("/") ? "" : "/") + forwarded
        guard let upstream = WebSocketClient.Target(url) else { return nil }
        let headers = WebSocketRelay.forwardedHeaders(request.headers)
        let (path, tls, writer, logger, name) = (request.path, tls, writer, logger, name)
        return { channel in
            var transcript = RecordedChannel(path: path, openedAt: Self.seconds(), messages: [])
            var saved = false
            WebSocketRelay.open(channel, to: upstream, headers: headers, tls: tls) { event, fromClient in
                switch event {
                case .text(let text):
                    transcript.messages.append(.init(fromClient: fromClient, seconds: Self.seconds(), bytes: Array(text.utf8), isBinary: false))
                case .binary(let bytes):
                    transcript.messages.append(.init(fromClient: fromClient, seconds: Self.seconds(), bytes: bytes, isBinary: true))
                case .close:
                    guard !saved, !transcript.messages.isEmpty else { return }
                    saved = true
                    let session = transcript
                    writer.async {
                        do {
                            let file = try store.record(session)
                            logger.info("\(name): WebSocket \(path) saved as \(file)")
                        } catch {
                            logger.warning("\(name): WebSocket \(path) not saved: \(error)")
                        }
                    }
                default: break
                }
            }
        }
    }

    private static func seconds() -> Double { Double(MonotonicClock.nanoseconds()) / 1e9 }

    public func handle(_ request: Request, _ context: RequestContext) -> Reply {
        guard let (baseURL, forwardedTarget, store) = destination(of: request) else { return .decline }
        let source = baseURL
        var outbound = OutboundRequest(
            method: request.method, url: baseURL + (forwardedTarget.hasPrefix("/") ? "" : "/") + forwardedTarget,
            headers: Self.forwardedHeaders(request.headers), body: request.body, timeout: timeout)
        outbound.tls = tls
        outbound.largeBodyThreshold = store.options.largeBodyThreshold
        outbound.onSpillFailure = { [self] reason in
            guard !spillFailureLogged.exchange(true, ordering: .relaxed) else { return }
            logger.warning("\(name): large answers are held in memory: \(reason)")
        }
        return .deferred { [self] reply in
            reply.loop.send(outbound) { result in
                switch result {
                case .failure(let error):
                    for line in self.failures.lines({
                        "\(self.name): \(request.method.rawValue) \(LogText.escaped(request.target)): \(error); nothing recorded"
                    }) {
                        self.logger.warning("\(line)")
                    }
                    let status = if case .timedOut = error { 504 } else { 502 }
                    reply.send(
                        .text(
                            "Understudy could not record \(request.method.rawValue) \(request.target): \(error). Nothing was saved.\n", status: status
                        ))
                case .success(let response):
                    let exchange = RecordedExchange(request, response, source: source)
                    let answer = Self.returned(response)
                    if store.hasRecorded(exchange) { return reply.send(answer) }
                    // Saved before the answer goes back: a client that replays at once finds it.
                    reply.compute(on: self.writer) {
                        do {
                            let names = try store.record(exchange)
                            self.savedCount.add(1, ordering: .relaxed)
                            for name in names {
                                self.logger.info("\(self.name): \(request.method.rawValue) \(request.path) saved as \(name)")
                            }
                        } catch {
                            self.logger.warning("\(self.name): cannot save \(request.method.rawValue) \(request.target): \(error)")
                        }
                        return answer
                    }
                }
            }
        }
    }

    /// Hop-by-hop fields stay here; the client's others go on (Host is the target's), with
    /// `Accept-Encoding` narrowed to the codings a recording can decode.
    static func forwardedHeaders(_ headers: HTTPHeaders) -> HTTPHeaders {
        var forwarded = headers.withoutHopByHop
        if let accepted = headers["Accept-Encoding"] {
            forwarded.remove("Accept-Encoding")
            if let decodable = ContentDecoding.decodable(acceptEncoding: accepted) { forwarded.add("Accept-Encoding", decodable) }
        }
        return forwarded
    }

    /// The upstream's answer as the client gets it: as sent, without its framing fields (the
    /// server writes its own Content-Length and Date).
    static func returned(_ response: Response) -> Response {
        var answer = response
        for name in ["Connection", "Keep-Alive", "Transfer-Encoding", "Content-Length"] { answer.headers.remove(name) }
        return answer
    }
}
