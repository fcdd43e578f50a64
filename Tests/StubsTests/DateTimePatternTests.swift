import Foundation
import HTTPServer
import MockCore
import Testing
import UnderstudyTesting

@testable import Stubs

/// The date matchers, checked against what WireMock 2.35 answers for the same values.
@Suite struct DateTimePatternTests {
    @Test func fixedExpectedValueAgainstTheFormsWireMockReads() throws {
        let before = try content(#"{"before": "2021-06-14T12:13:14Z"}"#)
        #expect(before.matches("2021-06-14T12:13:13Z"))
        #expect(!before.matches("2021-06-14T12:13:15Z"))
        #expect(!before.matches("2021-06-14T12:13:14Z"))
        #expect(before.matches("2021-06-14T14:13:13+02:00"), "zoned values compare as instants")
        #expect(before.matches("2021-06-14T12:13:13.5Z"))
        #expect(before.matches("2021-06-14T12:13:13.123456+00:00"))
        #expect(before.matches("2021-06-14T12:13:13+02:00[Europe/Paris]"))
        #expect(before.matches("2021-06-14T12:13:13"), "a local value counts as UTC")
        #expect(before.matches("2021-06-14"), "a date is its midnight")
        #expect(before.matches("Mon, 14 Jun 2021 12:13:13 GMT"), "RFC 1123")
        #expect(before.matches("Monday, 14-Jun-21 12:13:13 GMT"), "RFC 1036")
        #expect(before.matches("Mon Jun 14 12:13:13 2021"), "asctime")
        // What WireMock does not read never matches.
        for unread in ["1623672793000", "junk", "2021-06-14T12:13:13+0000", "2021-06-14 12:13:13Z", "", "2021-02-30T00:00:00Z"] {
            #expect(!before.matches(unread), "\(unread)")
        }
        #expect(!before.matches(nil))

        let equal = try content(#"{"equalToDateTime": "2021-06-14T12:13:14Z"}"#)
        #expect(equal.matches("2021-06-14T14:13:14+02:00"))
        #expect(equal.matches("2021-06-14T12:13:14"))
        #expect(!equal.matches("2021-06-14T12:13:14.001Z"))
        // An offset moves only `now`, as in WireMock.
        #expect(
            try content(#"{"equalToDateTime": "2021-06-14T12:00:00Z", "expectedOffset": 1, "expectedOffsetUnit": "days"}"#).matches(
                "2021-06-14T12:00:00Z"))
        // A local expected value is compared with the request's wall clock, its zone dropped.
        #expect(try content(#"{"equalToDateTime": "2021-06-14T12:13:14"}"#).matches("2021-06-14T12:13:14+05:00"))
    }

    @Test func nowWithOffsetsAndTruncation() throws {
        #expect(try content(#"{"after": "now +3 days"}"#).matches("2099-01-01T00:00:00Z"))
        #expect(try !content(#"{"after": "now +3 days"}"#).matches(iso(Date().addingTimeInterval(86_400))))
        #expect(try content(#"{"before": "now -1 hours"}"#).matches(iso(Date().addingTimeInterval(-7200))))
        #expect(try content(#"{"before": "2 days"}"#).matches(iso(Date().addingTimeInterval(86_400))))
        #expect(
            try content(#"{"after": "now", "expectedOffset": -3, "expectedOffsetUnit": "days"}"#).matches(iso(Date().addingTimeInterval(-86_400))))
        #expect(
            try !content(#"{"after": "now", "expectedOffset": -3, "expectedOffsetUnit": "days"}"#).matches(
                iso(Date().addingTimeInterval(-4 * 86_400))))
        #expect(try content(#"{"after": "now -1 months"}"#).matches(iso(Date().addingTimeInterval(-20 * 86_400))))
        #expect(try !content(#"{"after": "now -1 years"}"#).matches(iso(Date().addingTimeInterval(-400 * 86_400))))

        let thisMonth = try content(#"{"equalToDateTime": "now", "truncateExpected": "first day of month", "truncateActual": "first day of month"}"#)
        let parts = Calendar(identifier: .gregorian).dateComponents(in: TimeZone(identifier: "UTC")!, from: Date())
        #expect(thisMonth.matches(String(format: "%04d-%02d-05T10:00:00Z", parts.year!, parts.month!)))
        #expect(!thisMonth.matches("2020-01-01T00:00:00Z"))
        let nextMonthStart = try content(#"{"before": "now", "truncateExpected": "first day of next month"}"#)
        #expect(nextMonthStart.matches(iso(Date())))
    }

    @Test func truncationsLandWhereJavaTimeDoes() throws {
        let value = try #require(DateTimeFormat.readStandard("2024-02-10T13:45:30.5+01:00"))
        func truncated(_ name: DateTimePattern.Truncation) -> String {
            let result = name.apply(value)
            let (year, month, day) = result.fields
            let seconds = result.wallSeconds - result.wallSeconds.floorDiv(86_400) * 86_400
            return String(format: "%04d-%02d-%02d %05d", year, month, day, Int(seconds))
        }
        #expect(truncated(.firstSecondOfMinute) == "2024-02-10 49500")
        #expect(truncated(.firstMinuteOfHour) == "2024-02-10 46800")
        #expect(truncated(.firstHourOfDay) == "2024-02-10 00000")
        #expect(truncated(.firstDayOfMonth) == "2024-02-01 00000")
        #expect(truncated(.firstDayOfNextMonth) == "2024-03-01 00000")
        #expect(truncated(.lastDayOfMonth) == "2024-02-29 00000")
        #expect(truncated(.firstDayOfYear) == "2024-01-01 00000")
        #expect(truncated(.firstDayOfNextYear) == "2025-01-01 00000")
        #expect(truncated(.lastDayOfYear) == "2024-12-31 00000")
        let shifted = DateTimePattern.Offset(amount: 1, unit: .months).shift(try #require(DateTimeFormat.readStandard("2024-01-31")))
        #expect(shifted.fields == (2024, 2, 29), "adding a month clamps the day, as java.time does")
    }

    @Test func actualFormatReadsTheRequestsValue() throws {
        let european = try content(#"{"equalToDateTime": "2021-06-14T12:00:00", "actualFormat": "dd/MM/yyyy HH:mm"}"#)
        #expect(european.matches("14/06/2021 12:00"))
        #expect(!european.matches("2021-06-14T12:00:00Z"), "only the given format is read")
        #expect(!european.matches("14/06/2021 12"))
        #expect(try content(#"{"equalToDateTime": "2021-06-14", "actualFormat": "d MMMM yyyy"}"#).matches("14 June 2021"))
        #expect(
            try content(#"{"equalToDateTime": "2021-06-14T15:04:00Z", "actualFormat": "yyyy-MM-dd hh:mm a XXX"}"#).matches(
                "2021-06-14 05:04 PM +02:00"))
        #expect(try content(#"{"equalToDateTime": "2021-06-14T12:13:13Z", "actualFormat": "epoch"}"#).matches("1623672793000"))
        #expect(try content(#"{"equalToDateTime": "2021-06-14T12:13:13Z", "actualFormat": "unix"}"#).matches("1623672793"))
        #expect(try !content(#"{"equalToDateTime": "2021-06-14T12:13:13Z", "actualFormat": "unix"}"#).matches("99999999999999999999"))
        #expect(try content(#"{"before": "2021-06-14T12:13:13Z", "actualFormat": "yy.MM.dd"}"#).matches("21.06.13"))
    }

    @Test func badDateSpecsAreLoadErrorsThatSayWhere() {
        func error(_ json: String) -> String {
            do {
                _ = try content(json)
                return ""
            } catch { return "\(error)" }
        }
        #expect(error(#"{"before": "yesterday"}"#).contains("test.before"))
        #expect(error(#"{"before": "now +3 fortnights"}"#).contains("unknown unit 'fortnights'"))
        #expect(error(#"{"after": "now", "truncateExpected": "first week"}"#).contains("test.truncateExpected"))
        #expect(error(#"{"after": "now", "actualFormat": "yyyy-MM-dd Q"}"#).contains("pattern letter 'Q'"))
        #expect(error(#"{"after": "now", "expectedOffset": "x"}"#).contains("test.expectedOffset"))
    }

    @Test func nearMissesSayWhatDateWasExpected() async throws {
        let root = try makeTemporaryDirectory([
            "mappings/d.json":
                #"{"request": {"urlPath": "/trips", "queryParameters": {"from": {"after": "now +1 days"}}}, "response": {"body": "ok"}}"#
        ])
        defer { try? FileManager.default.removeItem(at: root) }
        let engine = StubEngine(stubsDirectory: root)
        let server = try BackendTester(backends: [engine])
        #expect(try await server.send("GET", "/trips?from=2099-01-01T00:00:00Z").response.statusCode == 200)
        let (body, response) = try await server.send("GET", "/trips?from=2020-01-01T00:00:00Z")
        #expect(response.statusCode == 404)
        #expect(String(decoding: body, as: UTF8.self).contains("expected after now +1 days"))
    }

    private func iso(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        return formatter.string(from: date)
    }
}
