import Foundation
import HTTPServer
import JSON
import Logging
import MockCore
import Synchronization
import Templating
import WorkLimits

/// WebSocket message stubs, as WireMock 4 has them: every WebSocket a client opens (on any path
/// outside the admin API) is a channel of the scope that opened it; a message that comes on it is
/// matched against the message mappings (the scope's own, then the shared ones: lowest priority
/// number first, then the latest added), and the first that matches sends its messages. Mappings
/// load from `message-mappings/` beside `mappings/` and come and go through the admin API
/// (`MessageStubsAdmin`); every message in and out is journaled per scope.
public final class MessageStubs: ChannelHost, AdminRoutesProvider {
    public let name = "messages"
    let directory: StubDirectory
    let logger: Logger
    /// Messages the journal keeps (oldest go first).
    let journalCapacity: Int
    /// Bytes of message text the journal keeps (oldest go first): a chat flooding the server with
    /// large messages must not take its memory.
    let journalBytes: Int
    /// Channels open at once, across scopes (`--max-channels`).
    let maxChannels: Int
    /// The user's stubs, for an `http-stub` trigger's question: which stub answered?
    let httpStubs: StubEngine?
    /// Some mapping has an `http-stub` or `http-request` trigger.
    private let httpTriggers = Atomic(false)
    /// Moves after every change to the mappings: a channel's `answering` list is taken again.
    private let generation = Atomic<UInt64>(0)
    let state = Mutex(State())

    struct State {
        /// The files' mappings and those the `default` scope added: every scope's.
        var shared: [MessageStubMapping] = []
        /// Mappings a named scope added: its own.
        var own: [String: [MessageStubMapping]] = [:]
        var insertions = 0
        var channels: [String: OpenChannel] = [:]
        var journal = MessageJournal()
        /// The last serial a journaled message got (`MessageEvent.serial`).
        var serials: UInt64 = 0
    }

    /// A channel and what opened it; events of the channel share it (a reference, not a copy of
    /// the request each).
    final class OpenChannel: @unchecked Sendable {
        let id = UUID().uuidString.lowercased()
        let scope: StateScope
        let request: Request
        let openedAt = MonotonicClock.wallSeconds()
        /// The loop's own: used there only (`loop.execute` from elsewhere).
        let channel: WebSocketChannel
        private let madeModel = Mutex<TemplateValue?>(nil)
        /// The message mappings that may answer on this channel, in the order tried: those of its
        /// scope whose `channel` pattern matches its opening request (which never changes, so
        /// each message tests only bodies), as of the mappings' `generation`. Taken at the first
        /// message (an idle channel holds none); the channel's loop's own.
        var answering: (generation: UInt64, candidates: [Candidate])?

        init(scope: StateScope, request: Request, channel: WebSocketChannel) {
            self.scope = scope
            self.request = request
            self.channel = channel
        }

        /// The opening request as templates see it (`request.path`…): made at the first message
        /// that needs it, then kept (an idle channel does not hold one).
        var model: TemplateValue {
            madeModel.withLock { made in
                if let made { return made }
                let model = ResponseTemplating.requestModel(request)
                made = model
                return model
            }
        }
    }

    /// A mapping that may answer on a channel: what a message is matched and answered with (not
    /// the whole mapping, which costs more to copy).
    struct Candidate {
        let body: ContentPattern?
        let actions: [MessageStubMapping.SendAction]
        let json: JSONValue
    }

    public init(
        directory: StubDirectory, httpStubs: StubEngine? = nil, journalCapacity: Int = 10_000, journalBytes: Int = 16 << 20,
        maxChannels: Int = 10_000, logger: Logger = Logger(label: "understudy")
    ) {
        self.directory = directory
        self.httpStubs = httpStubs
        self.journalCapacity = journalCapacity
        self.journalBytes = journalBytes
        self.maxChannels = maxChannels
        self.logger = logger
        reloadFiles()
    }

