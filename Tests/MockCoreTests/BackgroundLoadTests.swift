import Foundation
import HTTPServer
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
        let (arrived, arrival) = AsyncStream.makeStream(of: Void.self)
        let server = try TestServer.start(backends: [
            ClosureBackend(name: "loaded", mounts: ["/loaded"]) { _ in
                .deferred { reply in
                    load.whenLoaded(reply) { value in reply.send(.text(value.text)) }
                    arrival.yield()
                }
            },
            ClosureBackend(name: "other", mounts: ["/other"]) { _ in .response(.text("other")) },
        ]) { $0.threads = 1 }
        defer { server.stop() }
        #expect(!load.isLoaded)
        async let waiting = server.send("GET", "/loaded")
        for await _ in arrived { break }
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
}
