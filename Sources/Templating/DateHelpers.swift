import Foundation

/// Dates: WireMock's `now`, `date`, `parseDate` and `truncateDate`, and Handlebars.java's
/// `dateFormat`. Dates are UTC unless a `timezone=` says otherwise.
extension TemplateHelpers {
    static let dates = TemplateHelpers([
        "now": { call throws(HelperError) in
            let date = try TemplateDates.offset(Date(), by: call.hash["offset"]?.text)
            return try TemplateDates.format(date, pattern: call.hash["format"]?.text, timeZone: call.hash["timezone"]?.text)
        },
        "parseDate": { call throws(HelperError) in
            .date(try TemplateDates.parse(call.text(0, "a date"), pattern: call.hash["format"]?.text))
        },
        "date": { call throws(HelperError) in
            let date = try givenDate(call, example: "{{date (parseDate request.headers.Date) offset='1 days'}}")
            return try TemplateDates.format(
                TemplateDates.offset(date, by: call.hash["offset"]?.text),
                pattern: call.hash["format"]?.text, timeZone: call.hash["timezone"]?.text)
        },
        // `{{dateFormat date 'yyyy-MM-dd'}}` or a Java style: 'full', 'long', 'medium' (the default), 'short'.
        "dateFormat": { call throws(HelperError) in
            let date = try givenDate(call, example: "{{dateFormat (parseDate '2024-01-31') 'dd/MM/yyyy'}}")
            let given = call.params.count > 1 ? call.param(1).text : call.hash["format"]?.text ?? "medium"
            let styles = ["full": "EEEE, MMMM d, y", "long": "MMMM d, y", "medium": "MMM d, y", "short": "M/d/yy"]
            return try TemplateDates.format(date, pattern: styles[given] ?? given, timeZone: call.hash["tz"]?.text ?? call.hash["timezone"]?.text)
        },
        // `{{truncateDate date 'first day of month'}}`.
        "truncateDate": { call throws(HelperError) in
            let date = try givenDate(call, example: "{{truncateDate (now) 'first day of month'}}")
            let unit = try call.text(1, "a truncation, e.g. 'first day of month'")
            guard let truncation = DateTruncation(rawValue: unit) else {
                throw HelperError(
                    "truncateDate: '\(unit)' is not one of \(DateTruncation.allCases.map { "'\($0.rawValue)'" }.joined(separator: ", "))")
            }
            return .date(truncation.apply(to: date))
        },
    ])

    /// The first argument as a date: a parsed one, or text in ISO 8601 or an HTTP date.
    private static func givenDate(_ call: HelperCall, example: String) throws(HelperError) -> Date {
        switch call.param(0) {
        case .date(let date): return date
        case .null: throw HelperError("\(call.name) needs a date, e.g. \(example)")
        case let other: return try TemplateDates.parse(other.text, pattern: nil)
        }
    }
}
