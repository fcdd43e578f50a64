import Foundation
import HTTPServer
import JSON
import MockCore
import Stubs
import Synchronization
import Testing
import UnderstudyTesting

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What a webhook may reach and hold (issue 47): hosts judged by the addresses they resolve to, a
/// capped delay, cancellation with the mapping or the scope, slots for connections in flight only,
/// the unsent-bytes bound, a total deadline and a stop to chains. Every target is on loopback.
@Suite(.serialized) struct WebhookLimitTests {
    typealias Pair = WebhookTests.Pair

    /// Waits (5 s at most) until `condition` holds.
    func eventually(_ condition: () async throws -> Bool) async rethrows -> Bool {
        for _ in 0..<100 {
            if try await condition() { return true }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return try await condition()
    }

    /// The sub-events of every request for `path` (in any scope), oldest request first, read from
    /// the trigger's journal itself (the admin API lists one scope, in answers the tests' small
    /// unsent-bytes bound may refuse).
    func subEvents(_ pair: Pair, of path: String) throws -> [[JSONValue]] {
        let journal = try #require(pair.trigger.router?.journal)
        return journal.entries.filter { $0.request.path == path }.map { journal.subEvents(of: $0).map(\.json) }
    }

    func messages(_ events: [JSONValue]) -> [String] {
        events.filter { $0["type"]?.stringValue == "ERROR" }.compactMap { $0["data"]?["message"]?.stringValue }
    }

    @Test func namesAreJudgedByTheAddressesTheyResolveToNeverByHowTheyAreSpelt() async throws {
        let dnsAsked = Atomic<Int>(0)
        let names: [String: [String]] = [
            "127.evil.test": ["192.0.2.1"], "127.0.0.1.nip.io": ["192.0.2.1"], "evil.localhost": ["127.0.0.1", "192.0.2.1"],
            "dev.test": ["127.0.0.1"],
        ]
        let pair = try Pair {
            $0.resolveLocally = { names[$0] ?? [] }
            // Only names allowed beyond loopback are asked of DNS: none is here.
            $0.resolve = { _, _, completion in
                dnsAsked.add(1, ordering: .relaxed)
                completion([])
            }
        }
        let port = pair.receiver.port
        let hooks = ["127.evil.test", "127.0.0.1.nip.io", "evil.localhost", "dev.test"].map {
            #"{"name": "webhook", "parameters": {"url": "http://\#($0):\#(port)/\#($0)"}}"#
        }
        let added = try await pair.stub(
            #"{"request": {"urlPath": "/names"}, "response": {}, "serveEventListeners": [\#(hooks.joined(separator: ","))]}"#)
        #expect(added.status == 201, "\(added.body)")
        _ = try await pair.trigger.send("GET", "/names")
        let events = try await pair.subEvents(5)
        let refused = messages(events)
        for name in ["127.evil.test", "127.0.0.1.nip.io", "evil.localhost"] {
            #expect(refused.contains { $0.contains("not sent to \(name) (it resolves to 192.0.2.1)") }, "\(refused)")
        }
        // Only the name that resolves to loopback was sent, to the address checked (DNS knows no `dev.test`).
        let sent = events.filter { $0["type"]?.stringValue == "WEBHOOK_REQUEST" }.compactMap { $0["data"]?["absoluteUrl"]?.stringValue }
        #expect(sent == ["http://dev.test:\(port)/dev.test"], "\(events)")
        let received = try await pair.received(1)
        #expect(received.map(\.request.target) == ["/dev.test"])
        #expect(received.first?.request.headers["Host"] == "dev.test:\(port)")
        #expect(dnsAsked.load(ordering: .relaxed) == 0)
    }

    @Test func aDelayLongerThanSixtySecondsIsRefused() async throws {
        let pair = try Pair()
        func stub(delay: String) async throws -> (status: Int, body: String) {
            try await pair.stub(
                #"{"request": {"urlPath": "/d"}, "response": {}, "serveEventListeners": [{"name": "webhook", "parameters": {"url": "http://127.0.0.1:1/x", "delay": \#(delay)}}]}"#
            )
        }
        for delay in [
            #"{"type": "fixed", "milliseconds": 60001}"#, #"{"type": "fixed", "milliseconds": 1e15}"#,
            #"{"type": "uniform", "lower": 1, "upper": 90000}"#, #"{"type": "lognormal", "median": 100, "sigma": 1, "maxValue": 1e9}"#,
        ] {
            let answer = try await stub(delay: delay)
            #expect(answer.status == 422 && answer.body.contains("serveEventListeners[0].parameters.delay"), "\(delay) → \(answer.body)")
            #expect(answer.body.contains("at most 60000 ms"), "\(answer.body)")
        }
        #expect(try await stub(delay: #"{"type": "fixed", "milliseconds": 60000}"#).status == 201)
    }

    @Test func aWaitingWebhookIsCancelledWithItsMappingAndWithItsScope() async throws {
        let pair = try Pair()
        let mapping =
            #"{"request": {"urlPath": "/later"}, "response": {}, "serveEventListeners": [{"name": "webhook", "parameters": {"url": "\#(pair.target)/late", "delay": {"type": "fixed", "milliseconds": 30000}}}]}"#
        _ = try await pair.stub(mapping)
        _ = try await pair.trigger.send("GET", "/later")
        #expect(await eventually { pair.dispatch.pendingCount == 1 })
        _ = try await pair.trigger.send("DELETE", "/__admin/mappings")
        #expect(await eventually { pair.dispatch.pendingCount == 0 }, "gone with its mapping")
        #expect(messages(try await pair.subEvents(1, of: "/later")).contains { $0.contains("cancelled: its mapping was removed") })

        // A file-like shared mapping stays; the scope's reset cancels what the scope's requests fired.
        _ = try await pair.stub(mapping)
        _ = try await pair.trigger.send("GET", "/later", headers: ["X-Understudy-Scope": "ci-9"])
        #expect(await eventually { pair.dispatch.pendingCount == 1 })
        let (_, reset) = try await pair.trigger.send("POST", "/__admin/reset", headers: ["X-Understudy-Scope": "ci-9"])
        #expect(reset.statusCode == 200)
        #expect(await eventually { pair.dispatch.pendingCount == 0 }, "gone with its scope's reset")
        #expect(try await pair.received(0).isEmpty, "nothing was sent")
    }

    @Test func waitingWebhooksCountInTheUnsentBytesBound() async throws {
        let pair = try Pair(configure: { $0.maxUnsentBytes = 1 << 20 })
        _ = try await pair.stub(
            #"{"request": {"urlPath": "/big"}, "response": {}, "serveEventListeners": [{"name": "webhook", "parameters": {"method": "POST", "url": "\#(pair.target)/big", "body": "{{{originalRequest.body}}}", "delay": {"type": "fixed", "milliseconds": 30000}}}]}"#
        )
        let body = Data(repeating: UInt8(ascii: "a"), count: 400_000)
        for _ in 0..<3 { _ = try await pair.trigger.send("POST", "/big", body: body) }
        // The bound is the process's: answers of tests running alongside may hold some of it too.
        #expect(try await eventually { try subEvents(pair, of: "/big").count == 3 })
        #expect(pair.dispatch.pendingCount <= 2, "\(pair.dispatch.pendingCount)")
        let refused = try subEvents(pair, of: "/big").flatMap(messages)
        #expect(!refused.isEmpty && refused.allSatisfy { $0.contains("do not fit under --max-unsent-bytes") }, "\(refused)")
        // Cancelled, their bytes are back: another fits.
        _ = try await pair.trigger.send("DELETE", "/__admin/mappings")
        #expect(await eventually { pair.dispatch.pendingCount == 0 })
    }

    @Test func aChainOfSelfCallingWebhooksStopsAfterThreeLevels() async throws {
        let pair = try Pair()
        let url = "http://127.0.0.1:\(pair.trigger.port)/loop"
        _ = try await pair.stub(
            #"{"request": {"urlPath": "/loop"}, "response": {}, "serveEventListeners": [{"name": "webhook", "parameters": {"url": "\#(url)"}}, {"name": "webhook", "parameters": {"url": "\#(url)"}}]}"#
        )
        _ = try await pair.trigger.send("GET", "/loop")
        let journal = try #require(pair.trigger.router?.journal)
        func loops() -> Int { journal.entries.filter { $0.request.path == "/loop" }.count }
        #expect(await eventually { loops() >= 15 })
        try await Task.sleep(for: .milliseconds(500))
        #expect(loops() == 15, "1 + 2 + 4 + 8 requests, then no more")
        let hops = journal.entries.filter { $0.request.path == "/loop" }.compactMap { $0.request.headers[WebhookDispatch.hopsHeader] }
        #expect(Set(hops) == ["1", "2", "3"])
    }

    @Test func aWaitingWebhookHoldsNoSlotAndNoScopeTakesMoreThanAQuarterOfThem() async throws {
        let silent = try SilentListener()
        let pair = try Pair { $0.deadline = .seconds(5) }
        _ = try await pair.stub(
            #"{"request": {"urlPath": "/wait"}, "response": {}, "serveEventListeners": [{"name": "webhook", "parameters": {"url": "\#(pair.target)/w", "delay": {"type": "fixed", "milliseconds": 30000}}}]}"#
        )
        _ = try await pair.stub(
            #"{"request": {"urlPath": "/hang"}, "response": {}, "serveEventListeners": [{"name": "webhook", "parameters": {"url": "http://127.0.0.1:\#(silent.port)/h"}}]}"#
        )
        // More waiting webhooks than there are slots.
        for _ in 0..<(WebhookDispatch.maxInFlight + 20) { _ = try await pair.trigger.send("GET", "/wait") }
        #expect(await eventually { pair.dispatch.pendingCount == WebhookDispatch.maxInFlight + 20 })
        // Connections that never answer: one scope gets a quarter of the slots.
        let quarter = WebhookDispatch.maxInFlight / 4
        for _ in 0..<(quarter + 3) { _ = try await pair.trigger.send("GET", "/hang", headers: ["X-Understudy-Scope": "greedy"]) }
        #expect(try await eventually { try subEvents(pair, of: "/hang").allSatisfy { !$0.isEmpty } })
        let refused = try subEvents(pair, of: "/hang").flatMap(messages).filter { $0.contains("in flight already") }
        #expect(refused.count == 3, "\(refused.prefix(3))")
        // Another scope still has slots.
        _ = try await pair.trigger.send("GET", "/hang", headers: ["X-Understudy-Scope": "fair"])
        #expect(try await eventually { try subEvents(pair, of: "/hang").last?.first?["type"]?.stringValue == "WEBHOOK_REQUEST" })
        _ = try await pair.trigger.send("DELETE", "/__admin/mappings")
        #expect(await eventually { pair.dispatch.pendingCount == 0 })
    }

    @Test func theDeadlineRunsFromSendToLastByteHoweverSlowlyTheAnswerComes() async throws {
        let trickler = try SilentListener(trickle: true)
        let pair = try Pair { $0.deadline = .seconds(1) }
        _ = try await pair.stub(
            #"{"request": {"urlPath": "/slow"}, "response": {}, "serveEventListeners": [{"name": "webhook", "parameters": {"url": "http://127.0.0.1:\#(trickler.port)/s"}}]}"#
        )
        _ = try await pair.trigger.send("GET", "/slow")
        // The trickle lasts 14 s: the deadline's message, below, is the proof it was cut at 1 s.
        #expect(await eventually { pair.dispatch.pendingCount == 0 })
        let refused = messages(try await pair.subEvents(2, of: "/slow"))
        #expect(refused.contains { $0.contains("cancelled: no complete answer within 1") }, "\(refused)")
        #expect(trickler.written.value.load(ordering: .relaxed) > 0, "the answer was coming, a byte at a time")
    }
}

/// A loopback listener that never answers: it accepts nothing (the kernel completes connections
/// into its backlog), or, trickling, accepts and sends an answer's bytes one every 100 ms.
final class SilentListener: Sendable {
    let port: Int
    private let socket: Int32
    let written = WrittenCount()

    init(trickle: Bool = false) throws {
        #if canImport(Glibc)
        let made = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let made = Darwin.socket(AF_INET, SOCK_STREAM, 0)
        #endif
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(made, $0, length) == 0 && getsockname(made, $0, &length) == 0 }
        }
        guard made >= 0, bound, listen(made, 1024) == 0 else { throw TestServerError.notHTTP }
        socket = made
        port = Int(UInt16(bigEndian: address.sin_port))
        guard trickle else { return }
        Thread.detachNewThread { [made, written] in
            let client = accept(made, nil, nil)
            guard client >= 0 else { return }
            for byte in Array("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n".utf8) + Array(repeating: UInt8(ascii: "x"), count: 100) {
                var one = byte
                guard send(client, &one, 1, Int32(MSG_NOSIGNAL)) == 1 else { break }
                written.value.add(1, ordering: .relaxed)
                usleep(100_000)
            }
            close(client)
        }
    }

    // shutdown wakes the trickling thread's accept (close alone does not, on Linux).
    deinit {
        shutdown(socket, Int32(SHUT_RDWR))
        close(socket)
    }
}

final class WrittenCount: Sendable {
    let value = Atomic<Int>(0)
}
