import Foundation

/// Schema statements applied to the database: the SQLite objects, the stored definition and
/// the catalog rows change together, inside one savepoint, so a failure leaves no trace.
extension InformixDatabase {
    func apply(_ statement: InformixDDL.Statement) throws(InformixError) {
        forgetStatements()
        // Rebuilding a table that others reference must not rewrite their foreign keys to the
        // renamed copy (SQLite does while foreign keys are on, and dropping the copy would then
        // fail): SQLite's procedure for a rebuild turns them off, which it allows only outside a
        // transaction — ALTER TABLE inside BEGIN WORK is refused anyway.
        let rebuildsTable = if case .alterTable = statement { !inUserTransaction } else { false }
        if rebuildsTable { try sqlite("PRAGMA foreign_keys = OFF") }
        defer { if rebuildsTable { try? sqlite("PRAGMA foreign_keys = ON") } }
        try atomically { () throws(InformixError) in
            switch statement {
            case .createTable(let spec):
                if definitions[spec.name] != nil {
                    if spec.ifNotExists { return }
                    throw .alreadyExists(spec.name)
                }
                try store(try createTable(spec, tabid: nextUserTabid(), owner: settings.user, isCatalog: false))
            case .dropTable(let name): try dropTable(name)
            case .createIndex(let spec): try createIndex(spec)
            case .dropIndex(let name): try dropIndex(name)
            case .createView(let spec): try createView(spec)
            case .dropView(let name):
                guard let view = definitions[name], view.tabtype == "V" else { throw .unknownTable(name) }
                try remove(view, sqlite: "DROP VIEW \(name)")
            case .createTrigger(let spec): try createTrigger(spec)
            case .dropTrigger(let name):
                guard var table = definitions.values.first(where: { $0.triggers.contains { $0.name == name } }) else {
                    throw InformixError(code: -522, sqlState: "IX000", message: "Table (\(name)) not selected in query.")
                }
                table.triggers.removeAll { $0.name == name }
                try sqlite("DROP TRIGGER \(name)")
                try store(table)
            case .alterTable(let name, let actions): try alterTable(name, actions)
            case .renameTable(let old, let new): try renameTable(old, new)
            case .renameColumn(let table, let old, let new): try renameColumn(table, old, new)
            }
        }
    }

    /// Runs `body` in a savepoint: all of it, or nothing (and the definitions as they were).
    private func atomically(_ body: () throws(InformixError) -> Void) throws(InformixError) {
        let saved = definitions
        try sqlite("SAVEPOINT understudy_ddl")
        do {
            try body()
            try sqlite("RELEASE understudy_ddl")
        } catch {
            // A statement stopped at its deadline must still be undone.
            state.deadline = 0
            try? sqlite("ROLLBACK TO understudy_ddl")
            try? sqlite("RELEASE understudy_ddl")
            definitions = saved
            throw error
        }
    }

    /// Runs the emulator's own SQL.
    func sqlite(_ sql: String) throws(InformixError) {
        let was = state.isInternal
        state.isInternal = true
        defer { state.isInternal = was }
        do { try connection.execute(sql) } catch { throw informixError(error) }
    }

    private func nextUserTabid() -> Int {
        max(InformixCatalog.firstUserTabid, (definitions.values.map(\.tabid).max() ?? 0) + 1)
    }

    private func nextConstrid() -> Int {
        (definitions.values.flatMap { $0.constraints.map(\.constrid) }.max() ?? 0) + 1
    }

    // MARK: Tables

    /// Creates the table's SQLite objects; `store` then records it.
    func createTable(_ spec: InformixDDL.TableSpec, tabid: Int, owner: String, isCatalog: Bool) throws(InformixError) -> TableDefinition {
        var table = TableDefinition(name: spec.name, owner: owner, tabid: tabid, columns: spec.columns, isCatalog: isCatalog)
        guard Set(spec.columns.map(\.name)).count == spec.columns.count else {
            throw InformixError(code: -246, sqlState: "42S21", message: "Duplicate column name.")
        }
        table.constraints = try constraints(spec.constraints, for: table)
        try build(table)
        if let serial = table.serialColumn {
            try sqlite("INSERT INTO understudy_serial VALUES ('\(table.name)', \(max(serial.type.start, 1)))")
        }
        definitions[table.name] = table
        return table
    }

