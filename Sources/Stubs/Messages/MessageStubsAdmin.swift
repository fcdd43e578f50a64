import Foundation
import HTTPServer
import JSON
import MockCore

/// The admin API of message stubs, in WireMock 4's paths and shapes: message mappings, open
/// channels (and sending to them), and the message journal. Every call acts in the request's
/// scope (the journal's `?scope=*`: every scope's).
struct MessageStubsAdmin: Sendable {
    let stubs: MessageStubs

    static let endpoints: [AdminEndpoint<MessageStubsAdmin>] = [
        AdminEndpoint(
            "/__admin/message-mappings", "WireMock 4: the message stubs; `POST` adds one; `DELETE` removes every one",
            [
                .get: { admin, call in .response(admin.list(call.scope)) },
                .post: { admin, call in .response(admin.create(call)) },
                .delete: { admin, call in
                    admin.stubs.removeAll(in: call.scope)
                    return .response(.emptyJSONObject)
                },
            ], input: [.post: .body(StubSchemas.messageMapping)]),
        AdminEndpoint(
            "/__admin/message-mappings/{id}", "one message stub; `PUT` replaces it; `DELETE` removes it",
            [
                .get: { admin, call in .response(admin.show(call.parameters[0], call.scope)) },
                .put: { admin, call in .response(admin.replace(call.parameters[0], call)) },
                .delete: { admin, call in
                    admin.stubs.remove(id: call.parameters[0].lowercased(), in: call.scope)
                    return .response(.emptyJSONObject)
                },
            ], input: [.put: .body(StubSchemas.messageMapping)]),
        AdminEndpoint(
            "/__admin/message-mappings/find-by-metadata", "the message stubs whose metadata matches a pattern",
            [.post: { admin, call in .response(admin.byMetadata(call, remove: false)) }], input: [.post: .body(StubSchemas.metadataPattern)]),
        AdminEndpoint(
            "/__admin/message-mappings/remove-by-metadata", "those message stubs removed",
            [.post: { admin, call in .response(admin.byMetadata(call, remove: true)) }], input: [.post: .body(StubSchemas.metadataPattern)]),
        AdminEndpoint("/__admin/channels", "the open WebSocket channels", [.get: { admin, call in .response(admin.channels(call)) }]),
        AdminEndpoint(
            "/__admin/channels/send", "a message sent to every open channel whose opening request matches `initiatingRequest`",
            [.post: { admin, call in .response(admin.sendToChannels(call)) }], input: [.post: .body(StubSchemas.channelMessage)]),
        AdminEndpoint(
            "/__admin/messages", "the message journal, newest first; `DELETE` empties it",
            [
                .get: { admin, call in .response(admin.journal(call)) },
                .delete: { admin, call in
                    _ = admin.stubs.removeEvents(in: call.context.journalScope(for: call.request)) { _ in true }
                    return .response(.emptyJSONObject)
                },
            ]),
        AdminEndpoint(
            "/__admin/messages/count", "how many journaled messages match a message pattern",
            [.post: { admin, call in .response(admin.query(call, .count)) }], input: [.post: .body(StubSchemas.messagePattern)]),
        AdminEndpoint(
            "/__admin/messages/find", "the journaled messages that match a message pattern, oldest first",
            [.post: { admin, call in .response(admin.query(call, .find)) }], input: [.post: .body(StubSchemas.messagePattern)]),
        AdminEndpoint(
            "/__admin/messages/remove", "those messages removed from the journal", [.post: { admin, call in .response(admin.query(call, .remove)) }],
            input: [.post: .body(StubSchemas.messagePattern)]),
        AdminEndpoint(
            "/__admin/messages/wait", "the first message that matches, waiting up to `timeoutMillis` (`null` when none came)",
            [.post: { admin, call in admin.wait(call, forCount: nil) }], input: [.post: .body(StubSchemas.messageWait)]),
        AdminEndpoint(
            "/__admin/messages/wait-for-count", "`count` messages that match, waiting up to `timeoutMillis` (fewer when they did not come)",
            [.post: { admin, call in admin.wait(call, forCount: true) }], input: [.post: .body(StubSchemas.messageWait)]),
    ]

    // MARK: Mappings

    private func list(_ scope: StateScope) -> Response {
        let all = stubs.mappings(in: scope)
        return .json(JSONValue.object([("messageMappings", .array(all.map(\.json))), ("meta", .object([("total", .int(all.count))]))]).serialized)
    }

    private func parse(_ call: AdminCall, id: String? = nil) -> Result<MessageStubMapping, StubError> {
        do throws(StubError) {
            var json: JSONValue
            do {
                json = try JSONValue.parseLenient(call.request.body)
            } catch {
                throw StubError(line: error.line, field: "", message: "column \(error.column): \(error.message)")
            }
            if let id, case .object(var members) = json {
                members.removeAll { $0.0 == "id" }
                members.insert(("id", .string(id)), at: 0)
                json = .object(members)
            }
            return .success(try MessageStubMapping.parse(json, in: stubs.directory))
        } catch {
            return .failure(error)
        }
    }

