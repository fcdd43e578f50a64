import Foundation
import JSON
import MockCore
import Templating

/// WireMock's date matchers: `before`, `after`, `equalToDateTime`. The expected value is a fixed
/// ISO 8601 date-time or `now` (with an offset: `now +3 days`, `-1 hours`, or `expectedOffset` +
/// `expectedOffsetUnit`); either side may be truncated (`first day of month`, …) first.
public struct DateTimePattern: Sendable {
    enum Comparison: String, Sendable {
        case before, after, equalToDateTime
    }

    enum Expected: Sendable {
        case fixed(DateTimeValue)
        case now
    }

    /// An amount of `unit`s; months and years move the calendar date, as java.time does.
    struct Offset: Sendable {
        enum Unit: String, Sendable, CaseIterable { case seconds, minutes, hours, days, months, years }
        var amount: Int
        var unit: Unit

        func shift(_ value: DateTimeValue) -> DateTimeValue {
            var shifted = value
            switch unit {
            case .seconds: shifted.wallSeconds += Int64(amount)
            case .minutes: shifted.wallSeconds += Int64(amount) * 60
            case .hours: shifted.wallSeconds += Int64(amount) * 3600
            case .days: shifted.wallSeconds += Int64(amount) * 86_400
            case .months, .years:
                let (year, month, day) = value.fields
                let months = year * 12 + (month - 1) + amount * (unit == .years ? 12 : 1)
                let newYear = months >= 0 ? months / 12 : (months - 11) / 12
                shifted = value.moved(toYear: newYear, month: months - newYear * 12 + 1, day: day)
            }
            return shifted
        }

        var description: String { (amount >= 0 ? "+" : "") + "\(amount) \(unit.rawValue)" }
    }

    typealias Truncation = DateTruncation

    let comparison: Comparison
    let expected: Expected
    let offset: Offset?
    let actualFormat: DateTimeFormat
    let actualFormatText: String?
    let truncateExpected: Truncation?
    let truncateActual: Truncation?
    /// The expected value as the mapping gives it, for near-miss reports.
    let source: String

    func matches(_ text: String) -> Bool {
        guard var actual = actualFormat.read(text) else { return false }
        if let truncateActual { actual = truncateActual.apply(actual) }
        var expectedValue: DateTimeValue
        switch expected {
        case .fixed(let value): expectedValue = value
        case .now:
            // As WireMock: only `now` is truncated, then shifted.
            expectedValue = truncateExpected?.apply(.now()) ?? .now()
            if let offset { expectedValue = offset.shift(expectedValue) }
        }
        let (a, b) = Self.comparable(actual, expectedValue)
        switch comparison {
        case .before: return a < b
        case .after: return a > b
        case .equalToDateTime: return a == b
        }
    }

    /// Both sides on one clock, as WireMock compares them: two zoned values as instants; a local
    /// expected value against the actual one's wall clock; a local actual value as UTC.
    private static func comparable(_ actual: DateTimeValue, _ expected: DateTimeValue) -> (DateTimeValue, DateTimeValue) {
        guard expected.offset != nil else {
            return (DateTimeValue(wallSeconds: actual.wallSeconds, nanoseconds: actual.nanoseconds, offset: nil), expected)
        }
        let instant = { (value: DateTimeValue) in DateTimeValue(wallSeconds: value.instantSeconds, nanoseconds: value.nanoseconds, offset: 0) }
        return (instant(actual), instant(expected))
    }

    var expectation: String {
        var text =
            switch comparison {
            case .before: "before "
            case .after: "after "
            case .equalToDateTime: "equal to date-time "
            }
        text += source
        if let offset, source.lowercased() == "now" { text += " " + offset.description }
        if let truncateExpected { text += " (truncated to \(truncateExpected.rawValue))" }
        if let actualFormatText { text += ", read as '\(actualFormatText)'" }
        if let truncateActual { text += ", the request's value truncated to \(truncateActual.rawValue)" }
        return text
    }
}