    /// Names and numbers constraints as Informix does: primary key first, then NOT NULL per
    /// column, unique, referential and check constraints, each `<u|n|r|c><tabid>_<constrid>`.
    private func constraints(
        _ specs: [InformixDDL.ConstraintSpec], for table: TableDefinition,
        existing: [ConstraintDefinition] = []
    ) throws(InformixError) -> [ConstraintDefinition] {
        var next = max(nextConstrid(), (existing.map(\.constrid).max() ?? 0) + 1)
        var result = existing
        let order: [ConstraintDefinition.Kind] = [.primaryKey, .notNull, .unique, .foreignKey, .check]
        for kind in order {
            for spec in specs where spec.kind == kind {
                for column in spec.columns where table.column(column) == nil { throw .unknownColumn(column) }
                if kind == .primaryKey, result.contains(where: { $0.kind == .primaryKey }) {
                    throw InformixError(code: -583, sqlState: "42000", message: "Table (\(table.name)) already has a primary key.")
                }
                let prefix =
                    switch kind {
                    case .primaryKey, .unique: "u"
                    case .notNull: "n"
                    case .foreignKey: "r"
                    case .check: "c"
                    }
                var constraint = ConstraintDefinition(
                    kind: kind, name: spec.name ?? "\(prefix)\(table.tabid)_\(next)", constrid: next,
                    columns: spec.columns, checkText: spec.checkText, checkSQLite: spec.checkSQLite)
                if kind == .foreignKey {
                    constraint.referencedTable = spec.referencedTable
                    constraint.referencedColumns = try referencedKey(spec, from: table)
                    constraint.onDeleteCascade = spec.onDeleteCascade
                }
                result.append(constraint)
                next += 1
            }
        }
        return result
    }

    /// The columns a foreign key points at: as written, or the referenced table's primary key.
    /// They must be its primary key or a unique constraint.
    private func referencedKey(_ spec: InformixDDL.ConstraintSpec, from table: TableDefinition) throws(InformixError) -> [String] {
        guard let name = spec.referencedTable else { throw .syntax() }
        let target = name == table.name ? table : definitions[name]
        guard let target else { throw .unknownTable(name) }
        let keys = target.constraints.filter { $0.kind == .primaryKey || $0.kind == .unique }
        let columns = spec.referencedColumns.isEmpty ? (keys.first { $0.kind == .primaryKey }?.columns ?? []) : spec.referencedColumns
        guard !columns.isEmpty, columns.count == spec.columns.count, keys.contains(where: { $0.columns == columns }) else {
            throw InformixError(code: -297, sqlState: "42000", message: "Cannot find unique constraint or primary key on referenced table (\(name)).")
        }
        return columns
    }

    /// Creates the SQLite objects of `table`.
    private func build(_ table: TableDefinition) throws(InformixError) {
        for statement in table.sqliteStatements { try sqlite(statement) }
    }

    /// Saves the definition and rewrites its catalog rows.
    func store(_ table: TableDefinition) throws(InformixError) {
        definitions[table.name] = table
        let json: String
        do {
            json = String(decoding: try JSONEncoder().encode(table), as: UTF8.self)
        } catch {
            throw InformixError(code: -999, sqlState: "HY000", message: "Not implemented yet. (\(error))")
        }
        try sqlite(
            "INSERT OR REPLACE INTO understudy_tables VALUES (\(SQLiteValue.text(table.name).sqlLiteral), \(SQLiteValue.text(json).sqlLiteral))")
        for statement in InformixCatalog.deleteRows(tabid: table.tabid) { try sqlite(statement) }
        let rows = InformixCatalog.insertRows(table) { constraint in
            guard let target = self.definitions[constraint.referencedTable ?? ""],
                let key = target.constraints.first(where: {
                    ($0.kind == .primaryKey || $0.kind == .unique) && $0.columns == constraint.referencedColumns
                })
            else { return nil }
            return (key.constrid, target.tabid)
        }
        for statement in rows { try sqlite(statement) }
    }

