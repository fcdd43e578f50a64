import Testing
import WireFormat

@Suite struct CivilDateTests {
    @Test func daysSince1970RoundTrip() {
        #expect(CivilDate(year: 1970, month: 1, day: 1).daysSince1970 == 0)
        #expect(CivilDate(year: 2000, month: 3, day: 1).daysSince1970 == 11_017)
        #expect(CivilDate(year: 1969, month: 12, day: 31).daysSince1970 == -1)
        #expect(CivilDate(daysSince1970: -719_528) == CivilDate(year: 0, month: 1, day: 1))
        for days in stride(from: Int64(-800_000), through: 800_000, by: 997) {
            #expect(CivilDate(daysSince1970: days).daysSince1970 == days)
        }
    }

    @Test func weekdaysLeapYearsAndValidity() {
        #expect(CivilDate(year: 1970, month: 1, day: 1).weekday == 4)  // Thursday
        #expect(CivilDate(year: 1969, month: 12, day: 28).weekday == 0)  // Sunday
        #expect(CivilDate(year: 2010, month: 10, day: 8).weekday == 5)  // Friday
        #expect(CivilDate.isLeap(2000) && CivilDate.isLeap(2024) && !CivilDate.isLeap(1900) && !CivilDate.isLeap(2023))
        #expect(CivilDate(year: 2024, month: 2, day: 29).isValid)
        #expect(!CivilDate(year: 2023, month: 2, day: 29).isValid)
        #expect(!CivilDate(year: 2023, month: 13, day: 1).isValid)
        #expect(!CivilDate(year: 2023, month: 4, day: 31).isValid)
        #expect(CivilDate(year: 987, month: 6, day: 5).iso8601 == "0987-06-05")
    }

    @Test func instantsAsISOAndHTTPDates() {
        let instant = UTCDateTime(millisecondsSince1970: 1_286_528_400_123)
        #expect(instant.iso8601 == "2010-10-08T09:00:00.123Z")
        #expect(instant.httpDate == "Fri, 08 Oct 2010 09:00:00 GMT")
        #expect(UTCDateTime(millisecondsSince1970: 784_111_777_000).httpDate == "Sun, 06 Nov 1994 08:49:37 GMT")
        #expect(UTCDateTime(millisecondsSince1970: -1).iso8601 == "1969-12-31T23:59:59.999Z")
    }
}