extension DateTimePattern {
    /// Reads `{"before": "now +3 days", "actualFormat": …, "truncateExpected": …}` (the operator
    /// key is `comparison`'s name).
    static func parse(_ json: JSONValue, comparison: Comparison, field: String) throws(StubError) -> DateTimePattern {
        let key = comparison.rawValue
        guard let spec = json[key]?.stringValue?.trimmingCharacters(in: .whitespaces) else {
            throw StubError(field: "\(field).\(key)", message: "expected an ISO 8601 date-time or 'now' (e.g. \"now +3 days\")")
        }
        let expected: Expected
        var offset: Offset?
        if let relative = try parseRelative(spec, field: "\(field).\(key)") {
            expected = .now
            offset = relative.amount == 0 ? nil : relative
        } else if let value = DateTimeFormat.readStandard(spec) {
            expected = .fixed(value)
        } else {
            throw StubError(
                field: "\(field).\(key)",
                message:
                    "'\(spec)' is not an ISO 8601 date-time (2021-06-14T12:13:14Z, 2021-06-14T12:13:14, 2021-06-14) nor 'now [+-]<amount> <unit>'")
        }
        // WireMock reads the offset fields, but shifts only `now` by them.
        if let amount = json["expectedOffset"] {
            guard let amount = amount.intValue else { throw StubError(field: "\(field).expectedOffset", message: "expected a whole number") }
            let unitName = json["expectedOffsetUnit"]?.stringValue ?? "days"
            guard let unit = Offset.Unit(rawValue: unitName.lowercased()) else {
                throw StubError(
                    field: "\(field).expectedOffsetUnit", message: "expected one of \(Offset.Unit.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            if case .now = expected { offset = Offset(amount: amount, unit: unit) }
        }
        var actualFormat = DateTimeFormat.standard
        let formatText = json["actualFormat"]?.stringValue
        if let formatText {
            do { actualFormat = try DateTimeFormat.parse(formatText) } catch {
                throw StubError(field: "\(field).actualFormat", message: error.message)
            }
        }
        return DateTimePattern(
            comparison: comparison, expected: expected, offset: offset, actualFormat: actualFormat,
            actualFormatText: formatText,
            truncateExpected: try truncation("truncateExpected", in: json, field: field),
            truncateActual: try truncation("truncateActual", in: json, field: field), source: spec)
    }

    /// `now`, `now +3 days`, `now -1 hours`, `3 days`: an offset from now; nil for anything else.
    private static func parseRelative(_ spec: String, field: String) throws(StubError) -> Offset? {
        var words = spec.split(separator: " ").map { $0.lowercased() }
        guard words.first == "now" || (words.count == 2 && Int(words[0]) != nil) else { return nil }
        if words.first == "now" { words.removeFirst() }
        if words.isEmpty { return Offset(amount: 0, unit: .seconds) }
        guard words.count == 2, let amount = Int(words[0]) else {
            throw StubError(field: field, message: "'\(spec)': expected 'now [+-]<amount> <unit>', e.g. 'now +3 days'")
        }
        guard let unit = Offset.Unit(rawValue: words[1]) else {
            throw StubError(
                field: field,
                message: "'\(spec)': unknown unit '\(words[1])' (expected one of \(Offset.Unit.allCases.map(\.rawValue).joined(separator: ", ")))")
        }
        return Offset(amount: amount, unit: unit)
    }

    private static func truncation(_ key: String, in json: JSONValue, field: String) throws(StubError) -> Truncation? {
        guard let value = json[key] else { return nil }
        guard let name = value.stringValue, let truncation = Truncation(rawValue: name.lowercased().replacingOccurrences(of: "_", with: " ")) else {
            throw StubError(
                field: "\(field).\(key)", message: "expected one of \(Truncation.allCases.map { "'\($0.rawValue)'" }.joined(separator: ", "))")
        }
        return truncation
    }
}

/// A truncation applied to a matcher's date (the templates apply it to a `Date`).
extension DateTruncation {
    func apply(_ value: DateTimeValue) -> DateTimeValue {
        let (year, month, _) = value.fields
        switch self {
        case .firstSecondOfMinute: return Self.floor(value, to: 60)
        case .firstMinuteOfHour: return Self.floor(value, to: 3600)
        case .firstHourOfDay: return value.startOfDay
        case .firstDayOfMonth: return value.moved(toYear: year, month: month, day: 1).startOfDay
        case .firstDayOfNextMonth:
            return value.moved(toYear: month == 12 ? year + 1 : year, month: month == 12 ? 1 : month + 1, day: 1).startOfDay
        case .lastDayOfMonth: return value.moved(toYear: year, month: month, day: 31).startOfDay
        case .firstDayOfYear: return value.moved(toYear: year, month: 1, day: 1).startOfDay
        case .firstDayOfNextYear: return value.moved(toYear: year + 1, month: 1, day: 1).startOfDay
        case .lastDayOfYear: return value.moved(toYear: year, month: 12, day: 31).startOfDay
        }
    }

    private static func floor(_ value: DateTimeValue, to seconds: Int64) -> DateTimeValue {
        DateTimeValue(wallSeconds: value.wallSeconds.floorDiv(seconds) * seconds, offset: value.offset)
    }
}
