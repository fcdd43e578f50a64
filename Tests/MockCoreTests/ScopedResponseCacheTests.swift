import HTTPServer
import MockCore
import Testing

/// The answers cache emulators keep per scope under one cap (Informix's SQL answers, Lotus's feeds).
@Suite struct ScopedResponseCacheTests {
    @Test func theResponseCacheKeepsToItsByteCap() {
        let cache = ScopedResponseCache(maxEntries: 100, maxBytes: 10_000)
        func response(_ size: Int) -> Response {
            Response(status: 200, headers: [:], body: ResponseBody(shared: SharedBytes([UInt8](repeating: 0x61, count: size))))
        }
        for index in 0..<20 {
            cache.store(response(1_000), bodyBytes: 1_000, scope: "s", key: "k\(index)", generation: 0)
            #expect(cache.bytes <= 10_000)
        }
        #expect(cache.count < 10)
        // The least recently used went first: the newest are there, the oldest are not.
        #expect(cache.response(scope: "s", key: "k19", generation: 0) != nil)
        #expect(cache.response(scope: "s", key: "k0", generation: 0) == nil)
        // Used again, an old answer stays while a newer one goes.
        let kept = "k\(20 - cache.count)"
        #expect(cache.response(scope: "s", key: kept, generation: 0) != nil)
        cache.store(response(1_000), bodyBytes: 1_000, scope: "s", key: "new", generation: 0)
        #expect(cache.response(scope: "s", key: kept, generation: 0) != nil)
        #expect(cache.bytes <= 10_000)
        // Too big for the cap: not kept, and nothing else thrown out for it.
        let before = cache.count
        cache.store(response(20_000), bodyBytes: 20_000, scope: "s", key: "huge", generation: 0)
        #expect(cache.response(scope: "s", key: "huge", generation: 0) == nil)
        #expect(cache.count == before)
        // A changed database, or a scope opened again, is never answered from old entries.
        #expect(cache.response(scope: "s", key: "k19", generation: 1) == nil)
        cache.store(response(10), bodyBytes: 10, scope: "t", key: "k", generation: 0)
        // What each scope holds (the key counts too), for the scope list.
        #expect(cache.bytes(of: "t") == 10 + "t\u{0}k".utf8.count)
        #expect(cache.bytes(of: "s") + cache.bytes(of: "t") == cache.bytes)
        cache.forget(scope: "s")
        #expect(cache.count == 1)
        #expect(cache.response(scope: "t", key: "k", generation: 0) != nil)
    }
}
