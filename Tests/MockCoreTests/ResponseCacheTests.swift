import HTTPServer
import MockCore
import Testing

/// The cache of rendered answers: bounded, and never answering for another generation of data.
@Suite struct ResponseCacheTests {
    private func response(_ text: String) -> Response { .text(text) }

    @Test func aFullCacheStartsOverAndAZeroCapacityKeepsNothing() {
        let cache = ResponseCache(capacity: 3)
        for index in 0..<3 { cache.store(response("\(index)"), for: "k\(index)") }
        #expect(cache.response(for: "k2")?.body.text == "2")
        cache.store(response("3"), for: "k3")
        #expect(cache.response(for: "k0") == nil)
        #expect(cache.response(for: "k3")?.body.text == "3")
        let none = ResponseCache(capacity: 0)
        none.store(response("x"), for: "k")
        #expect(none.response(for: "k") == nil)
    }

    @Test func bodiesAreKeptUnderTheByteCap() {
        let cache = ResponseCache(capacity: 100, maxBytes: 1_000)
        let body = String(repeating: "x", count: 200)
        for index in 0..<5 { cache.store(response(body), for: "k\(index)") }
        #expect(cache.bytes == 1_000)
        cache.store(response(body), for: "k0")
        #expect(cache.bytes == 1_000, "a replaced answer's bytes are not counted twice")
        cache.store(response(body), for: "k5")
        #expect(cache.bytes == 200, "past the cap it starts over")
        #expect(cache.response(for: "k1") == nil && cache.response(for: "k5") != nil)
        cache.store(response(String(repeating: "y", count: 251)), for: "big")
        #expect(cache.response(for: "big") == nil, "an answer over a quarter of the cap is not kept")
    }

    @Test func aNewGenerationForgetsTheOldOneAndAnOldOneIsNotStored() {
        let cache = ResponseCache(capacity: 10)
        cache.store(response("old"), for: "k", generation: 1)
        #expect(cache.response(for: "k", generation: 1)?.body.text == "old")
        #expect(cache.response(for: "k", generation: 2) == nil)
        cache.store(response("new"), for: "k", generation: 2)
        #expect(cache.response(for: "k", generation: 1) == nil)
        // An answer computed from older data, arriving late, does not replace the newer ones.
        cache.store(response("late"), for: "k", generation: 1)
        #expect(cache.response(for: "k", generation: 2)?.body.text == "new")
    }
}
