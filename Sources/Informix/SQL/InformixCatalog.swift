/// The Informix system catalog: `systables`, `syscolumns`, `sysconstraints`, `sysindexes`,
/// `sysreferences`, `syschecks`, `sysdefaults`, `sysviews`, `systriggers`, as real tables that
/// clients query with SQL. Their rows are written from the table definitions on every schema
/// change, so the catalog always tells the truth about the database.
enum InformixCatalog {
    /// The catalog tables with the tabids and columns of the Informix Guide to SQL: Reference
    /// (sysindexes is a view over sysindices in Informix 9+; a table here, with tabid 3).
    static let tables: [(tabid: Int, ddl: String)] = [
        (
            1,
            """
            create table systables (tabname varchar(128), owner char(32), partnum integer, tabid serial, rowsize smallint,
            ncols smallint, nindexes smallint, nrows float, created date, version integer, tabtype char(1),
            locklevel char(1), npused float, fextsize integer, nextsize integer, flags smallint, site varchar(128),
            dbname varchar(128), type_xid integer, am_id integer, pagesize integer, ustlowts datetime year to fraction(5),
            secpolicyid integer, protgranularity char(1), statchange smallint, statlevel char(1))
            """
        ),
        (
            2,
            """
            create table syscolumns (colname varchar(128), tabid integer, colno smallint, coltype smallint,
            collength smallint, colmin integer, colmax integer, extended_id integer, seclabelid integer, colattr smallint)
            """
        ),
        (
            3,
            """
            create table sysindexes (idxname varchar(128), owner char(32), tabid integer, idxtype char(1), clustered char(1),
            part1 smallint, part2 smallint, part3 smallint, part4 smallint, part5 smallint, part6 smallint, part7 smallint,
            part8 smallint, part9 smallint, part10 smallint, part11 smallint, part12 smallint, part13 smallint,
            part14 smallint, part15 smallint, part16 smallint, levels smallint, leaves integer, nunique integer, clust integer)
            """
        ),
        (6, "create table sysviews (tabid integer, seqno smallint, viewtext char(64))"),
        (
            11,
            """
            create table sysconstraints (constrid serial, constrname varchar(128), owner char(32), tabid integer,
            constrtype char(1), idxname varchar(128), collation char(32))
            """
        ),
        (
            12,
            """
            create table sysreferences (constrid integer, primary integer, ptabid integer, updrule char(1), delrule char(1),
            matchtype char(1), pendant char(1))
            """
        ),
        (13, "create table syschecks (constrid integer, type char(1), seqno smallint, checktext char(32))"),
        (14, "create table sysdefaults (tabid integer, colno smallint, type char(1), default char(256), class char(1))"),
        (
            20,
            """
            create table systriggers (trigid serial, trigname varchar(128), owner char(32), tabid integer, event char(1),
            old varchar(128), new varchar(128), mode char(1), collation char(32))
            """
        ),
    ]

    static let catalogNames: Set<String> = [
        "systables", "syscolumns", "sysindexes", "sysviews", "sysconstraints",
        "sysreferences", "syschecks", "sysdefaults", "systriggers",
    ]

    /// Tables only the emulator sees: definitions and serial counters.
    static let hiddenPrefix = "understudy_"
    static let hiddenTables = [
        "CREATE TABLE understudy_tables (tabname TEXT PRIMARY KEY, definition TEXT NOT NULL)",
        "CREATE TABLE understudy_serial (tabname TEXT PRIMARY KEY, next INT NOT NULL)",
    ]

    /// First tabid of user tables.
    static let firstUserTabid = 100

    /// The statements that remove a table's catalog rows.
    static func deleteRows(tabid: Int) -> [String] {
        ["systables", "syscolumns", "sysindexes", "sysconstraints", "sysdefaults", "sysviews", "systriggers"].map {
            "DELETE FROM \($0) WHERE tabid = \(tabid)"
        } + ["sysreferences", "syschecks"].map { "DELETE FROM \($0) WHERE constrid NOT IN (SELECT constrid FROM sysconstraints)" }
    }