    public var adminRoutes: [AdminRoute] { MessageStubsAdmin.endpoints.routes(servedBy: MessageStubsAdmin(stubs: self)) }

    /// The admin routes, listed (`understudy admin-routes`).
    public static var listedRoutes: [AdminRoute] { MessageStubsAdmin.endpoints.listing() }

    public var report: BackendReport {
        let (mappings, channels) = state.withLock { ($0.shared.count + $0.own.values.reduce(0) { $0 + $1.count }, $0.channels.count) }
        return BackendReport(fixtures: [("message mappings", mappings), ("open channels", channels)])
    }

    // MARK: Files

    /// `message-mappings/` as it is now: the files' mappings replaced (problems logged, a bad
    /// file's mappings left out), those added through the API kept.
    public func reloadFiles() {
        let (loaded, problems) = Self.loadFiles(in: directory)
        for problem in problems { logger.warning("\(problem)") }
        state.withLock { state in
            state.shared.removeAll(where: \.fromFile)
            for var mapping in loaded {
                state.insertions += 1
                mapping.insertion = state.insertions
                mapping.fromFile = true
                Self.insert(mapping, into: &state.shared)
            }
        }
        noteHTTPTriggers()
    }

    /// The folders hot reload watches: `message-mappings/` and the recorded packs.
    public var watchedFolders: [URL] {
        [directory.root.appendingPathComponent(Self.filesFolderName), directory.root.appendingPathComponent("recorded")]
    }

    static let filesFolderName = "message-mappings"

    /// `message-mappings/**/*.json`: one mapping a file, or `{"messageMappings": […]}`.
    /// The stubs folder's own, then each recorded pack's (`recorded/<pack>/message-mappings/`, which
    /// recording and `import-har` write).
    static func loadFiles(in directory: StubDirectory) -> ([MessageStubMapping], [StubError]) {
        let recorded = directory.root.appendingPathComponent("recorded")
        let packs = ((try? FileManager.default.contentsOfDirectory(atPath: recorded.path)) ?? []).sorted()
        let folders =
            [directory.root.appendingPathComponent(Self.filesFolderName)]
            + packs.map { recorded.appendingPathComponent($0).appendingPathComponent(Self.filesFolderName) }
        var mappings: [MessageStubMapping] = []
        var problems: [StubError] = []
        for folder in folders {
            let (loaded, found) = loadFiles(under: folder, in: directory)
            mappings += loaded
            problems += found
        }
        return (mappings, problems)
    }

