import WireFormat

/// The `DBDATE` setting: the order of month, day and year, the year's digits and the separator,
/// e.g. `Y4MD-` (2011-01-08), `MDY4/` (01/08/2011, the US default), `DMY2-` (08-01-11),
/// `MDY20` (010811: no separator). DATE literals in SQL are read with it.
struct DBDateFormat: Equatable, Sendable, CustomStringConvertible {
    enum Part: Equatable, Sendable { case year, month, day }

    let order: [Part]
    let yearDigits: Int
    /// nil: no separator (`0`).
    let separator: Character?
    let description: String

    static let iso = DBDateFormat("Y4MD-")!

    /// nil when `text` is not a DBDATE value.
    init?(_ text: String) {
        var order: [Part] = []
        var yearDigits = 4
        var characters = Array(text.uppercased())
        guard let last = characters.popLast() else { return nil }
        var index = 0
        while index < characters.count {
            switch characters[index] {
            case "M": order.append(.month)
            case "D": order.append(.day)
            case "Y":
                order.append(.year)
                guard index + 1 < characters.count, let digits = characters[index + 1].wholeNumberValue, digits == 2 || digits == 4 else {
                    return nil
                }
                yearDigits = digits
                index += 1
            default: return nil
            }
            index += 1
        }
        guard order.count == 3, Set(order.map { "\($0)" }).count == 3 else { return nil }
        self.order = order
        self.yearDigits = yearDigits
        switch last {
        case "0": separator = nil
        case "-", ".", "/": separator = last
        default: separator = "/"  // Informix falls back to a slash for any other character.
        }
        description = text.uppercased()
    }

    /// `yyyy-mm-dd` for a literal written in this format; nil when it is not a valid date.
    func isoDate(from literal: String) -> String? {
        var fields: [Substring]
        let text = literal.trimmingSpaces
        if let separator {
            fields = text.split(separator: separator, omittingEmptySubsequences: false)
        } else {
            var rest = Substring(text)
            fields = []
            for part in order {
                let width = part == .year ? yearDigits : 2
                guard rest.count >= width else { return nil }
                fields.append(rest.prefix(width))
                rest = rest.dropFirst(width)
            }
            guard rest.isEmpty else { return nil }
        }
        guard fields.count == 3 else { return nil }
        var year = 0
        var month = 0
        var day = 0
        for (part, field) in zip(order, fields) {
            guard !field.isEmpty, field.count <= (part == .year ? 4 : 2), field.allSatisfy(\.isASCII), let value = Int(field) else { return nil }
            switch part {
            case .year: year = field.count <= 2 ? 1900 + value : value
            case .month: month = value
            case .day: day = value
            }
        }
        let date = CivilDate(year: year, month: month, day: day)
        return date.isInformixDate ? date.iso8601 : nil
    }

    /// An ISO date written in this format.
    func format(isoDate: String) -> String {
        let parts = isoDate.split(separator: "-")
        guard parts.count == 3 else { return isoDate }
        let fields = order.map { part -> String in
            switch part {
            case .year: yearDigits == 2 ? String(parts[0].suffix(2)) : String(parts[0])
            case .month: String(parts[1])
            case .day: String(parts[2])
            }
        }
        return fields.joined(separator: separator.map(String.init) ?? "")
    }
}

extension CivilDate {
    /// A date Informix's DATE holds: a day the month has, in years 1 to 9999.
    var isInformixDate: Bool { (1...9999).contains(year) && isValid }
}