    /// The statements that write `table`'s catalog rows. `primaryConstrid` finds the constraint
    /// a foreign key points at (the referenced table's primary key or unique constraint).
    static func insertRows(_ table: TableDefinition, primaryConstrid: (ConstraintDefinition) -> (constrid: Int, tabid: Int)?) -> [String] {
        let tabid = table.tabid
        let keyIndexes = table.constraints.compactMap { constraint in
            constraint.indexName(tabid: tabid).map { (name: $0, constraint: constraint) }
        }
        var rows: [String] = []
        let isTable = table.tabtype == "T"
        let identity: [SQLiteValue] = [.text(table.name), .text(table.owner), .integer(Int64(1_048_576 + tabid)), .integer(Int64(tabid))]
        let sizes: [SQLiteValue] = [
            .integer(Int64(table.rowsize)), .integer(Int64(table.columns.count)),
            .integer(Int64(keyIndexes.count + table.indexes.count)), .real(0), .text(table.created),
        ]
        let kind: [SQLiteValue] = [
            .integer(Int64(tabid) * 65_536), .text(table.tabtype), .text(isTable ? "P" : "B"), .real(0),
            .integer(isTable ? 16 : 0), .integer(isTable ? 16 : 0), .integer(0), .text(""), .text(""),
        ]
        let rest: [SQLiteValue] = [.integer(0), .integer(0), .integer(isTable ? 2048 : 0), .null, .null, .text(""), .integer(0), .text("")]
        rows.append(insert("systables", identity + sizes + kind + rest))
        // Informix scans systables in tabid order (a table's row keeps its place when the table
        // changes), so a catalog query without ORDER BY lists `customer` first: the row's SQLite
        // rowid is its tabid, not the order of the last rewrite.
        rows.append("UPDATE systables SET rowid = \(tabid) WHERE tabid = \(tabid)")
        for (offset, column) in table.columns.enumerated() {
            rows.append(
                insert(
                    "syscolumns",
                    [
                        .text(column.name), .integer(Int64(tabid)), .integer(Int64(offset + 1)), .integer(Int64(column.coltype)),
                        .integer(Int64(column.type.collength)), .null, .null, .integer(0), .integer(0), .integer(0),
                    ]))
            if let text = column.defaultText {
                let type =
                    switch text {
                    case "NULL": "N"
                    case "USER": "U"
                    case "TODAY": "T"
                    case "CURRENT": "C"
                    default: "L"
                    }
                rows.append(
                    insert(
                        "sysdefaults",
                        [
                            .integer(Int64(tabid)), .integer(Int64(offset + 1)), .text(type),
                            .text(type == "L" ? text : ""), .text("T"),
                        ]))
            }
        }
        for constraint in table.constraints {
            rows.append(
                insert(
                    "sysconstraints",
                    [
                        .integer(Int64(constraint.constrid)), .text(constraint.name), .text(table.owner), .integer(Int64(tabid)),
                        .text(constraint.kind.rawValue), constraint.indexName(tabid: tabid).map { .text($0) } ?? .null, .text("en_US.819"),
                    ]))
            if constraint.kind == .foreignKey, let target = primaryConstrid(constraint) {
                rows.append(
                    insert(
                        "sysreferences",
                        [
                            .integer(Int64(constraint.constrid)), .integer(Int64(target.constrid)), .integer(Int64(target.tabid)),
                            .text("R"), .text(constraint.onDeleteCascade ? "C" : "R"), .text("N"), .text("N"),
                        ]))
            }
            if constraint.kind == .check, let text = constraint.checkText {
                for (seqno, chunk) in chunks(text, 32).enumerated() {
                    rows.append(insert("syschecks", [.integer(Int64(constraint.constrid)), .text("T"), .integer(Int64(seqno)), .text(chunk)]))
                }
            }
        }
        let indexes =
            keyIndexes.map {
                (
                    name: $0.name, owner: table.owner, columns: $0.constraint.columns.map { IndexDefinition.Part(name: $0) },
                    unique: $0.constraint.kind != .foreignKey, clustered: false
                )
            }
            + table.indexes.map { (name: $0.name, owner: $0.owner, columns: $0.columns, unique: $0.isUnique, clustered: $0.isClustered) }
        for index in indexes {
            var values: [SQLiteValue] = [
                .text(index.name), .text(index.owner), .integer(Int64(tabid)),
                .text(index.unique ? "U" : "D"), .text(index.clustered ? "C" : "-"),
            ]
            for slot in 0..<16 {
                guard slot < index.columns.count, let colno = table.colno(index.columns[slot].name) else {
                    values.append(.integer(0))
                    continue
                }
                values.append(.integer(Int64(index.columns[slot].descending ? -colno : colno)))
            }
            values += [.null, .null, .null, .null]
            rows.append(insert("sysindexes", values))
        }
        if let text = table.viewText {
            for (seqno, chunk) in chunks(text, 64).enumerated() {
                rows.append(insert("sysviews", [.integer(Int64(tabid)), .integer(Int64(seqno)), .text(chunk)]))
            }
        }
        for trigger in table.triggers {
            rows.append(
                insert(
                    "systriggers",
                    [
                        .integer(Int64(trigger.trigid)), .text(trigger.name), .text(table.owner), .integer(Int64(tabid)), .text(trigger.event),
                        trigger.old.map { .text($0) } ?? .null, trigger.new.map { .text($0) } ?? .null, .text("O"), .text("en_US.819"),
                    ]))
        }
        return rows
    }

    static func insert(_ table: String, _ values: [SQLiteValue]) -> String {
        "INSERT INTO \(table) VALUES (\(values.map(\.sqlLiteral).joined(separator: ", ")))"
    }

    private static func chunks(_ text: String, _ size: Int) -> [String] {
        var chunks: [String] = []
        var rest = Substring(text)
        repeat {
            chunks.append(String(rest.prefix(size)))
            rest = rest.dropFirst(size)
        } while !rest.isEmpty
        return chunks
    }
}

extension SQLiteValue {
    /// The value as an SQL literal.
    var sqlLiteral: String {
        switch self {
        case .null: "NULL"
        case .integer(let value): String(value)
        case .real(let value): "\(value)"
        case .text(let text): "'" + text.replacingOccurrences(of: "'", with: "''") + "'"
        case .blob(let bytes):
            "X'" + bytes.map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined() + "'"
        }
    }
}
