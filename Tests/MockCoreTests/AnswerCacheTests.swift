import HTTPServer
import MockCore
import Testing

/// The one answer cache of the emulators: bounded by count and bytes for all scopes together, the
/// least recently used answers going first, and never answering for another generation of data.
@Suite struct AnswerCacheTests {
    private func response(_ size: Int) -> Response {
        Response(status: 200, headers: [:], body: ResponseBody(shared: SharedBytes([UInt8](repeating: 0x61, count: size))))
    }

    @Test func itKeepsToItsByteCapDroppingTheLeastRecentlyUsed() {
        let cache = AnswerCache(maxEntries: 100, maxBytes: 10_000)
        for index in 0..<20 {
            cache.store(response(1_000), for: "k\(index)", in: "s")
            #expect(cache.bytes <= 10_000)
        }
        #expect(cache.count < 10)
        #expect(cache.response(for: "k19", in: "s") != nil)
        #expect(cache.response(for: "k0", in: "s") == nil)
        // Used again, the oldest answer left stays while newer ones go.
        let oldest = (0..<20).first { cache.response(for: "k\($0)", in: "s") != nil }
        #expect(oldest != nil)
        for index in 20..<26 { cache.store(response(1_000), for: "k\(index)", in: "s") }
        #expect(cache.response(for: "k\(oldest ?? 0)", in: "s") != nil, "used last before the stores: kept")
        #expect(cache.bytes <= 10_000)
        // Over a quarter of the cap: not kept, and nothing else thrown out for it.
        let before = cache.count
        cache.store(response(2_600), for: "big", in: "s")
        #expect(cache.response(for: "big", in: "s") == nil)
        #expect(cache.count == before)
    }

    @Test func itKeepsToItsCountAndACountOfNoneKeepsNothing() {
        let cache = AnswerCache(maxEntries: 8)
        for index in 0..<100 {
            cache.store(response(10), for: "k\(index)")
            #expect(cache.count <= 8)
        }
        #expect(cache.response(for: "k99") != nil)
        let none = AnswerCache(maxEntries: 0)
        none.store(response(1), for: "k")
        #expect(none.response(for: "k") == nil && !none.isEnabled)
    }

    @Test func generationsAreNeverMixed() {
        let cache = AnswerCache(maxEntries: 10)
        cache.store(.text("old"), for: "k", generation: 1)
        #expect(cache.response(for: "k", generation: 1)?.body.text == "old")
        #expect(cache.response(for: "k", generation: 2) == nil, "a changed database is not answered from old entries")
        cache.store(.text("new"), for: "k", generation: 2)
        #expect(cache.response(for: "k", generation: 1) == nil)
        // An answer made from older data, stored late, does not replace the newer one.
        cache.store(.text("late"), for: "k", generation: 1)
        #expect(cache.response(for: "k", generation: 2)?.body.text == "new")
        let statistics = cache.statistics
        #expect(statistics.hits == 2 && statistics.misses == 2)
    }

    @Test func scopesAreKeptApartAndForgottenAlone() {
        let cache = AnswerCache(maxEntries: 100, maxBytes: 100_000)
        cache.store(response(100), for: "k", in: "s")
        cache.store(response(10), for: "k", in: "t")
        #expect(cache.response(for: "k", in: "u") == nil)
        // What each scope holds (the key counts too), for the scope list.
        #expect(cache.bytes(of: "t") == 10 + "tk".utf8.count)
        #expect(cache.bytes(of: "s") + cache.bytes(of: "t") == cache.bytes)
        cache.forget(scope: "s")
        #expect(cache.count == 1)
        #expect(cache.response(for: "k", in: "t") != nil && cache.response(for: "k", in: "s") == nil)
        // The caller may say what the body holds (a page built over a shared one holds nothing).
        cache.store(response(5_000), for: "page", bodyBytes: 0)
        #expect(cache.bytes(of: AnswerCache.unscoped) == "page".utf8.count)
    }
}
