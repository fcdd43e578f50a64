import HTTPServer
import WireFormat

/// The scripts' `$rows = $stmt->fetchAll(PDO::FETCH_ASSOC)` and the loop that adds each row to
/// the XML, fed one row at a time while the statement steps: a value goes from SQLite's buffer
/// into the answer, without a String or a row array in between. What it writes only counts once
/// the query has run to its end: fetchAll fails as a whole before the loop runs, so on an error
/// the caller drops this writer and its script run.
final class FetchedRowsWriter {
    /// One key of a fetched row: its element, and the result column its value comes from. A
    /// class: the loop reads keys for every value, and a copy of a struct retains each tag.
    private final class Key: Sendable {
        let element: SimpleXMLWriter.Element
        let source: Int
        let type: InformixType?
        /// Text is written as the driver hands it (no number or date formatting, no stream).
        let isPlainText: Bool
        /// CHAR and NCHAR: blank-padded to their length.
        let isPadded: Bool

        init(element: SimpleXMLWriter.Element, source: Int, type: InformixType?) {
            self.element = element
            self.source = source
            self.type = type
            isPlainText = ![.text, .byte, .decimal, .money, .date].contains(type?.kind)
            isPadded = type?.kind == .char || type?.kind == .nchar
        }
    }

    /// Keys by columns and case: clients run the same few statements again and again. Kept
    /// for small results' columns only, so that the table stays small whatever clients select.
    private static let knownKeys = Locked([KeyedColumns: [Key]]())
    private static let knownKeysLimit = 256
    private static let knownColumnsLimit = 64
    private static let knownNameBytesLimit = 1_024

    private struct KeyedColumns: Hashable {
        let columns: [ResultColumn]
        let columnCase: PHPScripts.ColumnCase
    }

    private let scripts: PHPScripts
    /// The script run, with the notices the loop printed.
    private var run: ScriptRun
    private var xml: SimpleXMLWriter
    private let row: SimpleXMLWriter.Element
    /// `<ThereWasAnError>no</ThereWasAnError>` opens every row (generic.php), as addChild stores it.
    private let marker: [UInt8]?
    private let entitiesLine: Int
    /// Made from the result's columns at the first row.
    private var keys: [Key]?
    /// The script's end, when a value stopped it: later rows are still fetched but not written.
    private var fatal: PHPPage?

    init(_ scripts: PHPScripts, run: ScriptRun, root: String, row: String, marker: Bool, entitiesLine: Int) {
        self.scripts = scripts
        self.run = run
        xml = SimpleXMLWriter(runtime: scripts.runtime, root: root, capacity: 16 * 1024)
        self.row = SimpleXMLWriter.Element(row)
        self.marker = marker ? SimpleXMLWriter.parsedContent(Array("no".utf8), runtime: scripts.runtime) : nil
        self.entitiesLine = entitiesLine
    }

    /// The page the script sends once every row was added.
    func finish() -> PHPPage {
        fatal ?? run.page(contentType: scripts.runtime.contentType("text/xml"), xml.finish())
    }

    /// Adds the statement's current row; answers its size as a kept row counts it (RowVisitor).
    func add(_ statement: SQLiteStatement, _ columns: [ResultColumn]) -> Int {
        guard fatal == nil else { return statement.rowByteCount }
        let keys = keys ?? makeKeys(columns)
        self.keys = keys
        // The document is passed down inout: reached through this class's property at every
        // value, each access would be checked for exclusivity at run time.
        guard let size = add(statement, keys, to: &xml) else { return statement.rowByteCount }
        // A repeated name reads only the last of its columns: then the row is counted on its own.
        return keys.count == columns.count ? size : statement.rowByteCount
    }