    /// Forgets `table` and runs `drop` (its SQLite statement).
    private func remove(_ table: TableDefinition, sqlite drop: String) throws(InformixError) {
        try sqlite(drop)
        for statement in InformixCatalog.deleteRows(tabid: table.tabid) { try sqlite(statement) }
        try sqlite("DELETE FROM understudy_tables WHERE tabname = '\(table.name)'")
        try sqlite("DELETE FROM understudy_serial WHERE tabname = '\(table.name)'")
        definitions[table.name] = nil
    }

    /// DROP TABLE is CASCADE in a database that is not ANSI-compliant: the foreign keys that
    /// point at the table and the views over it go too.
    private func dropTable(_ name: String) throws(InformixError) {
        guard let table = definitions[name], table.tabtype == "T" else { throw .unknownTable(name) }
        if table.isCatalog { throw .catalogChange(name) }
        for var child in definitions.values where child.name != name && child.constraints.contains(where: { $0.referencedTable == name }) {
            child.constraints.removeAll { $0.referencedTable == name }
            try rebuild(child)
        }
        try remove(table, sqlite: "DROP TABLE \(name)")
        for view in definitions.values where view.tabtype == "V" {
            if (try? connection.prepare("SELECT * FROM \(view.name)")) == nil { try remove(view, sqlite: "DROP VIEW \(view.name)") }
        }
    }

    /// Replaces a table's SQLite objects with those of its new definition, keeping the rows of
    /// the columns both have. Foreign keys of other tables keep pointing at its name.
    private func rebuild(_ table: TableDefinition) throws(InformixError) {
        guard let old = definitions[table.name] else { throw .unknownTable(table.name) }
        if inUserTransaction {
            throw InformixError(code: -999, sqlState: "HY000", message: "Not implemented yet. (ALTER TABLE inside BEGIN WORK)")
        }
        let common = table.columns.map(\.name).filter { old.column($0) != nil }.joined(separator: ", ")
        let saved = "understudy_old_\(table.name)"
        try sqlite("PRAGMA legacy_alter_table = ON")
        defer { try? sqlite("PRAGMA legacy_alter_table = OFF") }
        try sqlite("ALTER TABLE \(table.name) RENAME TO \(saved)")
        for trigger in TableDefinition.emulatorTriggerNames(table.name) {
            try sqlite("DROP TRIGGER IF EXISTS \(trigger)")
        }
        for trigger in old.triggers { try sqlite("DROP TRIGGER IF EXISTS \(trigger.name)") }
        for index in old.indexes { try sqlite("DROP INDEX IF EXISTS \(index.sqliteName)") }
        // The client's triggers come back after the rows: copying rows is not the client's
        // INSERT, and their actions must never run inside the emulator's own statement.
        var bare = table
        bare.triggers = []
        try build(bare)
        try sqlite("INSERT INTO \(table.name) (\(common)) SELECT \(common) FROM \(saved)")
        try sqlite("DROP TABLE \(saved)")
        for trigger in table.triggers { try sqlite(trigger.sqlite) }
        try store(table)
    }

    // MARK: ALTER TABLE, RENAME

