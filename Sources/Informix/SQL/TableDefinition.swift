/// A table (or view) as Informix knows it: columns with their Informix types and the named
/// constraints. Kept as JSON in the database beside the SQLite table it generates, so the
/// catalog, value formatting and error messages all read one truth, and ALTER can rebuild.
struct TableDefinition: Codable, Sendable {
    var name: String
    var owner: String
    var tabid: Int
    /// `T` table, `V` view.
    var tabtype = "T"
    var columns: [ColumnDefinition]
    var constraints: [ConstraintDefinition] = []
    /// CREATE INDEX indexes (constraint indexes are implied by their constraints).
    var indexes: [IndexDefinition] = []
    /// Informix triggers on this table, as the SQLite statements that implement them.
    var triggers: [TriggerDefinition] = []
    /// For views: the Informix text (sysviews) and the SQLite SELECT.
    var viewText: String?
    var viewSQLite: String?
    /// Catalog tables may only be written by the emulator itself.
    var isCatalog = false
    var created = "2011-09-12"

    func column(_ name: String) -> ColumnDefinition? {
        columns.first { $0.name == name.lowercased() }
    }

    func colno(_ name: String) -> Int? {
        columns.firstIndex { $0.name == name.lowercased() }.map { $0 + 1 }
    }

    var serialColumn: ColumnDefinition? { columns.first { $0.type.isSerial } }

    /// The SQLite triggers the emulator itself puts on table `name` (SERIAL numbering, cutting
    /// long strings). The sandbox trusts these by name, and only these: see `SQLSandbox`.
    static func emulatorTriggerNames(_ name: String) -> [String] {
        ["understudy_serial_\(name)", "understudy_length_insert_\(name)", "understudy_length_update_\(name)"]
    }

    /// The statements that create the SQLite table, its indexes and triggers.
    var sqliteStatements: [String] {
        if tabtype == "V" {
            return ["CREATE VIEW \(name) (\(columns.map(\.name).joined(separator: ", "))) AS \(viewSQLite ?? "SELECT NULL")"]
                + triggers.map(\.sqlite)
        }
        var parts: [String] = columns.map { column in
            // Quoted: catalog columns such as "primary" and "default" are SQLite keywords.
            var part = "\"\(column.name)\" \(column.type.sqliteType == "INTEGER" ? "INT" : column.type.sqliteType)"
            if column.type.isFixedCharacter || column.type.kind == .varchar || column.type.kind == .nvarchar { part += " COLLATE RTRIM" }
            // Primary-key columns are never NULL in Informix (-703); SQLite would allow it.
            if column.notNull || column.type.isSerial || isPrimaryKeyColumn(column.name) { part += " NOT NULL" }
            if let value = column.defaultSQLite { part += " DEFAULT \(value)" } else if column.type.isSerial { part += " DEFAULT 0" }
            return part
        }
        for constraint in constraints {
            let columnList = constraint.columns.map(quoted).joined(separator: ", ")
            switch constraint.kind {
            case .primaryKey: parts.append("CONSTRAINT \(constraint.name) PRIMARY KEY (\(columnList))")
            case .unique: parts.append("CONSTRAINT \(constraint.name) UNIQUE (\(columnList))")
            case .foreignKey:
                let target = constraint.referencedColumns.map(quoted).joined(separator: ", ")
                parts.append(
                    "CONSTRAINT \(constraint.name) FOREIGN KEY (\(columnList)) REFERENCES \(constraint.referencedTable ?? "") (\(target))"
                        + (constraint.onDeleteCascade ? " ON DELETE CASCADE" : ""))
            case .check: parts.append("CONSTRAINT \(constraint.name) CHECK (\(constraint.checkSQLite ?? "1"))")
            case .notNull: continue
            }
        }
        // What Informix's types enforce and SQLite's storage classes do not.
        for column in columns {
            let name = quoted(column.name)
            let label = column.name
            if let limit = column.type.integerLimit {
                parts.append("CONSTRAINT understudy_range_\(label) CHECK (\(name) BETWEEN -\(limit) AND \(limit))")
            }
            if column.type.kind == .decimal || column.type.kind == .money, column.type.scale != InformixType.floatingScale {
                let digits = column.type.length - column.type.scale
                parts.append("CONSTRAINT understudy_precision_\(label) CHECK (abs(\(name)) < 1e\(digits))")
            }
            if column.type.kind == .date {
                parts.append("CONSTRAINT understudy_date_\(label) CHECK (\(name) IS NULL OR date(\(name)) IS \(name))")
            }
        }
        var statements = ["CREATE TABLE \(name) (\(parts.joined(separator: ", "))) STRICT"]
        statements += indexes.map { index in
            "CREATE \(index.isUnique ? "UNIQUE " : "")INDEX \(index.sqliteName) ON \(name) (\(index.columns.map { $0.descending ? "\(quoted($0.name)) DESC" : quoted($0.name) }.joined(separator: ", ")))"
        }
        return statements + emulatorTriggerStatements + triggers.map(\.sqlite)
    }

