import HTTPServer

/// A backend that keeps WebSocket channels (the message stubs): the router opens a channel for
/// every WebSocket upgrade outside the admin API and hands it here, with the request that opened
/// it and its scope. Without one, an upgrade is answered like any request.
public protocol ChannelHost: Backend {
    /// `channel`, just opened by `request` in `scope`; called on the channel's loop.
    func opened(_ channel: WebSocketChannel, by request: Request, in scope: StateScope)
}
