import CEvhttpHeaders
import CLibevent
import Foundation
import HTTPServer
import Testing
import UnderstudyTesting

/// evhttp's status and header lines written by the executable's `evbuffer_add_printf`: the same
/// bytes as libevent's vsnprintf-based formatter, and (on ELF systems) really what evhttp calls.
@Suite struct ResponseHeaderLinesTests {
    /// The bytes a line makes through `write`.
    func bytes(_ write: (OpaquePointer) -> Int32) -> ([UInt8], Int32) {
        let buffer = evbuffer_new()!
        defer { evbuffer_free(buffer) }
        let written = write(buffer)
        var out = [UInt8](repeating: 0, count: evbuffer_get_length(buffer))
        _ = evbuffer_remove(buffer, &out, out.count)
        return (out, written)
    }

    @Test func headerLinesAreVsnprintfsBytes() {
        let long = String(repeating: "v", count: 3000)
        let cases: [(String?, String?)] = [
            ("Content-Type", "text/plain; charset=utf-8"), ("Date", "Thu, 26 Nov 2026 18:26:29 GMT"), ("X-Empty", ""), ("", "no key"),
            ("X-Long", long), ("X-Nearly", String(repeating: "w", count: 1024 - 4 - 6)), ("X-Unicode", "naïve ✓"),
            (nil, "a"), ("X-Null", nil),
        ]
        for (key, value) in cases {
            let fast = bytes { buffer in cString(key) { k in cString(value) { v in understudy_printf_header(buffer, k, v) } } }
            let slow = bytes { buffer in cString(key) { k in cString(value) { v in understudy_vprintf_header(buffer, k, v) } } }
            #expect(fast.0 == slow.0 && fast.1 == slow.1, "\(key ?? "nil"): \(value?.prefix(20) ?? "nil")")
        }
    }

    /// `text` as a C string for `body`, or NULL.
    func cString(_ text: String?, _ body: (UnsafePointer<CChar>?) -> Int32) -> Int32 {
        guard let text else { return body(nil) }
        return text.withCString(body)
    }

    @Test func statusLinesAreVsnprintfsBytes() {
        for (major, minor, code, reason) in [
            (1, 1, 200, "OK"), (1, 0, 404, "Not Found"), (1, 1, 599, ""), (2, 0, -1, "odd"), (1, 1, Int32.max, "max"),
        ] {
            let fast = bytes { understudy_printf_status($0, Int32(major), Int32(minor), Int32(code), reason) }
            let slow = bytes { understudy_vprintf_status($0, Int32(major), Int32(minor), Int32(code), reason) }
            #expect(fast.0 == slow.0 && fast.1 == slow.1, "\(code) \(reason)")
        }
    }

    #if os(Linux)
    /// The executable's definition stands in for libevent's: a response's lines are counted (on
    /// the loop's thread, where evhttp writes them while `send` runs).
    @Test func evhttpWritesAResponseThroughIt() async throws {
        let counted = Locked<UInt?>(nil)
        let server = try TestServer.start(
            handler: ClosureHandler { _, responder in
                let before = ResponseHeaderLines.writtenDirectlyOnThisThread
                responder.send(.text("hi\n"))
                counted.withLock { $0 = ResponseHeaderLines.writtenDirectlyOnThisThread - before }
            })
        defer { server.stop() }
        let (body, _) = try await server.send("GET", "/")
        #expect(String(decoding: body, as: UTF8.self) == "hi\n")
        let lines = try #require(counted.withLock { $0 })
        #expect(lines >= 3, "the status line and at least two headers")
    }
    #endif
}

/// evhttp's header-name comparison as the executable defines it: libevent's results, byte for byte.
@Suite struct HeaderNameComparisonTests {
    @Test func sameResultsAsLibevent() {
        #if os(Linux)
        #expect(understudy_libevent_strcasecmp_found() == 1, "libevent's own is what the results are compared with")
        #endif
        var names = [
            "Content-Length", "content-length", "CONTENT-LENGTH", "Content-Type", "Date", "", "Connection", "connection ", "x",
            "Proxy-Connection", "Transfer-Encoding", "ÄÖ", "äö", "Zz[", "zZ{", "@`", "\u{7f}",
        ]
        names += (0..<200).map { _ in String((0..<Int.random(in: 0...6)).map { _ in Character(Unicode.Scalar(UInt8.random(in: 1...255))) }) }
        func sign(_ value: Int32) -> Int32 { value < 0 ? -1 : value > 0 ? 1 : 0 }
        for a in names {
            for b in names {
                let ours = a.withCString { x in b.withCString { y in understudy_strcasecmp(x, y) } }
                let theirs = a.withCString { x in b.withCString { y in understudy_libevent_strcasecmp(x, y) } }
                #expect(sign(ours) == sign(theirs), "\(Array(a.utf8)) vs \(Array(b.utf8))")
            }
        }
    }
}

#if os(Linux)
/// evhttp's HTTP-version parse through the executable's `sscanf`: glibc's results, and really what
/// evhttp calls for a request.
@Suite struct HTTPVersionScanTests {
    @Test func sameResultsAsGlibc() {
        let versions = [
            "HTTP/1.1", "HTTP/1.0", "HTTP/0.9", "HTTP/2.0", "HTTP/01.001", "HTTP/999999999.1", "HTTP/1234567890.1", "HTTP/1.1234567890",
            "HTTP/1.1x", "HTTP/1.1 ", "HTTP/ 1.1", "HTTP/+1.1", "HTTP/-1.1", "HTTP/1. 1", "HTTP/1", "HTTP/1.", "HTTP/.1", "HTTP/",
            "HTTP", "http/1.1", "", "HTTP/1.1\r", "HTTP/4294967297.0", "HTTP/1.1.1", "xHTTP/1.1",
        ]
        for version in versions {
            var ours: (Int32, Int32, Int32, CChar) = (0, -7, -7, 0x55)
            var glibc: (Int32, Int32, Int32, CChar) = (0, -7, -7, 0x55)
            ours.0 = understudy_scan_version(version, &ours.1, &ours.2, &ours.3)
            glibc.0 = understudy_glibc_scan_version(version, &glibc.1, &glibc.2, &glibc.3)
            #expect(ours == glibc, "\(version.debugDescription)")
        }
    }

    /// A request's version is read by the executable's function, on the loop's thread.
    @Test func evhttpReadsARequestsVersionThroughIt() async throws {
        let counted = Locked<UInt?>(nil)
        let server = try TestServer.start(
            handler: ClosureHandler { _, responder in
                counted.withLock { $0 = understudy_fast_versions() }
                responder.send(.text("hi\n"))
            })
        defer { server.stop() }
        _ = try await server.send("GET", "/")
        #expect(try #require(counted.withLock { $0 }) >= 1)
    }
}
#endif
