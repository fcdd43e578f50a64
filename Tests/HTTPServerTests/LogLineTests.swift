import Testing

@testable import HTTPServer

/// What a client can put in the log: its values escaped, its warnings throttled.
@Suite struct LogLineTests {
    @Test func controlCharactersAreWrittenAsEscapes() {
        #expect(LogText.escaped("x\r\nunderstudy: forged") == #"x\r\nunderstudy: forged"#)
        #expect(LogText.escaped("a\u{1B}[2Jb\u{9B}c\u{7F}\t\u{0}") == #"a\x1b[2Jb\u{9b}c\x7f\t\x00"#)
        #expect(LogText.escaped(#"back\slash"#) == #"back\\slash"#, "a backslash the client sent cannot pass for an escape")
        #expect(LogText.escaped("café ✓") == "café ✓")
        #expect(LogText.escaped(String(repeating: "a", count: 500), limit: 300) == String(repeating: "a", count: 300) + "…")
    }

    @Test func aThrottleLetsAFewLinesThroughPerWindowAndCountsTheRest() {
        let throttle = LogThrottle(windowSeconds: 5, linesPerWindow: 3) { count, seconds in "\(count) more in \(seconds) s" }
        let second: UInt64 = 1_000_000_000
        var made = 0
        var logged: [String] = []
        for index in 0..<100 {
            logged += throttle.lines(
                {
                    made += 1
                    return "line \(index)"
                }, now: 10 * second + UInt64(index) * 1_000_000)
        }
        #expect(logged == ["line 0", "line 1", "line 2"])
        #expect(made == 3, "a line left out is never made")
        #expect(throttle.lines({ "later" }, now: 16 * second) == ["97 more in 5 s", "later"])
        #expect(throttle.lines({ "again" }, now: 16 * second + 1) == ["again"])
    }
}