    private static func loadFiles(under folder: URL, in directory: StubDirectory) -> ([MessageStubMapping], [StubError]) {
        guard let walker = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil) else { return ([], []) }
        var mappings: [MessageStubMapping] = []
        var problems: [StubError] = []
        let files = walker.compactMap { $0 as? URL }.filter { $0.pathExtension == "json" }.sorted { $0.path < $1.path }
        let root = directory.root.standardizedFileURL.path
        for file in files {
            let standardized = file.standardizedFileURL.path
            let shown = standardized.hasPrefix(root + "/") ? String(standardized.dropFirst(root.count + 1)) : file.lastPathComponent
            do {
                let json = try JSONValue.parseLenient(Array(try Data(contentsOf: file)))
                let items = json["messageMappings"]?.arrayValue ?? [json]
                for (index, item) in items.enumerated() {
                    do throws(StubError) {
                        mappings.append(try MessageStubMapping.parse(item, in: directory, file: shown))
                    } catch {
                        var located = error
                        if json["messageMappings"] != nil {
                            located.field = "messageMappings[\(index)]" + (error.field.isEmpty ? "" : ".\(error.field)")
                        }
                        problems.append(located)
                    }
                }
            } catch let error as JSONParseError {
                problems.append(StubError(file: shown, line: error.line, field: "", message: "column \(error.column): \(error.message)"))
            } catch {
                problems.append(StubError(file: shown, field: "", message: "cannot be read: \(error)"))
            }
        }
        return (mappings, problems)
    }

    // MARK: Mappings by scope

    /// The mappings `scope` sees, in the order they are tried. Each list is kept in that order
    /// (`insert`), so a message costs a merge, not a sort.
    func mappings(in scope: StateScope) -> [MessageStubMapping] {
        state.withLock { state in
            guard !scope.isDefault, let own = state.own[scope.name], !own.isEmpty else { return state.shared }
            var merged: [MessageStubMapping] = []
            merged.reserveCapacity(own.count + state.shared.count)
            var (i, j) = (0, 0)
            while i < own.count || j < state.shared.count {
                if j == state.shared.count || (i < own.count && Self.triedFirst(own[i], state.shared[j])) {
                    merged.append(own[i])
                    i += 1
                } else {
                    merged.append(state.shared[j])
                    j += 1
                }
            }
            return merged
        }
    }

    /// Lowest priority number first, then the latest added (WireMock's order).
    private static func triedFirst(_ a: MessageStubMapping, _ b: MessageStubMapping) -> Bool {
        a.priority != b.priority ? a.priority < b.priority : a.insertion > b.insertion
    }

    /// `mapping` into `list`, which stays in the order mappings are tried.
    private static func insert(_ mapping: MessageStubMapping, into list: inout [MessageStubMapping]) {
        list.insert(mapping, at: list.firstIndex { triedFirst(mapping, $0) } ?? list.endIndex)
    }

    /// Adds `mapping` (replacing one of its id) to `scope`'s own, or the shared ones in `default`.
    func add(_ mapping: MessageStubMapping, in scope: StateScope) {
        state.withLock { state in
            var mapping = mapping
            state.insertions += 1
            mapping.insertion = state.insertions
            if scope.isDefault {
                state.shared.removeAll { $0.id == mapping.id }
                Self.insert(mapping, into: &state.shared)
            } else {
                state.own[scope.name, default: []].removeAll { $0.id == mapping.id }
                Self.insert(mapping, into: &state.own[scope.name, default: []])
            }
        }
        noteHTTPTriggers()
    }

    /// The mappings changed: channels take their `answering` lists again, and whether any mapping
    /// watches HTTP is noted.
    private func noteHTTPTriggers() {
        generation.add(1, ordering: .releasing)
        let any = state.withLock { state in
            (state.shared + state.own.values.joined()).contains { mapping in
                switch mapping.trigger {
                case .httpStub, .httpRequest: true
                case .message, .channelOpen: false
                }
            }
        }
        httpTriggers.store(any, ordering: .relaxed)
    }

    public var watchesHTTP: Bool { httpTriggers.load(ordering: .relaxed) }

    /// WireMock 4's HTTP triggers: every mapping of the scope whose `http-request` pattern matches
    /// the request, or whose `http-stub` is the stub that answered it, sends its messages (to the
    /// channels its targets name: there is no originating channel), in priority order.
    public func served(_ request: Request, by backend: String?, in scope: StateScope) {
        var answeringStubID: String??
        var model: TemplateValue?
        for mapping in mappings(in: scope) {
            switch mapping.trigger {
            case .message, .channelOpen: continue
            case .httpRequest(let pattern):
                guard pattern.evaluate(request).matched else { continue }
            case .httpStub(let stubId):
                if answeringStubID == nil {
                    answeringStubID = .some(
                        backend == httpStubs?.name ? httpStubs?.answeringStub(for: request, in: scope)?["id"]?.stringValue?.lowercased() : nil)
                }
                guard answeringStubID == .some(stubId) else { continue }
            }
            let requestModel = model ?? ResponseTemplating.requestModel(request)
            model = requestModel
            send(mapping.actions, model: requestModel, scope: scope, from: nil)
        }
    }

    @discardableResult
    func remove(id: String, in scope: StateScope) -> Bool {
        defer { noteHTTPTriggers() }
        return state.withLock { state in
            if scope.isDefault {
                let before = state.shared.count
                state.shared.removeAll { $0.id == id }
                return state.shared.count != before
            }
            let before = state.own[scope.name]?.count ?? 0
            state.own[scope.name]?.removeAll { $0.id == id }
            return (state.own[scope.name]?.count ?? 0) != before
        }
    }

    func removeAll(in scope: StateScope) {
        state.withLock { state in
            if scope.isDefault { state.shared.removeAll() } else { state.own[scope.name] = nil }
        }
        noteHTTPTriggers()
    }

    /// A scope's reset: its own mappings, journal and channels go (the channels closed, 1012).
    public func reset(scope: StateScope) {
        defer { noteHTTPTriggers() }
        let closing = state.withLock { state in
            // The default scope's reset is WireMock's: back to the files (reloaded below).
            if scope.isDefault { state.shared.removeAll() }
            state.own[scope.name] = nil
            _ = state.journal.remove { $0.scope === scope }
            return state.channels.values.filter { $0.scope === scope }
        }
        if scope.isDefault { reloadFiles() }
        for open in closing {
            _ = open.channel.loop.execute { open.channel.close(code: 1012, reason: "the scope was reset") }
        }
    }

    // MARK: Channels

    public func refusal(toOpenIn scope: StateScope) -> Response? {
        let open = state.withLock { $0.channels.count }
        guard open >= maxChannels else { return nil }
        var refusal = Response.text("\(open) WebSocket channels are open, as many as may be (--max-channels): try again later.\n", status: 503)
        refusal.headers.set("Retry-After", "1")
        return refusal
    }

    public func dropChannels(in scope: StateScope) {
        for open in channels(in: scope) { _ = open.channel.loop.execute { open.channel.drop() } }
    }

    /// GraphQL's subscription protocol when offered (this server speaks it); else the client's
    /// first choice, whatever it is, so that an app whose server must name its protocol connects
    /// (message stubs then answer its messages).
    public func subprotocol(choosingFrom offered: [String]) -> String? {
        offered.contains(GraphQLSubscriptionSession.subprotocol) ? GraphQLSubscriptionSession.subprotocol : offered.first
    }

    public func opened(_ channel: WebSocketChannel, by request: Request, in scope: StateScope) {
        let open = OpenChannel(scope: scope, request: request, channel: channel)
        state.withLock { $0.channels[open.id] = open }
        if WebSocketHandshake.offeredProtocols(request).contains(GraphQLSubscriptionSession.subprotocol) {
            let session = GraphQLSubscriptionSession(open, stubs: self)
            channel.onMessage = { [weak channel] event in
                if case .text(let text) = event {
                    session.received(text)
                } else if case .binary = event {
                    channel?.close(code: 4400, reason: "Invalid message received")
                }
            }
            channel.onClose = { [weak self] _, _ in
                session.closed()
                _ = self?.state.withLock { $0.channels.removeValue(forKey: open.id) }
            }
            return
        }
        channel.onMessage = { [weak self] event in self?.received(event, on: open) }
        // What the server says first: the first channel-open mapping whose pattern matches.
        RequestBudget.run {
            let greeting = mappings(in: scope).first { mapping in
                guard case .channelOpen(let pattern) = mapping.trigger else { return false }
                return pattern?.evaluate(request).matched ?? true
            }
            send(greeting?.actions ?? [], model: open.model, scope: scope, from: open)
        }
        channel.onClose = { [weak self, logger] code, reason in
            _ = self?.state.withLock { $0.channels.removeValue(forKey: open.id) }
            if code != 1000 && code != 1001 && code != 1005 && code != 1006 {
                logger.debug("WebSocket \(open.request.path) closed with \(code): \(reason)")
            }
        }
    }

    func channels(in scope: StateScope?) -> [OpenChannel] {
        state.withLock { state in state.channels.values.filter { scope == nil || $0.scope === scope }.sorted { $0.id < $1.id } }
    }

    /// A message in: the first mapping that matches sends its messages; the message is journaled
    /// either way. Runs on the channel's loop, within a work budget as a request does.
    private func received(_ event: WebSocketEvent, on open: OpenChannel) {
        let text: String
        var binary: [UInt8]?
        switch event {
        case .text(let value): text = value
        case .binary(let data): (text, binary) = (String(decoding: data, as: UTF8.self), data)
        default: return
        }
        // Journaled after what it makes the stubs send, but dated when it came.
        let arrived = MonotonicClock.wallSeconds()
        RequestBudget.run {
            let matched = answering(on: open).first { candidate in
                guard let body = candidate.body else { return true }
                return body.matches(body: binary ?? Array(text.utf8), text: text)
            }
            var journaled: [MessageEvent] = []
            journaled.reserveCapacity((matched?.actions.count ?? 0) + 1)
            for action in matched?.actions ?? [] {
                send(action, message: text, model: open.model, scope: open.scope, from: open, journaling: &journaled)
            }
            journaled.append(MessageEvent(type: .received, channel: open, message: text, stub: matched?.json, at: arrived))
            record(journaled)
        }
    }

    /// The mappings that may answer a message on `open` (`OpenChannel.answering`), taken again
    /// when the mappings have changed since.
    private func answering(on open: OpenChannel) -> [Candidate] {
        // Read before the mappings: a change in between only makes the next message take them again.
        let now = generation.load(ordering: .acquiring)
        if let answering = open.answering, answering.generation == now { return answering.candidates }
        var candidates: [Candidate] = []
        for mapping in mappings(in: open.scope) {
            guard case .message(let channel, let body) = mapping.trigger else { continue }
            if let channel, !channel.evaluate(open.request).matched { continue }
            candidates.append(Candidate(body: body, actions: mapping.actions, json: mapping.json))
        }
        open.answering = (now, candidates)
        return candidates
    }

    /// Sends what `action` says: to `open` (the channel the message came on) or to every channel of
    /// `scope` opened by a request its pattern matches. `model` is the template's `request`.
    /// What it sends goes into `journaled`.
    private func send(
        _ action: MessageStubMapping.SendAction, message: String?, model: TemplateValue, scope: StateScope,
        from open: OpenChannel?, journaling journaled: inout [MessageEvent]
    ) {
        guard let outgoing = render(action.body, message: message, model: model, parameters: action.parameters) else { return }
        let targets: [OpenChannel]
        switch action.target {
        case .originating: targets = open.map { [$0] } ?? []
        case .requestInitiated(let pattern): targets = channels(in: scope).filter { pattern.evaluate($0.request).matched }
        }
        for target in targets {
            if let event = deliver(outgoing, to: target, after: action.delay) { journaled.append(event) }
        }
    }

    /// `actions` sent (none from a channel when `open` is nil) and journaled.
    private func send(_ actions: [MessageStubMapping.SendAction], model: TemplateValue, scope: StateScope, from open: OpenChannel?) {
        var journaled: [MessageEvent] = []
        for action in actions { send(action, message: nil, model: model, scope: scope, from: open, journaling: &journaled) }
        record(journaled)
    }

    /// What an action sends, rendered: text from its template (the message and the request that
    /// opened the channel in its model), bytes, or a body file.
    /// `model`: the request as the template's `request`; `parameters`: the action's `transformerParameters`.
    func render(_ body: MessageStubMapping.OutgoingMessage, message: String?, model: TemplateValue?, parameters: TemplateValue?) -> WebSocketEvent? {
        switch body {
        case .binary(let bytes): return .binary(bytes)
        case .file(let name, let binary):
            guard let data = try? directory.files.bytes(name, field: "filePath") else {
                logger.warning("message stub: no body file \(name) in __files/")
                return nil
            }
            return binary ? .binary(Array(data)) : .text(String(decoding: data, as: UTF8.self))
        case .text(let template):
            // An echo (`{{message.body}}`) needs no context made.
            if let message, let text = template.renderedValue({ $0 == Self.messageBody ? .string(message) : nil }) { return .text(text) }
            var context: [(key: String, value: TemplateValue)] = []
            context.reserveCapacity(3)
            if let model { context.append(("request", model)) }
            if let message { context.append(("message", .object(TemplateObject([("body", .string(message))])))) }
            context.append(("parameters", parameters ?? .object(TemplateObject([]))))
            return .text(template.render(.object(TemplateObject(context))))
        }
    }

    /// The path of a template's `{{message.body}}`.
    private static let messageBody = ["message", "body"]

    /// Sends on `target`'s loop (now when that is this thread's, `delay` later when there is one);
    /// what to journal (nil for what is not a message).
    func deliver(_ message: WebSocketEvent, to target: OpenChannel, after delay: Duration = .zero) -> MessageEvent? {
        let text: String
        switch message {
        case .text(let value): text = value
        case .binary(let bytes): text = String(decoding: bytes, as: UTF8.self)
        default: return nil
        }
        let channel = target.channel
        // The scope's simulated network: each message comes its latency late (a timer, never a wait).
        let latency = (target.scope.networkConditions.map { Duration.milliseconds($0.latencyMs) } ?? .zero) + delay
        let loop = channel.loop
        if latency == .zero && loop.isOnLoopThread {
            Self.send(message, on: channel)
        } else {
            let send: @Sendable () -> Void = { Self.send(message, on: channel) }
            var sendOnLoop = send
            if latency > .zero { sendOnLoop = { _ = loop.schedule(after: latency, send) } }
            if loop.isOnLoopThread { sendOnLoop() } else { _ = loop.execute(sendOnLoop) }
        }
        return MessageEvent(type: .sent, channel: target, message: text, stub: nil)
    }

    private static func send(_ message: WebSocketEvent, on channel: WebSocketChannel) {
        switch message {
        case .text(let value): channel.send(text: value)
        case .binary(let bytes): channel.send(binary: bytes)
        default: break
        }
    }

    // MARK: Journal

    func record(_ event: MessageEvent) {
        record([event])
    }

    /// Journals `events` in order, under one lock.
    func record(_ events: [MessageEvent]) {
        guard !events.isEmpty else { return }
        state.withLock { state in
            for var event in events {
                state.serials += 1
                event.serial = state.serials
                state.journal.append(event, keeping: journalCapacity, bytes: journalBytes)
            }
        }
    }

    /// The journal of `scope` (nil: every scope's), oldest first.
    func events(in scope: StateScope?) -> [MessageEvent] {
        state.withLock { state in state.journal.events.filter { scope == nil || $0.scope === scope } }
    }

    public func sessions(in scope: StateScope?) -> [ChannelSession] {
        let (events, open) = state.withLock { state in
            (state.journal.events.filter { scope == nil || $0.scope === scope }, state.channels.values.filter { scope == nil || $0.scope === scope })
        }
        var order: [String] = []
        var channels: [String: OpenChannel] = [:]
        var messages: [String: [ChannelSession.Message]] = [:]
        for channel in open + events.map(\.channel) where channels[channel.id] == nil {
            channels[channel.id] = channel
            order.append(channel.id)
        }
        for event in events.sorted(by: { $0.timestamp < $1.timestamp }) {
            messages[event.channel.id, default: []].append(
                ChannelSession.Message(fromClient: event.type == .received, wallSeconds: event.timestamp, text: event.message))
        }
        return order.compactMap { id in
            channels[id].map { ChannelSession(request: $0.request, scope: $0.scope, openedAt: $0.openedAt, messages: messages[id] ?? []) }
        }.sorted { $0.openedAt < $1.openedAt }
    }

    func removeEvents(in scope: StateScope?, where condition: @Sendable (MessageEvent) -> Bool) -> [MessageEvent] {
        state.withLock { state in state.journal.remove { (scope == nil || $0.scope === scope) && condition($0) } }
    }
}