    private func alterTable(_ name: String, _ actions: [InformixDDL.AlterAction]) throws(InformixError) {
        guard var table = definitions[name], table.tabtype == "T" else { throw .unknownTable(name) }
        if table.isCatalog { throw .catalogChange(name) }
        for action in actions {
            switch action {
            case .add(let columns, let specs):
                for column in columns {
                    guard table.column(column.name) == nil else {
                        throw InformixError(code: -328, sqlState: "42S21", message: "Column (\(column.name)) already exists in table.")
                    }
                    table.columns.append(column)
                }
                table.constraints = try constraints(specs, for: table, existing: table.constraints)
            case .modify(let columns):
                for column in columns {
                    guard let index = table.columns.firstIndex(where: { $0.name == column.name }) else { throw .unknownColumn(column.name) }
                    table.columns[index] = column
                    table.constraints.removeAll { $0.kind == .notNull && $0.columns == [column.name] }
                    if column.notNull {
                        table.constraints = try constraints([.init(kind: .notNull, columns: [column.name])], for: table, existing: table.constraints)
                    }
                }
            case .drop(let names):
                for name in names {
                    guard table.column(name) != nil else { throw .unknownColumn(name) }
                    table.columns.removeAll { $0.name == name }
                    table.constraints.removeAll { $0.columns.contains(name) }
                    table.indexes.removeAll { $0.columns.contains { $0.name == name } }
                }
            case .addConstraints(let specs):
                table.constraints = try constraints(specs, for: table, existing: table.constraints)
            case .dropConstraints(let names):
                for name in names {
                    guard table.constraints.contains(where: { $0.name == name }) else {
                        throw InformixError(code: -623, sqlState: "42000", message: "Unable to find CONSTRAINT (\(name)).")
                    }
                    table.constraints.removeAll { $0.name == name }
                }
            }
        }
        try rebuild(table)
    }

    private func renameTable(_ old: String, _ new: String) throws(InformixError) {
        guard var table = definitions[old] else { throw .unknownTable(old) }
        if table.isCatalog { throw .catalogChange(old) }
        guard definitions[new] == nil else { throw .alreadyExists(new) }
        try sqlite("ALTER TABLE \(old) RENAME TO \(new)")
        try sqlite("DELETE FROM understudy_tables WHERE tabname = '\(old)'")
        try sqlite("UPDATE understudy_serial SET tabname = '\(new)' WHERE tabname = '\(old)'")
        definitions[old] = nil
        table.name = new
        // The emulator's triggers are known by the table's name and say it in their bodies.
        for trigger in TableDefinition.emulatorTriggerNames(old) { try sqlite("DROP TRIGGER IF EXISTS \(trigger)") }
        for statement in table.emulatorTriggerStatements { try sqlite(statement) }
        try store(table)
        for var other in definitions.values where other.constraints.contains(where: { $0.referencedTable == old }) {
            for index in other.constraints.indices where other.constraints[index].referencedTable == old {
                other.constraints[index].referencedTable = new
            }
            try store(other)
        }
    }

    private func renameColumn(_ tableName: String, _ old: String, _ new: String) throws(InformixError) {
        guard var table = definitions[tableName] else { throw .unknownTable(tableName) }
        guard let index = table.columns.firstIndex(where: { $0.name == old }) else { throw .unknownColumn(old) }
        try sqlite("ALTER TABLE \(tableName) RENAME COLUMN \(old) TO \(new)")
        table.columns[index].name = new
        for constraint in table.constraints.indices {
            table.constraints[constraint].columns = table.constraints[constraint].columns.map { $0 == old ? new : $0 }
        }
        for position in table.indexes.indices {
            table.indexes[position].columns = table.indexes[position].columns.map {
                $0.name == old ? .init(name: new, descending: $0.descending) : $0
            }
        }
        try store(table)
    }

    // MARK: Indexes, views, triggers

    private func createIndex(_ spec: InformixDDL.IndexSpec) throws(InformixError) {
        guard var table = definitions[spec.table], table.tabtype == "T" else { throw .unknownTable(spec.table) }
        if definitions.values.contains(where: { $0.indexes.contains { $0.name == spec.index.name } }) { throw .indexExists(spec.index.name) }
        for part in spec.index.columns where table.column(part.name) == nil { throw .unknownColumn(part.name) }
        table.indexes.append(spec.index)
        let columns = spec.index.columns.map { $0.descending ? "\($0.name) DESC" : $0.name }.joined(separator: ", ")
        try sqlite("CREATE \(spec.index.isUnique ? "UNIQUE " : "")INDEX \(spec.index.sqliteName) ON \(table.name) (\(columns))")
        try store(table)
    }