    private func create(_ call: AdminCall) -> Response {
        switch parse(call) {
        case .failure(let error): return Self.invalid(error)
        case .success(let mapping):
            stubs.add(mapping, in: call.scope)
            return .json(mapping.json.serialized, status: 201)
        }
    }

    private func replace(_ id: String, _ call: AdminCall) -> Response {
        guard UUID(uuidString: id) != nil else { return Self.error(400, "\(id) is not a valid UUID") }
        guard stubs.mappings(in: call.scope).contains(where: { $0.id == id.lowercased() }) else { return Response(status: 404) }
        switch parse(call, id: id.lowercased()) {
        case .failure(let error): return Self.invalid(error)
        case .success(let mapping):
            stubs.add(mapping, in: call.scope)
            return .json(mapping.json.serialized)
        }
    }

    private func show(_ id: String, _ scope: StateScope) -> Response {
        guard UUID(uuidString: id) != nil else { return Self.error(400, "\(id) is not a valid UUID") }
        guard let mapping = stubs.mappings(in: scope).first(where: { $0.id == id.lowercased() }) else { return Response(status: 404) }
        return .json(mapping.json.serialized)
    }

    private func byMetadata(_ call: AdminCall, remove: Bool) -> Response {
        let pattern: ContentPattern
        do throws(StubError) {
            guard let json = try? JSONValue.parse(call.request.body) else { throw StubError(field: "", message: "the body is not JSON") }
            pattern = try ContentPattern.parse(json, field: "")
        } catch {
            return Self.invalid(error)
        }
        let found = stubs.mappings(in: call.scope).filter { mapping in mapping.json["metadata"].map { pattern.matches($0.serialized) } ?? false }
        if remove {
            for mapping in found { stubs.remove(id: mapping.id, in: call.scope) }
            return .emptyJSONObject
        }
        return .json(
            JSONValue.object([("messageMappings", .array(found.map(\.json))), ("meta", .object([("total", .int(found.count))]))]).serialized)
    }

    // MARK: Channels

    private func channels(_ call: AdminCall) -> Response {
        let open = stubs.channels(in: call.context.journalScope(for: call.request))
        return .json(JSONValue.object([("channels", .array(open.map(Self.describe))), ("meta", .object([("total", .int(open.count))]))]).serialized)
    }

    static func describe(_ open: MessageStubs.OpenChannel) -> JSONValue {
        let request = open.request
        return .object([
            ("type", .string("websocket")), ("id", .string(open.id)), ("open", .bool(true)),
            (
                "initiatingRequest",
                .object([
                    ("url", .string(request.target)), ("method", .string(request.method.rawValue)),
                    ("clientIp", .string(request.clientIP)), ("headers", JournalEntry.headersJSON(request.headers)),
                ])
            ),
        ])
    }

    /// `{"type": "websocket", "initiatingRequest": {…}, "message": {"body": …}}`: sent to every open
    /// channel of the scope whose opening request matches.
    private func sendToChannels(_ call: AdminCall) -> Response {
        let json: JSONValue
        let message: MessageStubMapping.OutgoingMessage
        let pattern: RequestPattern?
        do throws(StubError) {
            guard let body = try? JSONValue.parse(call.request.body), body.objectValue != nil else {
                throw StubError(field: "", message: "the body is not a JSON object")
            }
            json = body
            guard let given = json["message"] else { throw StubError(field: "message", message: "message is required") }
            message = try MessageStubMapping.outgoing(given, at: "message", in: stubs.directory)
            pattern = try json["initiatingRequest"].map { (request) throws(StubError) in try RequestPattern.parse(request, field: "initiatingRequest")
            }
        } catch {
            return Self.invalid(error)
        }
        // As WireMock: a type other than websocket (fixed channels) reaches nothing here.
        guard json["type"]?.stringValue?.lowercased() == "websocket" else {
            return .json(JSONValue.object([("channels", .array([])), ("channelsMessaged", .int(0))]).serialized)
        }
        let targets = stubs.channels(in: call.scope).filter { pattern?.evaluate($0.request).matched ?? true }
        for target in targets {
            if let outgoing = stubs.render(message, message: nil, model: target.model, parameters: nil) {
                stubs.record(stubs.deliver(outgoing, to: target).map { [$0] } ?? [])
            }
        }
        return .json(JSONValue.object([("channels", .array(targets.map(Self.describe))), ("channelsMessaged", .int(targets.count))]).serialized)
    }

    // MARK: Journal

    private func journal(_ call: AdminCall) -> Response {
        let events = stubs.events(in: call.context.journalScope(for: call.request)).reversed().map(\.json)
        return .json(JSONValue.object([("messageServeEvents", .array(Array(events))), ("messageJournalDisabled", .bool(false))]).serialized)
    }