    /// The emulator's own triggers on this table (named by `emulatorTriggerNames`).
    var emulatorTriggerStatements: [String] {
        guard tabtype == "T" else { return [] }
        var triggers: [String] = []
        if let serial = serialColumn.map({ ColumnDefinition(name: quoted($0.name), type: $0.type) }) {
            // Informix SERIAL: 0 (or no value) takes the next number; a larger explicit value
            // moves the counter. The counter lives in understudy_serial, not in the rows.
            triggers.append(
                """
                CREATE TRIGGER \(Self.emulatorTriggerNames(name)[0]) AFTER INSERT ON \(name) BEGIN \
                UPDATE understudy_serial SET next = NEW.\(serial.name) + 1 WHERE tabname = '\(name)' AND NEW.\(serial.name) >= next; \
                UPDATE \(name) SET \(serial.name) = (SELECT next FROM understudy_serial WHERE tabname = '\(name)') WHERE rowid = NEW.rowid AND NEW.\(serial.name) = 0; \
                UPDATE understudy_serial SET next = next + 1 WHERE tabname = '\(name)' AND NEW.\(serial.name) = 0; \
                SELECT understudy_serial_assigned((SELECT \(serial.name) FROM \(name) WHERE rowid = NEW.rowid)); END
                """)
        }
        // Character columns longer than declared are cut, as a non-ANSI Informix database does.
        let bounded = columns.filter { $0.type.isCharacter && $0.type.kind != .text }
        if !bounded.isEmpty {
            let tooLong = bounded.map { "length(NEW.\(quoted($0.name))) > \($0.type.length)" }.joined(separator: " OR ")
            let cut = bounded.map { "\(quoted($0.name)) = substr(\(quoted($0.name)), 1, \($0.type.length))" }.joined(separator: ", ")
            for (event, trigger) in zip(["INSERT", "UPDATE"], Self.emulatorTriggerNames(name).dropFirst()) {
                triggers.append(
                    "CREATE TRIGGER \(trigger) AFTER \(event) ON \(name) WHEN \(tooLong) BEGIN UPDATE \(name) SET \(cut) WHERE rowid = NEW.rowid; END"
                )
            }
        }
        return triggers
    }

    /// A column name for generated SQL (quoted: "primary" and "default" are SQLite keywords).
    private func quoted(_ name: String) -> String { "\"\(name)\"" }

    func isPrimaryKeyColumn(_ column: String) -> Bool {
        constraints.contains { $0.kind == .primaryKey && $0.columns.contains(column) }
    }

    /// Bytes a row takes on disk, as systables.rowsize reports (approximate for variable types).
    var rowsize: Int {
        columns.reduce(0) { total, column in
            let type = column.type
            let size: Int =
                switch type.kind {
                case .char, .nchar: type.length
                case .varchar, .nvarchar, .lvarchar: type.length + 1
                case .decimal, .money: (type.length + (type.scale == InformixType.floatingScale ? 0 : type.scale % 2)) / 2 + 1
                case .datetime, .interval: (type.collength / 256 + 1) / 2 + 1
                default: type.collength
                }
            return total + size
        }
    }
}

struct ColumnDefinition: Codable, Sendable {
    var name: String
    var type: InformixType
    var notNull = false
    /// The default as SQLite writes it, and as Informix shows it.
    var defaultSQLite: String?
    var defaultText: String?

    /// syscolumns.coltype: the type code, +256 when NOT NULL (serials always).
    var coltype: Int { type.coltype + (notNull || type.isSerial ? 256 : 0) }
}

struct ConstraintDefinition: Codable, Sendable {
    enum Kind: String, Codable, Sendable {
        case primaryKey = "P", unique = "U", foreignKey = "R", check = "C", notNull = "N"
    }

    var kind: Kind
    var name: String
    var constrid: Int
    var columns: [String]
    var referencedTable: String?
    var referencedColumns: [String] = []
    var onDeleteCascade = false
    var checkText: String?
    var checkSQLite: String?

    /// The index Informix builds for a key constraint: a blank, the tabid and the constraint id.
    func indexName(tabid: Int) -> String? {
        [.primaryKey, .unique, .foreignKey].contains(kind) ? " \(tabid)_\(constrid)" : nil
    }
}

struct IndexDefinition: Codable, Sendable {
    struct Part: Codable, Sendable {
        var name: String
        var descending = false
    }

    var name: String
    var owner: String
    var columns: [Part]
    var isUnique = false
    var isClustered = false

    /// SQLite index names are global like Informix's; a prefix keeps them out of the way of
    /// SQLite's own autoindexes.
    var sqliteName: String { "ix_\(name)" }
}

struct TriggerDefinition: Codable, Sendable {
    var name: String
    var trigid: Int
    /// `I`, `U`, `D`, `S` as systriggers.event.
    var event: String
    var old: String?
    var new: String?
    var sqlite: String
}
