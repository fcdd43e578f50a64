import HTTPServer

/// A backend that keeps WebSocket channels (the message stubs): the router opens a channel for
/// every WebSocket upgrade outside the admin API and hands it here, with the request that opened
/// it and its scope. Without one, an upgrade is answered like any request.
public protocol ChannelHost: Backend {
    /// Why no channel may open in `scope` now (too many open): the answer to the upgrade; nil: it may.
    func refusal(toOpenIn scope: StateScope) -> Response?
    /// The subprotocol to name in the `101`, of those the client offered (nil: none).
    func subprotocol(choosingFrom offered: [String]) -> String?
    /// `channel`, just opened by `request` in `scope`; called on the channel's loop.
    func opened(_ channel: WebSocketChannel, by request: Request, in scope: StateScope)
    /// `scope`'s network went offline: its channels drop, as a device's connections do.
    func dropChannels(in scope: StateScope)
    /// Whether some message stub fires on HTTP requests: only then does the router tell it of each
    /// (`served`), so servers without such stubs pay one load per request.
    var watchesHTTP: Bool { get }
    /// An app's HTTP request in `scope` was answered by `backend` (nil: nothing answered); called
    /// before the answer is sent.
    func served(_ request: Request, by backend: String?, in scope: StateScope)
    /// The WebSocket sessions of `scope` (nil: every scope's) the message journal still holds or
    /// that are open, oldest first: what a HAR export writes as `_webSocketMessages`.
    func sessions(in scope: StateScope?) -> [ChannelSession]
}

/// A WebSocket session: its opening request and the messages journaled on it.
public struct ChannelSession: Sendable {
    public struct Message: Sendable {
        /// Sent by the app (received here), else sent to it.
        public let fromClient: Bool
        /// Seconds since 1970.
        public let wallSeconds: Double
        public let text: String

        public init(fromClient: Bool, wallSeconds: Double, text: String) {
            self.fromClient = fromClient
            self.wallSeconds = wallSeconds
            self.text = text
        }
    }

    public let request: Request
    public let scope: StateScope
    /// Seconds since 1970.
    public let openedAt: Double
    public let messages: [Message]

    public init(request: Request, scope: StateScope, openedAt: Double, messages: [Message]) {
        self.request = request
        self.scope = scope
        self.openedAt = openedAt
        self.messages = messages
    }
}

/// A backend that records WebSockets by relaying them to a real server (the recording proxy while
/// it records): asked before the channel host.
public protocol ChannelRecorder: Backend {
    /// What to do with the channel `request` opens, when this backend records it (nil: it does not).
    func recordingChannel(for request: Request) -> ((WebSocketChannel) -> Void)?
}
