import Dispatch
import Foundation
import HTTPServer
import MockCore
import Testing
import UnderstudyTesting

/// What belongs to an event loop stays on its thread: debug builds trap a loop-only call made from
/// elsewhere, and a reply computed off the loop is never released off it, even when the server
/// stopped meanwhile.
@Suite struct ThreadConfinementTests {
    #if DEBUG
    @Test func aLoopOnlyCallFromAnotherThreadTrapsInDebugBuilds() async throws {
        let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let server = try TestServer.start(
                handler: ClosureHandler { _, responder in
                    let loop = responder.loop
                    responder.send(Response(status: 200))
                    // A timer armed from a worker thread: libevent would race the loop's own thread.
                    DispatchQueue.global().async { loop.schedule(after: .seconds(1)) {} }
                })
            _ = try await server.send("GET", "/")
            try await Task.sleep(for: .seconds(10))
        }
        #expect(String(decoding: result.standardErrorContent, as: UTF8.self).contains("schedule(after:_:) called off event loop"))
    }
    #endif

    @Test func aReplyComputedAfterTheServerStoppedIsDroppedSafely() async throws {
        let started = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let finished = DispatchSemaphore(value: 0)
        let queue = DispatchQueue(label: "slow work")
        let backend = ClosureBackend(name: "slow", mounts: ["/slow"]) { _ in
            .computed(on: queue) {
                started.signal()
                release.wait()
                defer { finished.signal() }
                return Response(status: 200)
            }
        }
        let server = try TestServer.start(backends: [backend])
        let connection = try server.connect()
        try connection.send("GET /slow HTTP/1.1\r\nHost: x\r\n\r\n")
        started.wait()
        // The loop ends with the reply still outstanding; then the work finishes.
        server.stop(gracePeriod: .milliseconds(50))
        release.signal()
        finished.wait()
        // The worker found its loop gone: releasing the unanswered reply there would trap in a
        // debug build (a responder's libevent request touched off its loop), ending this test run.
        try await Task.sleep(for: .milliseconds(200))
    }
}
