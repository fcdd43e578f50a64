import Foundation
import HTTPServer
import Synchronization
import Testing
import UnderstudyTesting

@testable import MockCore

/// What a backend loads in the background, for the tests.
private final class LoadedText: Sendable {
    let text: String
    init(_ text: String) { self.text = text }
}

@Suite struct BackgroundLoadTests {
    @Test func aRequestBeforeTheLoadWaitsForItWhileItsLoopServesOthers() async throws {
        let load = BackgroundLoad<LoadedText>()
        let arrived = Locked(false)
        let server = try TestServer.start(backends: [
            ClosureBackend(name: "loaded", mounts: ["/loaded"]) { _ in
                .deferred { reply in
                    load.whenLoaded(reply) { value in reply.send(.text(value.text)) }
                    arrived.withLock { $0 = true }
                }
            },
            ClosureBackend(name: "other", mounts: ["/other"]) { _ in .response(.text("other")) },
        ]) { $0.threads = 1 }
        defer { server.stop() }
        #expect(!load.isLoaded)
        async let waiting = server.send("GET", "/loaded")
        #expect(await poll(until: { arrived.withLock { $0 } }, timeout: .seconds(30)))
        // The one loop answers another request while the first one waits for the load.
        let (other, _) = try await server.send("GET", "/other")
        #expect(other == Data("other".utf8))
        load.finish(LoadedText("fixture"))
        load.finish(LoadedText("a second load is ignored"))
        let (body, response) = try await waiting
        #expect(response.statusCode == 200)
        #expect(body == Data("fixture".utf8))
        #expect(load.value?.text == "fixture")
    }

    @Test func aDeferredReplyIsAnsweredOnceLoadedWhateverItsKind() async throws {
        let load = BackgroundLoad<LoadedText>()
        let server = try TestServer.start(backends: [
            ClosureBackend(name: "loaded", mounts: ["/loaded"]) { request in
                load.deferredReply { value in
                    switch request.path {
                    case "/loaded/later": .deferred { reply in reply.send(.text(value.text + " later"), after: .milliseconds(1)) }
                    case "/loaded/none": .decline
                    default: .response(.text(value.text))
                    }
                }
            }
        ])
        defer { server.stop() }
        async let now = server.send("GET", "/loaded/now")
        async let later = server.send("GET", "/loaded/later")
        async let none = server.send("GET", "/loaded/none")
        try await Task.sleep(for: .milliseconds(20))
        load.finish(LoadedText("fixture"))
        #expect(try await now.body == Data("fixture".utf8))
        #expect(try await later.body == Data("fixture later".utf8))
        // Once deferred, a request is answered: a decline after the load is a 404.
        #expect(try await none.response.statusCode == 404)
        // A reply deferred after the load is answered at its loop's next turn.
        #expect(try await server.send("GET", "/loaded/again").body == Data("fixture".utf8))
    }

    @Test func loadsHeldUntilTheServerListensStartWhenReleased() async throws {
        let load = BackgroundLoad<LoadedText>()
        let started = Atomic(false)
        // A gate of its own: holding the shared one would hold the loads of tests running alongside.
        let gate = LoadStart()
        gate.hold()
        load.start(after: gate) {
            started.store(true, ordering: .relaxed)
            return LoadedText("fixture")
        }
        try await Task.sleep(for: .milliseconds(50))
        let startedWhileHeld = started.load(ordering: .relaxed)
        #expect(!startedWhileHeld)
        gate.release()
        #expect(await poll(until: { load.isLoaded }))
        #expect(load.value?.text == "fixture")
        // Not held: a load starts at once.
        let next = BackgroundLoad<LoadedText>()
        next.start(after: gate) { LoadedText("next") }
        #expect(await poll(until: { next.isLoaded }))
        #expect(next.value?.text == "next")
    }
}
