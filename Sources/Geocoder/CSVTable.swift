import Foundation
import MockCore

/// A CSV file (RFC 4180: comma-separated, `"`-quoted fields with `""` for a quote) read whole:
/// the header names the columns, and each row keeps its line number for error messages.
struct CSVTable {
    struct Row {
        let line: Int
        let fields: [String]
    }

    let file: String
    let columns: [String: Int]
    let rows: [Row]

    init(contentsOf url: URL) throws {
        guard let data = FileManager.default.contents(atPath: url.path) else {
            throw GazetteerError(file: url.path, line: 0, message: "cannot read the file")
        }
        var rows = Self.parse(Array(data))
        guard !rows.isEmpty else { throw GazetteerError(file: url.path, line: 1, message: "no header line") }
        let header = rows.removeFirst()
        file = url.path
        columns = Dictionary(header.fields.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
        self.rows = rows
    }

    /// The column's index, or an error naming the missing column.
    func column(_ name: String) throws -> Int {
        guard let index = columns[name] else {
            throw GazetteerError(file: file, line: 1, message: "missing column '\(name)'")
        }
        return index
    }

    private static func parse(_ bytes: [UInt8]) -> [Row] {
        var rows: [Row] = []
        var fields: [String] = []
        var field: [UInt8] = []
        var line = 1
        var rowLine = 1
        var index = 0
        var quoted = false
        let quote = UInt8(ascii: "\"")
        let comma = UInt8(ascii: ",")
        let newline = UInt8(ascii: "\n")
        let cr = UInt8(ascii: "\r")
        func endField() {
            fields.append(String(decoding: field, as: UTF8.self))
            field.removeAll(keepingCapacity: true)
        }
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            if quoted {
                if byte == quote {
                    if index < bytes.count, bytes[index] == quote {
                        field.append(quote)
                        index += 1
                    } else {
                        quoted = false
                    }
                } else {
                    if byte == newline { line += 1 }
                    field.append(byte)
                }
            } else if byte == quote && field.isEmpty {
                quoted = true
            } else if byte == comma {
                endField()
            } else if byte == newline {
                endField()
                if !(fields.count == 1 && fields[0].isEmpty) { rows.append(Row(line: rowLine, fields: fields)) }
                fields.removeAll(keepingCapacity: true)
                line += 1
                rowLine = line
            } else if byte != cr {
                field.append(byte)
            }
        }
        if !field.isEmpty || !fields.isEmpty {
            endField()
            rows.append(Row(line: rowLine, fields: fields))
        }
        return rows
    }
}

/// A gazetteer or places file that could not be used, with where.
public typealias GazetteerError = FixtureError
