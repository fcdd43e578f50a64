/// A column type as Informix declares it, with what the system catalog shows for it (`coltype`,
/// `collength`), how it is stored in SQLite, and how PDO_INFORMIX hands its values to PHP.
struct InformixType: Codable, Hashable, Sendable {
    enum Kind: String, Codable, Sendable {
        case char, nchar, varchar, nvarchar, lvarchar
        case smallint, integer, int8, bigint, serial, serial8, bigserial
        case float, smallfloat, decimal, money
        case date, datetime, interval
        case text, byte, boolean
    }

    /// A DATETIME or INTERVAL field; raw values are the catalog's qualifier codes.
    enum Field: Int, Codable, Sendable, Comparable {
        case year = 0, month = 2, day = 4, hour = 6, minute = 8, second = 10
        case fraction1 = 11, fraction2, fraction3, fraction4, fraction5

        init?(name: String, fractionDigits: Int = 3) {
            switch name.lowercased() {
            case "year": self = .year
            case "month": self = .month
            case "day": self = .day
            case "hour": self = .hour
            case "minute": self = .minute
            case "second": self = .second
            case "fraction": self.init(rawValue: 10 + min(max(fractionDigits, 1), 5))
            default: return nil
            }
        }

        static func < (lhs: Field, rhs: Field) -> Bool { lhs.rawValue < rhs.rawValue }

        /// Digits the field takes in a value.
        var digits: Int { self == .year ? 4 : self.rawValue > 10 ? self.rawValue - 10 : 2 }

        var name: String {
            switch self {
            case .year: "year"
            case .month: "month"
            case .day: "day"
            case .hour: "hour"
            case .minute: "minute"
            case .second: "second"
            default: "fraction(\(rawValue - 10))"
            }
        }
    }

    var kind: Kind
    /// CHAR/NCHAR length, VARCHAR/NVARCHAR/LVARCHAR maximum, DECIMAL/MONEY precision.
    var length = 0
    /// VARCHAR reserved space, DECIMAL/MONEY scale (255: floating-point DECIMAL).
    var scale = 0
    /// SERIAL start value.
    var start = 1
    /// DATETIME/INTERVAL qualifier; `leading` is the INTERVAL's first-field precision.
    var first = Field.year
    var last = Field.day
    var leading = 0

    static let floatingScale = 255

    /// The catalog's `coltype` without the NOT NULL flag (+256).
    var coltype: Int {
        switch kind {
        case .char: 0
        case .smallint: 1
        case .integer: 2
        case .float: 3
        case .smallfloat: 4
        case .decimal: 5
        case .serial: 6
        case .date: 7
        case .money: 8
        case .datetime: 10
        case .byte: 11
        case .text: 12
        case .varchar: 13
        case .interval: 14
        case .nchar: 15
        case .nvarchar: 16
        case .int8: 17
        case .serial8: 18
        case .lvarchar: 43
        case .boolean: 45
        case .bigint: 52
        case .bigserial: 53
        }
    }

    /// The catalog's `collength`, encoded as the Informix Guide to SQL describes per type.
    var collength: Int {
        switch kind {
        case .char, .nchar, .lvarchar: length
        case .varchar, .nvarchar: scale * 256 + length
        case .smallint: 2
        case .integer, .serial, .date: 4
        case .int8, .serial8: 10
        case .bigint, .bigserial: 8
        case .float: 8
        case .smallfloat: 4
        case .decimal, .money: length * 256 + scale
        case .datetime, .interval: digits * 256 + first.rawValue * 16 + last.rawValue
        case .text, .byte: 56
        case .boolean: 1
        }
    }

    /// Digits of a DATETIME or INTERVAL value.
    private var digits: Int {
        var fields = [Field.year, .month, .day, .hour, .minute, .second].filter { $0 >= first && $0 <= last }
        if last.rawValue > 10, !fields.contains(last) { fields.append(last) }
        let total = fields.reduce(0) { $0 + $1.digits }
        if kind == .interval, leading > 0 { return total - first.digits + leading }
        return total
    }

    var isSerial: Bool { kind == .serial || kind == .serial8 || kind == .bigserial }
    var isCharacter: Bool { [.char, .nchar, .varchar, .nvarchar, .lvarchar, .text].contains(kind) }
    /// Fixed-length types, blank-padded on output and compared without trailing blanks.
    var isFixedCharacter: Bool { kind == .char || kind == .nchar }

    /// The STRICT-table storage class.
    var sqliteType: String {
        switch kind {
        case .smallint, .integer, .int8, .bigint, .serial, .serial8, .bigserial: "INTEGER"
        case .float, .smallfloat, .decimal, .money: "REAL"
        case .byte: "BLOB"
        default: "TEXT"
        }
    }

    /// Largest magnitude an integer type holds (Informix keeps the most negative value for NULL).
    var integerLimit: Int64? {
        switch kind {
        case .smallint: 32_767
        case .integer, .serial: 2_147_483_647
        case .int8, .serial8, .bigint, .bigserial: 9_223_372_036_854_775_807
        default: nil
        }
    }

    /// The declaration as dbschema prints it, e.g. `char(15)`, `decimal(8,2)`.
    var declaration: String {
        switch kind {
        case .char, .nchar: "\(kind.rawValue)(\(length))"
        case .varchar, .nvarchar: scale > 0 ? "\(kind.rawValue)(\(length),\(scale))" : "\(kind.rawValue)(\(length))"
        case .lvarchar: "lvarchar(\(length))"
        case .serial, .serial8, .bigserial: start > 1 ? "\(kind.rawValue)(\(start))" : kind.rawValue
        case .decimal, .money: scale == Self.floatingScale ? "\(kind.rawValue)(\(length))" : "\(kind.rawValue)(\(length),\(scale))"
        case .datetime: "datetime \(first.name) to \(last.name)"
        case .interval: "interval \(first.name)(\(leading)) to \(last.name)"
        default: kind.rawValue
        }
    }
}
