import HTTPServer

/// A team server's other replicas as the router sees them; the Fleet module implements it (the
/// peers, how they are found, where each named scope lives: docs/team-server.md). Without one the
/// server is alone: every scope lives here, and admin writes go no further.
public protocol TeamFleet: AnyObject, Sendable {
    /// The answer while this replica is still joining (taking the shared state from its peers);
    /// nil: the request is served.
    func answerWhileJoining(_ request: Request) -> Response?

    /// Where the named scope `scope`, which does not live here, lives instead: nil when no replica
    /// is known to have it (it is made here). `request` is in that scope or about it.
    func placement(of request: Request, scope: String) -> ScopePlacement?

    /// Answers `request`, whose scope lives elsewhere: relayed to that replica, or told the scope
    /// is lost. `here` handles it on this replica after all: a call that starts the scope afresh,
    /// whose replica turned out to be gone.
    func answer(_ request: consuming Request, elsewhere: ScopePlacement, _ responder: Responder, here: @escaping (Request, Responder) -> Void)

    /// An admin call made inside the server (an MCP tool's) whose scope lives elsewhere, relayed or
    /// told it is lost; `done` gets the answer on `loop`.
    func answer(adminCall request: Request, elsewhere: ScopePlacement, on loop: EventLoop, done: @escaping (Response) -> Void)

    /// An admin call answered here, passed on: a shared write (the `default` scope's) reaches the
    /// peers before it is answered, and a journal query over every scope gathers theirs. `send`
    /// gets the answer on `loop`.
    func pass(adminCall request: Request, answered response: Response, scope: StateScope, on loop: EventLoop, send: @escaping (Response) -> Void)
}

/// Where a team server's request goes when its scope does not live on this replica.
public enum ScopePlacement: Sendable {
    /// To `owner`, where scope `name` lives; `afresh`: a call that starts the scope afresh, made
    /// here when the owner turns out to be gone.
    case relay(name: String, owner: String, afresh: Bool)
    /// The scope's replica is gone: this answer (410).
    case lost(Response)
}
