import HTTPServer
import Logging
import MockCore

/// The fleet as the router meets it: a request waits while this replica joins, goes to the
/// replica its scope lives on (or hears the scope is lost), and an admin write made here reaches
/// the peers.
extension FleetPeers: TeamFleet {
    public func answerWhileJoining(_ request: Request) -> Response? {
        hasJoined.load(ordering: .acquiring) ? nil : Self.notJoinedAnswer(to: request)
    }

    public func placement(of request: Request, scope name: String) -> ScopePlacement? {
        guard let owner = directory.owner(of: name) else { return nil }
        let afresh = ScopeDirectory.startsAfresh(request, scope: name)
        guard owner == selfURL || PeerCall.isForwarded(request) else { return .relay(name: name, owner: owner, afresh: afresh) }
        // It lived here and is not here: this replica restarted (or a relay found it gone).
        if afresh {
            directory.drop(name)
            return nil
        }
        let reason = owner == selfURL ? "restarted since (a replica keeps no state over a restart)" : "no longer has it"
        return .lost(ScopeDirectory.lost(name, on: owner, because: reason))
    }

    public func answer(
        _ request: consuming Request, elsewhere: ScopePlacement, _ responder: Responder, here: @escaping (Request, Responder) -> Void
    ) {
        switch elsewhere {
        case .lost(let response): responder.send(response)
        case .relay(let name, let owner, _) where WebSocketHandshake.isUpgrade(request):
            // A channel is not relayed between replicas: the client is told where its scope lives.
            let message = "Scope \"\(name)\" lives on replica \(owner): WebSockets are not relayed between replicas; connect there.\n"
            var answer = Response.text(message, status: 421)
            answer.reason = "Misdirected Request"
            responder.send(answer)
        case .relay(let name, let owner, let afresh):
            let pending = copy request
            relay(request, scope: name, to: owner, on: responder.loop) { [self] response in
                guard afresh, response.headers[ScopeDirectory.lostHeader] != nil else { return responder.send(response) }
                directory.drop(name, ifOwnedBy: owner)
                here(pending, responder)
            }
        }
    }

    public func answer(adminCall request: Request, elsewhere: ScopePlacement, on loop: EventLoop, done: @escaping (Response) -> Void) {
        switch elsewhere {
        case .lost(let response): done(response)
        case .relay(let name, let owner, _): relay(request, scope: name, to: owner, on: loop, done: done)
        }
    }

    public func pass(
        adminCall request: Request, answered response: Response, scope: StateScope, on loop: EventLoop, send: @escaping (Response) -> Void
    ) {
        if forwards(request, response, scope: scope) {
            return forward(request, answered: response, on: loop) { [logger] failed in
                var answer = response
                if !failed.isEmpty {
                    answer.headers.set(Self.failedHeader, failed.joined(separator: ", "))
                    logger.warning("\(request.method.rawValue) \(request.path) made here did not reach peer(s): \(failed.joined(separator: ", "))")
                }
                send(answer)
            }
        }
        if gathers(request) { return gather(request, answered: response, on: loop, done: send) }
        send(response)
    }
}