    /// The row's size when written whole; nil when a value stopped the script.
    private func add(_ statement: SQLiteStatement, _ keys: [Key], to xml: inout SimpleXMLWriter) -> Int? {
        var size = 0
        xml.openRow(row)
        if let marker { xml.addChild(PHPScripts.errorFlag, parsed: marker) }
        let php8 = scripts.runtime.version == .php8
        for key in keys {
            // Values PDO hands over as they are stored: written from SQLite's buffers. What
            // needs formatting, a notice or a stream goes through PDOValue.
            switch statement.view(key.source) {
            case .null where !php8:
                xml.addChild(key.element, parsed: [])  // what addChild stores of htmlentities(NULL)
                size += 1
                continue
            case .integer(let number) where key.isPlainText && !key.isPadded:
                xml.addChild(key.element, integer: number)
                size += 8
                continue
            case .text(let bytes) where key.isPlainText:
                if let characters = PDOValue.asciiCharacterCount(bytes) {
                    let padding = key.isPadded ? max(0, (key.type?.length ?? 0) - characters) : 0
                    xml.addEscapedChild(key.element, ascii: bytes, padding: padding)
                    size += bytes.count
                    continue
                }
            default: break
            }
            let value = statement.value(key.source)
            size += value.byteCount
            if let end = add(PDOValue(value, type: key.type, dateOutput: scripts.dateOutput), key, to: &xml) {
                fatal = end
                return nil
            }
        }
        xml.closeRow(row)
        return size
    }

    private func makeKeys(_ columns: [ResultColumn]) -> [Key] {
        let known = KeyedColumns(columns: columns, columnCase: scripts.columnCase)
        if let made = Self.knownKeys.withLock({ $0[known] }) { return made }
        let made = Self.keys(columns, scripts.columnCase)
        if columns.count <= Self.knownColumnsLimit && columns.reduce(0, { $0 + $1.name.utf8.count }) <= Self.knownNameBytesLimit {
            Self.knownKeys.withLock { keys in
                if keys.count >= Self.knownKeysLimit { keys.removeAll() }
                keys[known] = made
            }
        }
        return made
    }

    /// FETCH_ASSOC: one key per name; a repeated name keeps its first place and last value.
    private static func keys(_ columns: [ResultColumn], _ columnCase: PHPScripts.ColumnCase) -> [Key] {
        var names: [String] = []
        var positions: [String: Int] = [:]
        var sources: [Int] = []
        for (index, column) in columns.enumerated() {
            let name =
                switch columnCase {
                case .upper: column.name.uppercased()
                case .lower: column.name.lowercased()
                case .natural: column.name
                }
            if let position = positions[name] {
                sources[position] = index
            } else {
                positions[name] = names.count
                names.append(name)
                sources.append(index)
            }
        }
        return zip(names, sources).map { name, source in
            Key(element: SimpleXMLWriter.Element(name), source: source, type: columns[source].type)
        }
    }

    /// `$child->addChild($name, htmlentities($value))`; the script's end when it stops there.
    private func add(_ value: PDOValue, _ key: Key, to xml: inout SimpleXMLWriter) -> PHPPage? {
        let runtime = scripts.runtime
        switch value {
        case .string(let text, let padding):
            xml.addEscapedChild(key.element, text, padding: padding)
        case .null:
            if runtime.version == .php8 {
                run.notice(
                    "htmlentities(): Passing null to parameter #1 ($string) of type string is deprecated",
                    line: entitiesLine, kind: "Deprecated")
            }
            xml.addChild(key.element, parsed: [])  // what addChild stores of ""
        case .stream:
            if runtime.version == .php8 {
                let trace =
                    "Uncaught TypeError: htmlentities(): Argument #1 ($string) must be of type string, resource given in "
                    + "\(runtime.documentRoot)\(run.file):\(entitiesLine)\nStack trace:\n#0 \(runtime.documentRoot)\(run.file)(\(entitiesLine)): "
                    + "htmlentities(Resource id #\(run.nextResource()))\n#1 {main}\n  thrown"
                return run.fatal(trace, line: entitiesLine)
            }
            run.notice("htmlentities() expects parameter 1 to be string, resource given", line: entitiesLine, kind: "Warning")
            _ = run.nextResource()
            xml.addChild(key.element, raw: nil)
        }
        return nil
    }
}