    /// A message pattern: `{"body": content pattern, "channel": request pattern}`, either optional.
    private struct MessagePattern {
        var body: ContentPattern?
        var channel: RequestPattern?

        init(_ json: JSONValue?) throws(StubError) {
            guard let json, json.objectValue != nil else { return }
            body = try json["body"].map { (pattern) throws(StubError) in try ContentPattern.parse(pattern, field: "body") }
            channel = try json["channel"].map { (pattern) throws(StubError) in try RequestPattern.parse(pattern, field: "channel") }
        }

        func matches(_ event: MessageEvent) -> Bool {
            (body?.matches(body: Array(event.message.utf8)) ?? true) && (channel?.evaluate(event.request).matched ?? true)
        }
    }

    private enum Query {
        case count, find, remove
    }

    private func query(_ call: AdminCall, _ query: Query) -> Response {
        let pattern: MessagePattern
        do throws(StubError) {
            pattern = try MessagePattern(call.request.body.isEmpty ? nil : try? JSONValue.parse(call.request.body))
        } catch {
            return Self.invalid(error)
        }
        let scope = call.context.journalScope(for: call.request)
        switch query {
        case .count:
            let count = stubs.events(in: scope).filter(pattern.matches).count
            return .json(JSONValue.object([("count", .int(count)), ("messageJournalDisabled", .bool(false))]).serialized)
        case .find:
            return .json(JSONValue.object([("messageServeEvents", .array(stubs.events(in: scope).filter(pattern.matches).map(\.json)))]).serialized)
        case .remove:
            let removed = stubs.removeEvents(in: scope, where: pattern.matches)
            return .json(JSONValue.object([("messageServeEvents", .array(removed.map(\.json)))]).serialized)
        }
    }

    /// `{"pattern", "timeoutMillis", "count"}`: answered as soon as the journal holds what is
    /// waited for (checked every 20 ms on the caller's loop, never blocking it), else at the timeout
    /// with what there is.
    private func wait(_ call: AdminCall, forCount: Bool?) -> Reply {
        let body = call.request.body.isEmpty ? JSONValue.object([]) : (try? JSONValue.parse(call.request.body)) ?? .null
        let pattern: MessagePattern
        do throws(StubError) {
            guard body.objectValue != nil else { throw StubError(field: "", message: "the body is not a JSON object") }
            pattern = try MessagePattern(body["pattern"])
        } catch {
            return .response(Self.invalid(error))
        }
        let timeout = max(0, min(body["timeoutMillis"]?.intValue ?? 0, 10 * 60 * 1000))
        let wanted = forCount == nil ? 1 : max(1, body["count"]?.intValue ?? 1)
        let (stubs, scope) = (stubs, call.context.journalScope(for: call.request))
        let deadline = MonotonicClock.nanoseconds() + UInt64(timeout) * 1_000_000
        func answer() -> Response? {
            let found = stubs.events(in: scope).reversed().filter(pattern.matches).prefix(wanted)
            guard found.count >= wanted || MonotonicClock.nanoseconds() >= deadline else { return nil }
            if forCount == nil { return .json((found.first?.json ?? .null).serialized) }
            return .json(
                JSONValue.object([("messageServeEvents", .array(found.map(\.json))), ("messageJournalDisabled", .bool(false))]).serialized)
        }
        if let now = answer() { return .response(now) }
        return .deferred { reply in
            func check() {
                if let done = answer() { return reply.send(done) }
                guard !reply.clientHasGone else { return }
                _ = reply.loop.schedule(after: .milliseconds(20)) { check() }
            }
            check()
        }
    }

    // MARK: Errors

    /// WireMock 4's 422: a missing required field is its bare name as the pointer and "X is
    /// required" as the title; anything else is "Error parsing JSON" with the detail.
    static func invalid(_ error: StubError) -> Response {
        let required = error.message.hasSuffix(" is required") && !error.field.contains(".")
        let pointer =
            required
            ? error.field
            : "/"
                + error.field.replacingOccurrences(of: "[", with: ".").replacingOccurrences(of: "]", with: "")
                .replacingOccurrences(of: ".", with: "/")
        var item: [(String, JSONValue)] = [("code", 10), ("source", .object([("pointer", .string(pointer))]))]
        if required {
            item.append(("title", .string(error.message)))
        } else {
            item += [("title", .string("Error parsing JSON")), ("detail", .string(error.description))]
        }
        return .json(JSONValue.object([("errors", .array([.object(item)]))]).serialized, status: 422)
    }

    static func error(_ status: Int, _ title: String) -> Response {
        .json(JSONValue.object([("errors", .array([.object([("code", 10), ("title", .string(title))])]))]).serialized, status: status)
    }
}
