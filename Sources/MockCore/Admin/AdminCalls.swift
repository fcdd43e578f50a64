import HTTPServer

/// Admin calls made inside the server (the MCP endpoint's tools): the router admits and
/// dispatches them as it does calls that come over a socket, so a tool is exactly the admin
/// call it wraps (the guard, the scope it names, its budget, a team server's peers).
public protocol AdminCalls: AnyObject, Sendable {
    /// Every admin route the server serves, with what each reads (`RouteInput`).
    var adminRoutes: AdminRouteTable { get }

    /// `done` gets the answer to `request` on `loop`; `callerHasGone` says whether whoever waits
    /// for it has left (a long-poll stops waiting then).
    func performAdminCall(
        _ request: consuming Request, on loop: EventLoop, callerHasGone: @escaping () -> Bool, _ done: @escaping (Response) -> Void)
}