    private func dropIndex(_ name: String) throws(InformixError) {
        guard var table = definitions.values.first(where: { $0.indexes.contains { $0.name == name } }),
            let index = table.indexes.first(where: { $0.name == name })
        else { throw .unknownIndex(name) }
        table.indexes.removeAll { $0.name == name }
        try sqlite("DROP INDEX \(index.sqliteName)")
        try store(table)
    }

    private func createView(_ spec: InformixDDL.ViewSpec) throws(InformixError) {
        guard definitions[spec.name] == nil else { throw .alreadyExists(spec.name) }
        let select = try dialect.translate(spec.select).sqliteText()
        // The view's columns and their types come from what its SELECT returns.
        let described: [ResultColumn]
        do {
            let statement = try connection.prepare(select)
            described = (0..<statement.columnCount).map { index in
                let origin = statement.columnOrigin(index)
                let type = origin.flatMap { definitions[$0.table.lowercased()]?.column($0.column)?.type }
                return ResultColumn(name: (origin?.column ?? statement.columnName(index)).lowercased(), type: type)
            }
        } catch {
            throw informixError(error)
        }
        guard spec.columns.isEmpty || spec.columns.count == described.count else {
            throw InformixError(code: -207, sqlState: "42000", message: "Number of columns in the view does not match the SELECT list.")
        }
        let columns = described.enumerated().map { offset, column in
            ColumnDefinition(
                name: spec.columns.isEmpty ? column.name : spec.columns[offset],
                type: column.type ?? InformixType(kind: .varchar, length: 255))
        }
        var view = TableDefinition(name: spec.name, owner: settings.user, tabid: nextUserTabid(), columns: columns)
        view.tabtype = "V"
        view.viewText = spec.text
        view.viewSQLite = select
        try build(view)
        try store(view)
    }

    /// Informix's `REFERENCING OLD AS o NEW AS n … (action, …)` becomes a SQLite row trigger
    /// whose actions use OLD/NEW.
    private func createTrigger(_ spec: InformixDDL.TriggerSpec) throws(InformixError) {
        guard var table = definitions[spec.table], table.tabtype == "T" else { throw .unknownTable(spec.table) }
        // The emulator writes the catalog: a client's trigger there would run inside its statements.
        if table.isCatalog { throw .catalogChange(table.name) }
        if definitions.values.contains(where: { $0.triggers.contains { $0.name == spec.name } }) {
            throw InformixError(code: -730, sqlState: "IX000", message: "Trigger (\(spec.name)) already exists in database.")
        }
        var actions: [String] = []
        for action in spec.actions {
            var tokens = action
            for index in tokens.indices where tokens[index].kind == .word && index + 1 < tokens.count && tokens[index + 1].isSymbol(".") {
                if tokens[index].lowered == spec.old { tokens[index].text = "OLD" }
                if tokens[index].lowered == spec.new { tokens[index].text = "NEW" }
            }
            actions.append(try dialect.translate(tokens).sqliteText())
        }
        let event = spec.event.uppercased() + (spec.columns.isEmpty ? "" : " OF " + spec.columns.joined(separator: ", "))
        let sql =
            "CREATE TRIGGER \(spec.name) \(spec.timing.uppercased()) \(event) ON \(table.name) FOR EACH ROW BEGIN "
            + actions.map { $0 + "; " }.joined() + "END"
        let trigid = (definitions.values.flatMap { $0.triggers.map(\.trigid) }.max() ?? 0) + 1
        table.triggers.append(
            TriggerDefinition(
                name: spec.name, trigid: trigid, event: String(spec.event.prefix(1)).uppercased(),
                old: spec.old, new: spec.new, sqlite: sql))
        try sqlite(sql)
        try store(table)
    }
}
