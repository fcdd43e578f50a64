/// What the server hands every request to. Called on the worker loop that received the request;
/// must not block. Reply through `responder`, now or later (from a timer or an outbound request
/// on `responder.loop`), exactly once. The handler owns `request` (it may keep it, e.g. in a
/// journal, without a copy).
public protocol HTTPHandler: Sendable {
    func handle(_ request: consuming Request, responder: Responder)
}
