import ArgumentParser
import Foundation
import HTTPServer
import JSON
import MockCore

/// `understudy tail`: follows another server's journal live (long-polling
/// `GET /__admin/requests/live`), one aligned line per request, as `serve --verbose` logs them,
/// and its WebSocket messages (`GET /__admin/messages`, read twice a second), one line each.
struct Tail: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Follow a running server's requests live, one line each.")

    @OptionGroup var server: RunningServerOptions

    @Option(help: "Only this scope's requests (default: every scope's).")
    var scope: String?

    @Option(help: "Requests already in the journal to show first.")
    var last = 10

    func validate() throws {
        guard last >= 0 else { throw ValidationError("--last must not be negative") }
    }

    /// Follows on a thread of its own; the main thread waits for SIGINT or SIGTERM (which a
    /// parent may have left blocked) and ends the command with status 0.
    func run() throws {
        let signals = ShutdownSignals()
        // Requests go out through libevent, as the server's own proxying does.
        let loop = try EventLoop.startClient()
        Thread.detachNewThread { follow(loop) }
        Thread.detachNewThread { followMessages(loop) }
        _ = signals.wait()
    }

    private func follow(_ loop: EventLoop) {
        let log = RequestLog.forStandardError()
        let base = server.base
        let scopeQuery = "&scope=" + (scope.flatMap { $0.addingPercentEncoding(withAllowedCharacters: .alphanumerics) } ?? "*")
        var next: Int? = nil
        var failures = 0
        while true {
            // The first call answers at once with the newest `last`; then each waits for more.
            let query = next.map { "after=\($0)&timeout=25" } ?? "after=0&timeout=0&limit=\(max(last, 1))"
            do {
                let page = try fetch(base + "/__admin/requests/live?" + query + scopeQuery, on: loop)
                let requests = page["requests"]?.arrayValue ?? []
                for request in requests where next != nil || last > 0 { log.emit(line(request, log)) }
                next = page["next"]?.intValue ?? next
                if failures > 0 { FileHandle.standardError.write(Data("tail: following \(base) again\n".utf8)) }
                failures = 0
            } catch {
                if failures == 0 { FileHandle.standardError.write(Data("tail: \(error); trying again every second\n".utf8)) }
                failures += 1
                Thread.sleep(forTimeInterval: 1)
            }
        }
    }

    /// The message journal, newest first, read every half second; what was not shown yet is
    /// printed, oldest first: `09:15:02.114  ws  received  "hello"  channel 1c0d2a4e  (no stub matched)`.
    private func followMessages(_ loop: EventLoop) {
        let address =
            server.base + "/__admin/messages?scope=" + (scope.flatMap { $0.addingPercentEncoding(withAllowedCharacters: .alphanumerics) } ?? "*")
        var shown: [String] = []
        var first = true
        while true {
            if let events = try? fetch(address, on: loop)["messageServeEvents"]?.arrayValue {
                let known = Set(shown)
                let new = events.filter { !known.contains($0["id"]?.stringValue ?? "") }.reversed()
                for event in first ? Array(new.suffix(last)) : Array(new) {
                    FileHandle.standardError.write(Data((Self.messageLine(event) + "\n").utf8))
                }
                shown = Array((shown + new.compactMap { $0["id"]?.stringValue }).suffix(20_000))
                first = false
            }
            Thread.sleep(forTimeInterval: 0.5)
        }
    }

    static func messageLine(_ event: JSONValue) -> String {
        let time = (event["timestamp"]?.stringValue ?? "").split(separator: "T").last.map { String($0.dropLast()) } ?? ""
        let text = event["message"]?.stringValue ?? ""
        let shown = text.count > 120 ? String(text.prefix(117)) + "…" : text
        let direction = (event["eventType"]?.stringValue ?? "?").padding(toLength: 8, withPad: " ", startingAt: 0)
        let channel = String((event["channel"]?["id"]?.stringValue ?? "").prefix(8))
        let unmatched = event["eventType"]?.stringValue == "received" && event["wasMatched"] != .bool(true) ? "  (no stub matched)" : ""
        return "\(time)  ws  \(direction)  \(JSONValue.string(shown).serialized)  channel \(channel)\(unmatched)"
    }

    private func line(_ request: JSONValue, _ log: RequestLog) -> String {
        log.line(
            loggedAt: Double(request["loggedDate"]?.intValue ?? 0) / 1000, method: request["method"]?.stringValue ?? "?",
            target: request["url"]?.stringValue ?? "?", status: request["status"]?.intValue ?? 0,
            servedBy: request["servedBy"]?.stringValue, micros: request["totalTimeMicros"]?.intValue ?? 0,
            scope: request["scope"]?.stringValue ?? StateScope.defaultName)
    }

    struct TailError: Error, CustomStringConvertible {
        let description: String
    }

    /// One call, waited for on this thread (the command does nothing else), sent from `loop`.
    private func fetch(_ address: String, on loop: EventLoop) throws -> JSONValue {
        let request = OutboundRequest(url: address, headers: server.headers, timeout: .seconds(40))
        let response: Response
        do {
            response = try loop.sendWaiting(request).get()
        } catch {
            throw TailError(description: "cannot reach \(address): \(error)")
        }
        let text = String(decoding: response.body.bytes, as: UTF8.self)
        guard response.status == 200 else { throw TailError(description: "\(address) answered \(response.status): \(text.prefix(300))") }
        do {
            return try JSONValue.parse(text)
        } catch {
            throw TailError(description: "\(address) answered what is not JSON: \(error)")
        }
    }
}
